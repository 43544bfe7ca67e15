/**
 * The `notifyPending` activity: tells the configured webhook (the `notify` key of the worker's config) of a new
 * pending request, as a durable-mcp JSON body or a Slack message.
 */
import { ApplicationFailure, CancelledFailure, Context } from '@temporalio/activity';
import { ANSWER_LINK_PATH, linkTargets, signAnswerLink } from '../codec/answer-link.js';
import { assigneesLine, sameCase } from '../contract/assignees.js';
import { callerLine } from '../contract/nexus.js';
import { FailureTypes } from '../contract/index.js';
import { expandEnv, type NotifyConfig } from '../mcp/index.js';
import type { AssigneeWebhook } from '../mcp/notify-config.js';
import type { NotifyTarget } from '../contract/activities.js';
import type { PendingRequest } from '../contract/requests.js';
import { answerLinkKey, MIN_ANSWER_LINK_KEY_LENGTH, type ActivityDeps } from './deps.js';

/** Longest wait for the webhook's answer, per attempt. */
export const NOTIFY_TIMEOUT_MS = 10_000;

/** The first line of a Slack message, by what it tells. */
const SLACK_HEADING = { pending: 'input requested', reminder: 'reminder: input still requested', escalation: 'escalated: input still requested' } as const;

/** Slack's mrkdwn: &, < and > are escaped, so untrusted text cannot make links or mentions. */
const slackText = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * The body a webhook receives for one new pending request. It names the request (workflow id, request id, kind,
 * server/tool, expiry, the inbox link) and never carries an answer or a `requestState`; the prompt (the request's
 * message, its `data` with the `requestedSchema`, and the URL-mode link) only with `includePrompt: true`, since a
 * webhook's receiver (a chat channel, a ticket system) is rarely as private as the encrypted history.
 */
export function notificationBody(input: PendingRequest & NotifyTarget, notify: NotifyConfig, linkKey?: string, to?: string): Record<string, unknown> {
  const inboxUrl = notify.inboxUrl;
  const withPrompt = notify.includePrompt === true;
  const { request, context } = input;
  // An answer link goes only to its own assignee's channel (`to`); the shared webhook carries none (docs/people.md).
  const links = inboxUrl && linkKey && to !== undefined ? answerLinks(input, inboxUrl, linkKey, to) : [];
  if (notify.format === 'slack') {
    const where = `${context.server}/${context.tool}${context.step !== undefined ? ` (step ${context.step})` : ''}`;
    const lines = [
      `*durable-mcp: ${SLACK_HEADING[input.event ?? 'pending']}* by ${slackText(where)} in workflow \`${slackText(input.workflowId)}\``,
      ...(input.event === 'escalation' && context.escalated ? [`escalated to ${slackText(assigneesLine(context.escalated))}`] : []),
      ...(context.caller ? [`asked by ${slackText(callerLine(context.caller))} through Nexus`] : []),
      ...(withPrompt
        ? [`> ${slackText(request.prompt)}`, ...(request.url ? [`link: \`${slackText(request.url)}\``] : [])]
        : [`request \`${slackText(request.id)}\` (${slackText(request.kind)})`]),
      ...(request.expiresAt ? [`expires ${slackText(request.expiresAt)}`] : []),
      ...(inboxUrl ? [`answer it in the inbox: ${slackText(inboxUrl)}`] : [`answer it: durable-mcp pending ${slackText(input.workflowId)}`]),
      // The links are the inbox's own URL and a base64url token: nothing in them needs escaping but the label.
      ...links.map((l) => `<${l.url}|answer${l.to === '*' ? '' : ` as ${slackText(l.to)}`}>`),
    ];
    return { text: lines.join('\n') };
  }
  return {
    type: `durable-mcp.request.${input.event === 'reminder' ? 'reminder' : input.event === 'escalation' ? 'escalated' : 'pending'}`,
    workflowId: input.workflowId,
    request: withPrompt ? request : { id: request.id, kind: request.kind, ...(request.expiresAt !== undefined ? { expiresAt: request.expiresAt } : {}) },
    context,
    ...(inboxUrl ? { inboxUrl } : {}),
    ...(links.length > 0 ? { links } : {}),
  };
}

/**
 * One signed answer link per assignee of the request (src/codec/answer-link.ts), expiring with it; each goes only to its
 * assignee's own channel (`notify.assigneeWebhooks`). None for a request that needs several people (N of M): a link
 * cannot tell who holds it, so whoever reads it could answer as each assignee; those are answered signed in
 * (docs/people.md). `only`: that assignee's link alone (a channel's body signs just its own).
 */
export function answerLinks(input: PendingRequest & NotifyTarget, inboxUrl: string, key: string, only?: string): Array<{ to: string; url: string }> {
  if ((input.context.approvals?.required ?? 1) > 1) return [];
  const exp = input.request.expiresAt ? Date.parse(input.request.expiresAt) : Date.now() + 24 * 60 * 60_000;
  const base = new URL(ANSWER_LINK_PATH.slice(1), inboxUrl.endsWith('/') ? inboxUrl : `${inboxUrl}/`).href;
  const targets = linkTargets(input.context.assignees).filter((to) => only === undefined || to === only);
  return targets.map((to) => ({
    to,
    url: `${base}${signAnswerLink(key, { workflowId: input.workflowId, run: input.runId ?? '', requestId: input.request.id, to, exp })}`,
  }));
}

/**
 * Tell the configured webhook of a new pending request. A non-2xx answer or no answer in time fails the
 * attempt (retried with backoff by the workflow's retry policy). A worker without `notify` sends nothing.
 */
export function notifyPendingActivity(deps: ActivityDeps) {
  return async function notifyPending(input: PendingRequest & NotifyTarget): Promise<{ sent: boolean; status?: number }> {
    const notify = deps.notify;
    if (!notify) return { sent: false };
    const ctx = Context.current();
    const idempotencyKey = `${input.workflowId}/${input.request.id}${input.event ? `/${input.event}` : ''}`;
    const headers = postHeaders(idempotencyKey, notify.headers, 'headers');
    // Links are signed with `notify.linkKey` only (not $DURABLE_MCP_ANSWER_LINK_KEY): a bad one fails the attempt, retried.
    const link = answerLinkKey(notify);
    if (link.status === 'unset') throw ApplicationFailure.retryable(link.error.message, link.error.name);
    if (link.status === 'short') {
      const problem = `field "${link.field}" must be at least ${MIN_ANSWER_LINK_KEY_LENGTH} characters (a random secret the inbox shares)`;
      throw ApplicationFailure.retryable(problem, FailureTypes.NotifyFailed);
    }
    const linkKey = link.status === 'key' ? link.key : undefined;
    const status = await post(ctx, notify.url, headers, notificationBody(input, notify, linkKey));
    // Each assignee's link to that assignee's own channel, when the config names one (and links are made at all).
    const own = notify.assigneeWebhooks ?? {};
    const links = notify.inboxUrl && linkKey ? answerLinks(input, notify.inboxUrl, linkKey) : [];
    for (const { to } of links) {
      const channel = channelOf(own, to);
      if (!channel) continue;
      const theirs = postHeaders(`${idempotencyKey}/${to}`, channel.headers, `assigneeWebhooks.${to}.headers`);
      await post(ctx, channel.url, theirs, notificationBody(input, { ...notify, ...(channel.format ? { format: channel.format } : {}) }, linkKey, to));
    }
    return { sent: true, status };
  };
}

/** A config value with its `${VAR}`s expanded; an unset variable fails the attempt (retried: it may be set later). */
function expanded(value: string, field: string): string {
  try {
    return expandEnv(value, { server: 'notify', field });
  } catch (err) {
    throw ApplicationFailure.retryable((err as Error).message, (err as Error).name);
  }
}

/** The headers of one POST: JSON, its idempotency key, and a channel's own headers (expanded, names in lower case). */
function postHeaders(idempotencyKey: string, own: Record<string, string> | undefined, field: string): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'idempotency-key': idempotencyKey };
  for (const [k, v] of Object.entries(own ?? {})) headers[k.toLowerCase()] = expanded(v, `${field}.${k}`);
  return headers;
}

/** The channel of assignee `to` (a user compared without ASCII case, a role, or `*`). */
function channelOf(own: Record<string, AssigneeWebhook>, to: string): AssigneeWebhook | undefined {
  if (own[to]) return own[to];
  const key = Object.keys(own).find((k) => !k.startsWith('role:') && k !== '*' && sameCase(k) === sameCase(to));
  return key ? own[key] : undefined;
}

/** One POST to a webhook; a non-2xx answer or none in time fails the attempt (retried by the workflow's policy). */
async function post(ctx: Context, url: string, headers: Record<string, string>, body: Record<string, unknown>): Promise<number> {
  let status: number;
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
      signal: AbortSignal.any([ctx.cancellationSignal, AbortSignal.timeout(NOTIFY_TIMEOUT_MS)]),
      redirect: 'error',
    });
    status = res.status;
    await res.body?.cancel().catch(() => undefined);
  } catch (err) {
    if (ctx.cancellationSignal.aborted) throw new CancelledFailure('notification cancelled');
    const e = err as Error & { cause?: { code?: string } };
    throw ApplicationFailure.retryable(
      `webhook ${new URL(url).origin}: ${e.name === 'TimeoutError' ? `no answer within ${NOTIFY_TIMEOUT_MS} ms` : (e.cause?.code ?? e.message)}`,
      FailureTypes.NotifyFailed,
    );
  }
  if (status < 200 || status >= 300) throw ApplicationFailure.retryable(`webhook ${new URL(url).origin} answered HTTP ${status}`, FailureTypes.NotifyFailed);
  return status;
}
