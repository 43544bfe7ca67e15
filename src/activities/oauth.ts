/**
 * The activities of a login (servers behind OAuth; docs/oauth.md), and what a call's activity asks of it:
 * - `oauthAuthorize` and `oauthExchange`, run by the login workflow one at a time: open the sealed secrets, run the
 *   SDK's `auth()` (src/mcp/auth/flow.ts), seal them again. The login holds only the sealed string.
 * - `requestLogin`, run by a call's workflow when its activity ended `login_required`: update-with-start of the
 *   login's `loginWanted` (one login per credential set, however many calls ask).
 * - `loginToken`, used inside `callMcpTool`: the access token of the login, from this worker's cache or the login's
 *   `loginCredentials` query.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import { WithStartWorkflowOperation, WorkflowNotFoundError } from '@temporalio/client';
import { FailureTypes } from '../contract/failures.js';
import { loginWorkflowId, SHARED_PRINCIPAL, type LoginWanted } from '../contract/login.js';
import {
  authorizeLogin,
  exchangeLoginCode,
  isMcpSourceError,
  isRetryable,
  McpSourceErrorCodes,
  resourceMetadataProblem,
  type AccessToken,
  type HttpServerConfig,
  type LoginRequired,
  type LoginSecrets,
  type LoginTarget,
  type OAuthConfig,
  type ServerConfig,
} from '../mcp/index.js';
import { clientOf, workerFeatures, type ActivityDeps, type LoginDeps } from './deps.js';
import { loginSlots } from './update-slots.js';
import type {
  CallMcpToolLoginRequired,
  LoginCredentials,
  LoginWantedResult,
  OAuthAuthorizeInput,
  OAuthAuthorizeOutcome,
  OAuthExchangeInput,
  OAuthExchangeOutcome,
  RequestLoginInput,
} from '../contract/activities.js';

type OAuthServer = HttpServerConfig & { auth: OAuthConfig };

/** The server's config if it is behind OAuth; undefined for any other server. */
export function oauthServer(server: ServerConfig): OAuthServer | undefined {
  return server.transport === 'http' && server.auth ? (server as OAuthServer) : undefined;
}

/** The principal of a call's login: `shared`, or the call's own (`auth: { principal }`) for a `per-call` server. */
export function callPrincipal(server: OAuthServer, principal: string | undefined): string {
  if (server.auth.principal === 'shared') return SHARED_PRINCIPAL;
  if (principal === undefined) {
    throw ApplicationFailure.nonRetryable(
      `server "${server.name}" signs in per call ("auth": { "principal": "per-call" }): the call must name its principal (auth.principal)`,
      FailureTypes.InvalidInput,
    );
  }
  return principal;
}

/** A call's login (a server behind OAuth), as its activity found it: whose, the token generation it saw, what was granted. */
export interface CallLogin {
  loginId: string;
  principal: string;
  generation: number;
  scopes?: string;
}

/**
 * The login of a call (or a listing) to a server behind OAuth: its principal, its id, and the token it has (read into
 * this worker's cache, which the session's transport sends). `expired`: the login's token expired (a refresh needs no
 * challenge: the call asks the login at once).
 */
export async function callLogin(
  deps: ActivityDeps,
  ctx: Context,
  server: OAuthServer,
  principal: string | undefined,
): Promise<{ login: CallLogin; expired: boolean }> {
  const who = callPrincipal(server, principal);
  const loginId = loginWorkflowId(server.name, who);
  const t = await loginToken(deps, ctx, loginId);
  return {
    login: { loginId, principal: who, generation: t.generation, ...(t.token?.scopes ? { scopes: t.token.scopes } : {}) },
    expired: !t.token && t.expired,
  };
}

/** The lease of a session for a call's login: a per-call principal has sessions of its own (never shared). */
export function loginLease(login: CallLogin | undefined): { principal?: string } {
  return login && login.principal !== SHARED_PRINCIPAL ? { principal: login.principal } : {};
}

/**
 * The login a call wants when its server needs a (new) token (the `login` of a `login_required` outcome): a refused
 * token is dropped from this worker's cache first.
 */
export function loginWanted(
  deps: ActivityDeps,
  login: CallLogin,
  server: string,
  needed: Pick<LoginRequired, 'reason' | 'generation' | 'challenge'>,
): LoginWanted & { loginId: string } {
  // Step-up once per scope set: a 403 insufficient_scope naming only scopes the token was granted asks for nothing
  // a new sign-in could add (the server refuses what it asked for), so the call fails instead of asking again.
  const granted = new Set((login.scopes ?? '').split(/\s+/).filter(Boolean));
  const challenged = (needed.challenge.scope ?? '').split(/\s+/).filter(Boolean);
  if (needed.reason === 'insufficient-scope' && granted.size > 0 && challenged.length > 0 && challenged.every((s) => granted.has(s))) {
    throw ApplicationFailure.nonRetryable(
      `server "${server}" answered 403 insufficient_scope for scopes "${challenged.join(' ')}", which its token was granted` +
        ` ("${[...granted].join(' ')}"): a new sign-in cannot give more, so the call is not asked again`,
      FailureTypes.AuthorizationFailed,
    );
  }
  // Protected-resource metadata only from the server's own origin (or its config's): the call fails before anything is fetched.
  const metadataUrl = needed.challenge.resourceMetadataUrl;
  const config = metadataUrl !== undefined ? oauthServer(deps.pool.serverConfig(server)) : undefined;
  const refused = config && metadataUrl !== undefined ? resourceMetadataProblem(config, metadataUrl) : undefined;
  if (refused) throw ApplicationFailure.nonRetryable(refused, FailureTypes.AuthorizationFailed);
  if (needed.reason !== 'no-token') deps.logins?.tokens.drop(login.loginId, needed.generation);
  return {
    loginId: login.loginId,
    server,
    principal: login.principal,
    // No token was sent (a 401 to none): the login's generation the call saw, so a newer sign-in is taken as it is.
    generation: needed.reason === 'no-token' ? Math.max(needed.generation, login.generation) : needed.generation,
    reason: needed.reason,
    // Step-up (403 insufficient_scope): what was granted and what the challenge names, so nothing granted is lost.
    ...(needed.challenge.scope
      ? {
          scope:
            needed.reason === 'insufficient-scope'
              ? [...new Set(`${login.scopes ?? ''} ${needed.challenge.scope}`.split(/\s+/).filter(Boolean))].join(' ')
              : needed.challenge.scope,
        }
      : {}),
    ...(needed.challenge.resourceMetadataUrl ? { resourceMetadataUrl: needed.challenge.resourceMetadataUrl } : {}),
  };
}

/** The `login_required` outcome of a call's (or a listing's) activity: the login it wants (`loginWanted`) and the worker's flags. */
export function loginRequiredOutcome(
  deps: ActivityDeps,
  login: CallLogin,
  server: string,
  needed: Pick<LoginRequired, 'reason' | 'generation' | 'challenge'>,
): CallMcpToolLoginRequired {
  return { status: 'login_required', login: loginWanted(deps, login, server, needed), ...workerFeatures(deps) };
}

function loginDeps(deps: ActivityDeps): LoginDeps {
  if (!deps.logins) {
    throw ApplicationFailure.nonRetryable(
      'this worker has no OAuth credential seal: it runs servers behind OAuth only with DURABLE_MCP_ENCRYPTION_KEYS (or in dev)',
      FailureTypes.AuthorizationFailed,
    );
  }
  return deps.logins;
}

function target(deps: ActivityDeps, name: string, loginId: string): { target: LoginTarget; logins: LoginDeps } {
  const logins = loginDeps(deps);
  const server = oauthServer(deps.pool.serverConfig(name));
  if (!server) throw ApplicationFailure.nonRetryable(`server "${name}" has no "auth" in this worker's MCP config`, FailureTypes.McpConfigInvalid);
  const clientMetadataUrl = logins.clientMetadataUrl?.(server);
  return {
    logins,
    target: {
      server,
      loginId,
      redirectUrl: logins.redirectUrl(server),
      ...(clientMetadataUrl ? { clientMetadataUrl } : {}),
      ...(logins.fetchFn ? { fetchFn: logins.fetchFn } : {}),
      ...(logins.issueState ? { issueState: logins.issueState } : {}),
    },
  };
}

function asFailure(err: unknown): never {
  if (isMcpSourceError(err, McpSourceErrorCodes.AuthorizationFailed)) {
    throw isRetryable(err) ? ApplicationFailure.retryable(err.message, err.code) : ApplicationFailure.nonRetryable(err.message, err.code);
  }
  throw err;
}

function open(logins: LoginDeps, sealed: string | undefined): LoginSecrets {
  if (sealed === undefined) return {};
  try {
    return logins.seal.unseal<LoginSecrets>(sealed);
  } catch (err) {
    throw ApplicationFailure.retryable((err as Error).message, FailureTypes.AuthorizationFailed);
  }
}

/** A step of a login's flow (the SDK's `auth()`), and the secrets it ends with sealed again; an OAuth error is its failure. */
async function sealedStep<R extends { secrets: LoginSecrets }>(logins: LoginDeps, step: () => Promise<R>): Promise<{ r: R; sealed: string }> {
  try {
    const r = await step();
    return { r, sealed: logins.seal.seal(r.secrets) };
  } catch (err) {
    asFailure(err);
  }
}

export function oauthAuthorizeActivity(deps: ActivityDeps) {
  return async function oauthAuthorize(input: OAuthAuthorizeInput): Promise<OAuthAuthorizeOutcome> {
    const { target: t, logins } = target(deps, input.server, input.loginId);
    const secrets = open(logins, input.sealed);
    const { r, sealed } = await sealedStep(logins, () =>
      authorizeLogin(t, secrets, {
        ...(input.scope ? { scope: input.scope } : {}),
        ...(input.forceReauthorization ? { forceReauthorization: true } : {}),
        ...(input.rediscover ? { rediscover: true } : {}),
        ...(input.resourceMetadataUrl ? { resourceMetadataUrl: input.resourceMetadataUrl } : {}),
      }),
    );
    if (r.kind === 'authorized') return { kind: 'authorized', sealed, info: r.info };
    const { secrets: _s, kind: _k, ...rest } = r;
    return { kind: 'redirect', sealed, ...rest };
  };
}

export function oauthExchangeActivity(deps: ActivityDeps) {
  return async function oauthExchange(input: OAuthExchangeInput): Promise<OAuthExchangeOutcome> {
    const { target: t, logins } = target(deps, input.server, input.loginId);
    const secrets = open(logins, input.sealed);
    let code: string;
    try {
      code = logins.seal.unseal<{ code: string }>(input.sealedCode).code;
    } catch (err) {
      throw ApplicationFailure.nonRetryable(`the authorization response does not open: ${(err as Error).message}`, FailureTypes.AuthorizationFailed);
    }
    const { r, sealed } = await sealedStep(logins, () => exchangeLoginCode(t, secrets, { code, ...(input.iss !== undefined ? { iss: input.iss } : {}) }));
    return r.kind === 'authorized' ? { kind: 'authorized', sealed, info: r.info } : { kind: 'rejected', sealed, reason: r.reason };
  };
}

export function requestLoginActivity(deps: ActivityDeps) {
  return async function requestLogin(input: RequestLoginInput): Promise<LoginWantedResult> {
    const ctx = Context.current();
    const client = clientOf(deps, ctx);
    const { loginId, ...wanted } = input;
    const start = new WithStartWorkflowOperation('mcpLogin', {
      workflowId: loginId,
      taskQueue: ctx.info.taskQueue,
      args: [{ server: input.server, principal: input.principal }],
      workflowIdConflictPolicy: 'USE_EXISTING',
    });
    // A few at a time per login (./update-slots.ts): 30 calls at once would pass Temporal's limit on updates in flight.
    const free = await loginSlots.acquire(loginId, undefined, ctx.cancellationSignal);
    // Cancelled meanwhile: the signal's reason is the activity's CancelledFailure.
    if (!free) throw ctx.cancellationSignal.reason;
    try {
      // A retried attempt of this activity sends the same update id: the login registers the call once.
      return await client.workflow.executeUpdateWithStart('durable-mcp.loginWanted', {
        args: [wanted],
        updateId: `${ctx.info.workflowExecution?.workflowId ?? input.waiter}/${ctx.info.workflowExecution?.runId ?? ''}/${ctx.info.activityId}`,
        startWorkflowOperation: start,
      });
    } finally {
      free();
    }
  };
}

/**
 * The access token of a call's login: this worker's cached one while it has not expired, else the login's (its
 * `loginCredentials` query, opened here). Undefined when the login has none (or does not exist yet); `generation`
 * then says which token the call had, for the login to replace.
 */
export async function loginToken(deps: ActivityDeps, ctx: Context, loginId: string): Promise<{ token?: AccessToken; generation: number; expired: boolean }> {
  const logins = loginDeps(deps);
  const cached = logins.tokens.get(loginId);
  if (cached) return { token: cached, generation: cached.generation, expired: false };
  let creds: LoginCredentials;
  try {
    creds = await clientOf(deps, ctx).workflow.getHandle(loginId).query<LoginCredentials>('durable-mcp.loginCredentials');
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return { generation: logins.tokens.latest(loginId)?.generation ?? 0, expired: false };
    throw ApplicationFailure.retryable(`cannot read the login "${loginId}": ${(err as Error).message}`, FailureTypes.ToolCallFailed);
  }
  if (!creds.sealed || creds.generation === 0) return { generation: creds.generation, expired: false };
  const secrets = open(logins, creds.sealed);
  const access = secrets.tokens?.access_token;
  if (!access) return { generation: creds.generation, expired: false };
  const token: AccessToken = {
    accessToken: access,
    ...(secrets.tokens?.token_type ? { tokenType: secrets.tokens.token_type } : {}),
    generation: creds.generation,
    ...(creds.expiresAtMs !== undefined ? { expiresAtMs: creds.expiresAtMs } : {}),
    ...(secrets.tokens?.scope ? { scopes: secrets.tokens.scope } : {}),
  };
  logins.tokens.set(loginId, token);
  if (logins.tokens.expired(token)) return { generation: token.generation, expired: true };
  return { token, generation: token.generation, expired: false };
}

export { loginWorkflowId };
