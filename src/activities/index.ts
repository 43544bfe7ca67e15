/**
 * Activities: `createActivities(deps)` assembles the activities the worker registers, one file per job:
 * - ./tool-call.ts `callMcpTool` (lease a session, one round trip of `tools/call`, release), measured per attempt;
 *   ./outcome.ts says what a round, an elicitation or an error turns into (the tool's result, each era's input
 *   requests: `input_required`, the `-32042` form; a release; a login; a failure), pure; the question gate
 *   (src/gates/question/activity.ts) holds the legacy era's `elicitation/create` on the live session (at most ./update-slots.ts's number of a run's elicit
 *   updates in flight); ./failures.ts maps errors to failure types, ./progress.ts relays progress;
 * - ./list-tools.ts `listMcpTools`;
 * - ./task-watch.ts `watchMcpTask`, `cancelMcpTask` (MCP Tasks, 2026-07-28 extension);
 * - ./notify.ts `notifyPending` (the webhook);
 * - ./answer-proof.ts `checkAnswerProof` (a local activity: the inbox's proof of who answered, checked by the worker's key);
 * - ./oauth.ts `oauthAuthorize`, `oauthExchange` (a login's steps) and `requestLogin` (a call asks its login).
 * The names are the activity types recorded in histories: they never change.
 */
import type { DurableMcpActivities } from '../contract/activities.js';
import { measuredToolCall } from '../telemetry/tool-call-metrics.js';
import { checkAnswerProofActivity } from './answer-proof.js';
import type { ActivityDeps } from './deps.js';
import { listMcpToolsActivity } from './list-tools.js';
import { notifyPendingActivity } from './notify.js';
import { oauthAuthorizeActivity, oauthExchangeActivity, requestLoginActivity } from './oauth.js';
import { cancelMcpTaskActivity, watchMcpTaskActivity } from './task-watch.js';
import { callMcpToolActivity } from './tool-call.js';

export type { ActivityDeps } from './deps.js';
export type { LoginDeps } from './deps.js';
export type {
  CallMcpToolCompleted,
  CallMcpToolInput,
  CallMcpToolInputRequired,
  CallMcpToolOutcome,
  CallMcpToolReleased,
  CallMcpToolUrlRequired,
  CheckAnswerProofInput,
  DurableMcpActivities,
  InputRequests,
  ListMcpToolsInput,
  OAuthAuthorizeInput,
  OAuthAuthorizeOutcome,
  OAuthExchangeInput,
  OAuthExchangeOutcome,
  ReleaseReason,
  RequestLoginInput,
} from '../contract/activities.js';

/** The activities of a durable-mcp worker, on `deps` (the session pool, the worker's config and features). */
export function createActivities(deps: ActivityDeps): DurableMcpActivities {
  return {
    callMcpTool: measuredToolCall(callMcpToolActivity(deps)),
    listMcpTools: listMcpToolsActivity(deps),
    notifyPending: notifyPendingActivity(deps),
    oauthAuthorize: oauthAuthorizeActivity(deps),
    oauthExchange: oauthExchangeActivity(deps),
    requestLogin: requestLoginActivity(deps),
    watchMcpTask: watchMcpTaskActivity(deps),
    cancelMcpTask: cancelMcpTaskActivity(deps),
    checkAnswerProof: checkAnswerProofActivity(deps),
  };
}

/** @deprecated the same as DurableMcpActivities (contract/activities.ts). */
export type Activities = DurableMcpActivities;
