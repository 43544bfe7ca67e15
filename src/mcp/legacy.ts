/**
 * The legacy MCP era (≤ 2025-11-25) on the client side: the server sends `elicitation/create` on the live session
 * (answered by the session's handler, once the arrival check at the transport admitted it), and a URL it needs
 * opened first comes back from `tools/call` as the `-32042` URLElicitationRequired error.
 */
import { ProtocolError, type Client, type JSONRPCMessage, type RequestId, type Transport } from '@modelcontextprotocol/client';
import { admitElicitation, INVALID_PARAMS, type ElicitParams, type ElicitResult } from '../contract/index.js';

/** The JSON-RPC error code of URLElicitationRequiredError (MCP 2025-11-25). */
export const URL_ELICITATION_REQUIRED = -32042;

/** Handles one `elicitation/create`. `signal` aborts when the server gives up (notifications/cancelled). */
export type ElicitationHandler = (params: ElicitParams, signal: AbortSignal) => Promise<ElicitResult>;

/** MCP 2025-11-25 `-32042` URLElicitationRequiredError: URL elicitations to complete before the call is retried. */
export interface UrlRequiredRound {
  kind: 'url_required';
  elicitations: unknown[];
  message: string;
}

/** A `tools/call` error that is the `-32042` form, read; undefined for any other error. */
export function readUrlElicitationRequired(err: unknown): UrlRequiredRound | undefined {
  if (!(err instanceof ProtocolError) || err.code !== URL_ELICITATION_REQUIRED) return undefined;
  const data = err.data as { elicitations?: unknown } | undefined;
  return { kind: 'url_required', elicitations: Array.isArray(data?.elicitations) ? data.elicitations : [], message: err.message };
}

/** The URL elicitations of a `-32042` error as input requests: keys `url1`, `url2`, …, each in URL mode (not yet admitted). */
export function urlInputRequests(round: UrlRequiredRound): Array<{ key: string; kind: 'elicitation'; params: ElicitParams }> {
  return round.elicitations.map((e, i) => ({ key: `url${i + 1}`, kind: 'elicitation' as const, params: { ...(e as ElicitParams), mode: 'url' as const } }));
}

/**
 * Routes the session's `elicitation/create` requests to `handler()` (the handler of whoever leases the session),
 * with the params the arrival check admitted, as the server sent them. Register before `connect()`; call
 * `admitArrivals(transport)` after it.
 */
export function bridgeElicitations(client: Client, handler: () => ElicitationHandler | undefined): { admitArrivals(transport: Transport): void } {
  /** Admitted `elicitation/create` params, as the server sent them, by JSON-RPC id (taken by the handler). */
  const admitted = new Map<RequestId, ElicitParams>();
  client.setRequestHandler('elicitation/create', async (request, ctx) => {
    const params = admitted.get(ctx.mcpReq.id);
    admitted.delete(ctx.mcpReq.id);
    const current = handler();
    // No tool call owns the session: nobody can answer, so the honest answer is cancel.
    if (!current) return { action: 'cancel' };
    if (!params) throw new ProtocolError(INVALID_PARAMS, 'elicitation refused: its params were not seen by the arrival check');
    return (await current(params, ctx.mcpReq.signal)) as any;
  });
  // A server's `notifications/cancelled` for JSON-RPC id 0 (a session's first elicitation) was ignored by
  // the v1 SDK (a falsy check; this session carried a fix for it). SDK v2 checks `=== undefined` and aborts
  // the handler's signal for every id, id 0 included: a test holds it to that.
  return { admitArrivals: (transport) => admitArrivals(transport, admitted) };
}

/**
 * Issue #16: the arrival rules (contract/admit.ts) see each `elicitation/create` exactly as the server
 * sent it, and refuse what must not reach a person (too large, a schema durable-mcp cannot validate as
 * the server does or that no answer satisfies, an unsafe URL) with JSON-RPC -32602 and a one-line reason.
 *
 * Why at the transport: the SDK's `Protocol` checks a request against its schemas before any handler
 * sees it (v1 handed the handler the parsed copy, without the keywords it does not know: `pattern`,
 * `$ref`, `additionalProperties`, …; a schema it rejects got a -32603 dump of issues). So, once
 * `connect()` has set the Protocol's `transport.onmessage` (no server request can come before
 * initialization), it is wrapped: an `elicitation/create` is admitted here, its raw params kept for the
 * handler by JSON-RPC id, or it is answered with the refusal and never dispatched. Every other message
 * passes untouched. In the modern era the input requests of an `input_required` result go through
 * `admitElicitation` in the activity (and McpSource) before they become Requests.
 */
function admitArrivals(transport: Transport, admitted: Map<RequestId, ElicitParams>): void {
  const dispatch = transport.onmessage;
  if (!dispatch) return;
  transport.onmessage = (message: JSONRPCMessage, extra?: unknown) => {
    if ('method' in message && message.method === 'elicitation/create' && 'id' in message) {
      let admission: ReturnType<typeof admitElicitation>;
      try {
        admission = admitElicitation(message.params);
      } catch (err) {
        // The rules never throw on any JSON; should they, the request is refused, never dispatched unchecked.
        admission = { ok: false, code: INVALID_PARAMS, message: `elicitation refused: it could not be checked (${(err as Error)?.message})` };
      }
      if (!admission.ok) {
        void transport.send({ jsonrpc: '2.0', id: message.id, error: { code: INVALID_PARAMS, message: admission.message } }).catch(() => undefined);
        return;
      }
      admitted.set(message.id, admission.params);
      // Taken by the handler; one the SDK refused on its own never is: keep only a few.
      if (admitted.size > 64) admitted.delete(admitted.keys().next().value as RequestId);
    }
    (dispatch as (m: JSONRPCMessage, e?: unknown) => void)(message, extra);
  };
}
