/**
 * The workflow `mcpLogin`: the login of one server behind OAuth for one principal (DESIGN §7; docs/oauth.md), with a
 * fixed id (contract/login.ts), started by the first call that needs it (update-with-start of `loginWanted`), so any
 * number of calls waiting for one server make one login. It is the credential store: the token set, the refresh
 * token, the client registration and the PKCE verifier, sealed by an activity (src/mcp/auth/seal.ts) and held here
 * as an opaque string, inside payloads the codec encrypts. It runs one activity at a time (a rotating refresh token is
 * used once however many calls on however many workers find the token expired), and a sign-in is one `authorization`
 * Request on its elicitation host: pending, listed, notified and expiring like any other. Deterministic: workflow APIs
 * and the contract only.
 */
import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  log,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { createActivities } from '../../activities/index.js';
import { FailureTypes } from '../../contract/failures.js';
import type { Answer } from '../../contract/index.js';
import { loginWorkflowId, type LoginStatus } from '../../contract/login.js';
import { DEFAULT_EXPIRES_IN_MS, useElicitationHost } from '../host/index.js';
import { loginStatusQuery, logoutUpdate } from '../messages.js';
import {
  loginCredentialsQuery,
  loginSettledSignal,
  loginWantedUpdate,
  oauthCallbackUpdate,
  type LoginSettled,
  type LoginWantedInput,
  type LoginWantedResult,
  type OAuthCallbackInput,
  type OAuthCallbackResult,
} from '../internal-messages.js';

type Activities = ReturnType<typeof createActivities>;
type AuthorizeOutcome = Awaited<ReturnType<Activities['oauthAuthorize']>>;
type TokenInfo = Extract<AuthorizeOutcome, { kind: 'authorized' }>['info'];

/** Continue as new, while idle, past this many history events (a login lives as long as its server is used). */
export const LOGIN_MAX_HISTORY_EVENTS = 2_000;
/** The tool name a sign-in request is listed under (it belongs to no tool call). */
export const SIGN_IN_TOOL = '(sign-in)';

export interface McpLoginInput {
  server: string;
  principal: string;
  /** @internal carried across continue-as-new */
  continued?: LoginSnapshot;
}

interface LoginSnapshot {
  sealed?: string;
  generation: number;
  info?: TokenInfo;
  requests: number;
  waiters: string[];
}

interface Want {
  reason: LoginWantedInput['reason'];
  /** The newest token generation a call reported refused or expired: a token newer than it answers the want. */
  generation: number;
  scope?: string;
  resourceMetadataUrl?: string;
  expiresInMs?: number;
}

interface PendingSignIn {
  requestId: string;
  state: string;
  issuer?: string;
  scopes?: string;
  /** The last want, to ask again with when the code is refused. */
  want: Want;
}

const { oauthAuthorize, oauthExchange } = proxyActivities<Activities>({
  startToCloseTimeout: '60s',
  retry: {
    initialInterval: '1s',
    backoffCoefficient: 2,
    maximumInterval: '30s',
    maximumAttempts: 5,
    nonRetryableErrorTypes: [FailureTypes.AuthorizationFailed],
  },
});

/** What an activity's failure says (its cause's message: the ActivityFailure's own is "Activity task failed"). */
function failureMessage(err: unknown): string {
  const e = err as Error;
  return e.cause instanceof Error ? e.cause.message : e.message;
}

function unionScopes(a: string | undefined, b: string | undefined): string | undefined {
  const all = new Set([...(a ?? '').split(/\s+/), ...(b ?? '').split(/\s+/)].filter(Boolean));
  return all.size > 0 ? [...all].join(' ') : undefined;
}

export async function mcpLogin(input: McpLoginInput): Promise<void> {
  const { server, principal } = input;
  const loginId = loginWorkflowId(server, principal);
  const host = useElicitationHost();
  const c = input.continued;
  let sealed = c?.sealed;
  let generation = c?.generation ?? 0;
  let info: TokenInfo | undefined = c?.info;
  let requests = c?.requests ?? 0;
  const waiters = new Set<string>(c?.waiters ?? []);
  let want: Want | undefined;
  let pending: PendingSignIn | undefined;
  /** The authorization response that arrived for the pending sign-in (its state is spent). */
  let callback: OAuthCallbackInput | undefined;
  let callbackResult: OAuthCallbackResult | undefined;
  let busy = false;

  const settle = (s: Omit<LoginSettled, 'loginId'>): void => {
    for (const waiter of waiters) {
      getExternalWorkflowHandle(waiter)
        .signal(loginSettledSignal, { loginId, ...s })
        .catch((err) => log.warn('could not tell a waiting call that the login settled', { waiter, error: String(err) }));
    }
    waiters.clear();
  };
  const status = (): LoginStatus => ({
    server,
    principal,
    state: pending ? 'pending' : sealed && generation > 0 && info ? 'signed-in' : 'signed-out',
    ...(info?.issuer ? { issuer: info.issuer } : pending?.issuer ? { issuer: pending.issuer } : {}),
    ...(info?.scopes ? { scopes: info.scopes } : pending?.scopes ? { scopes: pending.scopes } : {}),
    ...(info?.expiresAtMs !== undefined ? { expiresAt: new Date(info.expiresAtMs).toISOString() } : {}),
    generation,
    refreshable: info?.refreshable === true,
    ...(pending ? { requestId: pending.requestId } : {}),
    waiting: waiters.size,
  });
  const withdraw = (how: 'cancelled'): void => {
    if (pending) host.resolve({ id: pending.requestId, ok: false, reason: how });
    pending = undefined;
  };

  // A person's "done" is no sign-in: the authorization server's redirect to the inbox's /oauth/callback is.
  host.answerGuard = (raw) => {
    const a = raw as Answer;
    if (!pending || a.id !== pending.requestId || a.ok !== true) return undefined;
    return {
      ok: false,
      type: 'InvalidAnswer',
      reason:
        `request "${a.id}" is a sign-in: it completes when the authorization server sends the browser back to the inbox's /oauth/callback` +
        ' (open the link and sign in); decline or cancel it to stop the calls that wait',
    };
  };

  setHandler(
    loginWantedUpdate,
    (w: LoginWantedInput): LoginWantedResult => {
      if (w.searchAttribute) host.enableSearchAttribute();
      if (w.notify) host.enableNotify();
      const expired = info?.expiresAtMs !== undefined && info.expiresAtMs <= Date.now();
      // Someone else's refresh or sign-in already replaced the token this call used: take that one.
      if (!pending && !busy && sealed && generation > w.generation && !expired) return { status: 'ready', generation };
      waiters.add(w.waiter);
      if (!pending) {
        const scope = unionScopes(want?.scope, w.scope);
        want = {
          generation: Math.max(w.generation, want?.generation ?? 0),
          reason: w.reason === 'insufficient-scope' || want?.reason === 'insufficient-scope' ? 'insufficient-scope' : w.reason,
          ...(scope ? { scope } : {}),
          ...((w.resourceMetadataUrl ?? want?.resourceMetadataUrl) ? { resourceMetadataUrl: w.resourceMetadataUrl ?? want?.resourceMetadataUrl } : {}),
          ...((w.expiresInMs ?? want?.expiresInMs) !== undefined ? { expiresInMs: w.expiresInMs ?? want?.expiresInMs } : {}),
        };
      }
      return { status: 'waiting' };
    },
    {
      validator: (w: LoginWantedInput) => {
        if (!w || typeof w.waiter !== 'string' || typeof w.generation !== 'number')
          throw new Error('loginWanted: input must be { waiter, generation, reason }');
        if (w.server !== server || w.principal !== principal) throw new Error(`loginWanted: this is the login of server "${server}" for "${principal}"`);
      },
    },
  );
  setHandler(loginCredentialsQuery, () => ({
    generation,
    ...(sealed ? { sealed } : {}),
    ...(info?.expiresAtMs !== undefined ? { expiresAtMs: info.expiresAtMs } : {}),
  }));
  setHandler(loginStatusQuery, status);
  setHandler(
    oauthCallbackUpdate,
    async (cb: OAuthCallbackInput) => {
      callback = cb;
      callbackResult = undefined;
      await condition(() => callbackResult !== undefined);
      return callbackResult!;
    },
    {
      // An unknown, spent or replayed state is refused here: a refused update leaves no trace in history.
      validator: (cb: OAuthCallbackInput) => {
        if (!cb || typeof cb.state !== 'string' || !pending || callback !== undefined || cb.state !== pending.state) {
          throw ApplicationFailure.nonRetryable('this sign-in link is unknown or was already used', FailureTypes.UnknownState);
        }
      },
    },
  );
  setHandler(logoutUpdate, () => {
    sealed = undefined;
    info = undefined;
    withdraw('cancelled');
    want = undefined;
    settle({
      failure: { type: FailureTypes.AuthorizationRequired, message: `server "${server}": signed out (durable-mcp auth logout) while the call waited` },
    });
    return status();
  });

  const idle = () => !busy && !want && !pending && callback === undefined;
  const nearLimits = () => workflowInfo().continueAsNewSuggested || workflowInfo().historyLength >= LOGIN_MAX_HISTORY_EVENTS;
  for (;;) {
    // Each wake-up has its branch below, so the loop never spins (a want while a sign-in is pending is that sign-in's).
    await condition(
      () =>
        (want !== undefined && !pending) ||
        (callback !== undefined && pending !== undefined) ||
        (pending !== undefined && host.requests.isResolved(pending.requestId) && callback === undefined) ||
        (idle() && nearLimits()),
    );
    if (pending && host.requests.isResolved(pending.requestId) && callback === undefined) {
      // Declined, cancelled or expired: the calls waiting for it fail.
      const answer = host.requests.answerFor(pending.requestId);
      const how = answer?.reason === 'expired' ? 'expired' : answer?.reason === 'declined' ? 'declined' : 'cancelled';
      const where = pending.issuer ? ` at ${pending.issuer}` : '';
      pending = undefined;
      settle({ failure: { type: FailureTypes.AuthorizationRequired, message: `server "${server}": the sign-in${where} for "${principal}" was ${how}` } });
      continue;
    }
    if (callback !== undefined && pending) {
      const cb = callback;
      const signIn = pending;
      busy = true;
      let result: OAuthCallbackResult;
      try {
        if (cb.error !== undefined || cb.sealedCode === undefined) {
          result = { status: 'failed', message: `the authorization server refused the sign-in (${cb.error ?? 'no code'})` };
          withdraw('cancelled');
          settle({
            failure: {
              type: FailureTypes.AuthorizationRequired,
              message: `server "${server}": the authorization server refused the sign-in (${cb.error ?? 'no code'})`,
            },
          });
        } else {
          const r = await oauthExchange({ loginId, server, principal, sealed, sealedCode: cb.sealedCode, ...(cb.iss !== undefined ? { iss: cb.iss } : {}) });
          sealed = r.sealed;
          if (r.kind === 'authorized') {
            info = r.info;
            generation++;
            host.resolve({ id: signIn.requestId, ok: true }, { answered: true });
            pending = undefined;
            result = { status: 'signed-in', message: `signed in to server "${server}"` };
            settle({ generation });
          } else {
            withdraw('cancelled');
            want = signIn.want;
            result = { status: 'asked-again', message: `${r.reason}: a new sign-in request is pending` };
          }
        }
      } catch (err) {
        withdraw('cancelled');
        // The activity's reason (an iss mismatch, say), not "Activity task failed".
        const message = failureMessage(err);
        result = { status: 'failed', message };
        settle({ failure: { type: FailureTypes.AuthorizationFailed, message } });
      } finally {
        busy = false;
      }
      callback = undefined;
      callbackResult = result;
      continue;
    }
    if (want !== undefined && !pending) {
      const w = want;
      want = undefined;
      // The calls that asked while another refresh ran were told of its token already (settle): no second refresh.
      const expired = info?.expiresAtMs !== undefined && info.expiresAtMs <= Date.now();
      if (w.reason !== 'insufficient-scope' && sealed && info && generation > w.generation && !expired) continue;
      busy = true;
      try {
        const r = await oauthAuthorize({
          loginId,
          server,
          principal,
          ...(sealed ? { sealed } : {}),
          ...(w.scope ? { scope: w.scope } : {}),
          ...(w.reason === 'insufficient-scope' ? { forceReauthorization: true } : {}),
          ...(w.reason === 'rejected' ? { rediscover: true } : {}),
          ...(w.resourceMetadataUrl ? { resourceMetadataUrl: w.resourceMetadataUrl } : {}),
        });
        sealed = r.sealed;
        if (r.kind === 'authorized') {
          info = r.info;
          generation++;
          settle({ generation });
        } else {
          info = undefined;
          requests++;
          const requestId = `sign-in-${requests}`;
          const call = host.requests.newCall(
            {
              server,
              tool: SIGN_IN_TOOL,
              expiresInMs: w.expiresInMs ?? DEFAULT_EXPIRES_IN_MS,
              holdForMs: 0,
              login: { principal, ...(r.issuer ? { issuer: r.issuer } : {}), ...(r.scopes ? { scopes: r.scopes } : {}) },
            },
            `login-${requests}`,
          );
          const whose = principal === 'shared' ? '' : ` as "${principal}"`;
          const prompt =
            `Sign in to MCP server "${server}"${whose}` +
            `${r.issuer ? ` at ${r.issuer}` : ''}${r.scopes ? ` (scopes: ${r.scopes})` : ''}` +
            `${r.refreshRejected ? ': the saved sign-in was refused' : ''}`;
          host.register({ id: requestId, kind: 'authorization', prompt, url: r.url }, call.callId);
          // The calls that asked meanwhile wait for this same sign-in.
          want = undefined;
          pending = { requestId, state: r.state, ...(r.issuer ? { issuer: r.issuer } : {}), ...(r.scopes ? { scopes: r.scopes } : {}), want: w };
        }
      } catch (err) {
        const type = err instanceof ApplicationFailure && err.type ? err.type : FailureTypes.AuthorizationFailed;
        settle({ failure: { type: type === FailureTypes.AuthorizationFailed ? type : FailureTypes.AuthorizationFailed, message: failureMessage(err) } });
      } finally {
        busy = false;
      }
      continue;
    }
    if (idle() && nearLimits()) {
      host.answerWatchersNow();
      await condition(allHandlersFinished);
      if (!idle()) {
        host.letWatchersWait();
        continue;
      }
      await continueAsNew<typeof mcpLogin>({
        server,
        principal,
        continued: { ...(sealed ? { sealed } : {}), generation, ...(info ? { info } : {}), requests, waiters: [...waiters] },
      });
    }
  }
}
