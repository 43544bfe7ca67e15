/**
 * The modern MCP era (2026-07-28) on the client side: `server/discover` (its verdict lets a later connect to the
 * same server skip the probe) and `input_required` rounds. Auto-fulfilment is off: a round's input requests go
 * back to the caller (the workflow asks the human durably), which sends the next round with the answers and the
 * round's `requestState`, echoed byte for byte.
 */
import {
  PROTOCOL_VERSION_META_KEY,
  ProtocolError,
  SdkError,
  SdkErrorCode,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type Client,
  type PriorDiscovery,
  type RequestId,
  type Transport,
} from '@modelcontextprotocol/client';
import { McpSourceError, McpSourceErrorCodes } from './errors.js';
import { interceptMessages } from './transports.js';

/** The first protocol revision of the modern era; revisions are ISO dates, so later ones compare greater. */
export const MODERN_PROTOCOL_VERSION = '2026-07-28';

/** A round of a modern-era (MRTR) call: the answers to the previous round's requests and its state, echoed. */
export interface RoundInput {
  inputResponses?: Record<string, unknown>;
  /** Opaque; echoed byte for byte, never parsed or logged. */
  requestState?: string;
}

/** MCP 2026-07-28 `input_required`: the raw input requests (key → `{ method, params }`) and the opaque state. */
export interface InputRequiredRound {
  kind: 'input_required';
  inputRequests: Record<string, unknown>;
  requestState?: string;
}

/** The client options of the era: the SDK hands `input_required` back instead of answering it itself. */
export const MODERN_CLIENT_OPTIONS = { inputRequired: { autoFulfill: false } } as const;

/** The `tools/call` request options of the era: an `input_required` result is a result, not an error. */
export const MODERN_REQUEST_OPTIONS = { allowInputRequired: true } as const;

/** The era this client negotiated, to hand to the next connect to the same server (`ConnectOptions.prior`). */
export function discoveryVerdict(client: Client): PriorDiscovery {
  const discover = client.getDiscoverResult();
  return client.getProtocolEra() === 'modern' && discover ? { kind: 'modern', discover } : { kind: 'legacy' };
}

/** The `tools/call` params of a round: the previous round's answers and its state, as given (absent on a first round). */
export function withRound(params: Record<string, unknown>, round: RoundInput): Record<string, unknown> {
  if (round.inputResponses !== undefined) params.inputResponses = round.inputResponses;
  if (round.requestState !== undefined) params.requestState = round.requestState;
  return params;
}

/** A `tools/call` result that is `input_required`, read; undefined for a complete result. */
export function readInputRequired(raw: unknown): InputRequiredRound | undefined {
  const r = raw as { resultType?: unknown; inputRequests?: unknown; requestState?: unknown };
  if (!r || r.resultType !== 'input_required') return undefined;
  const isRecord = r.inputRequests && typeof r.inputRequests === 'object' && !Array.isArray(r.inputRequests);
  const inputRequests = isRecord ? (r.inputRequests as Record<string, unknown>) : {};
  return { kind: 'input_required', inputRequests, ...(typeof r.requestState === 'string' ? { requestState: r.requestState } : {}) };
}

/** The round after `round`: its answers (key → ElicitResult; none when it asked nothing) and its state, echoed. */
export function nextRound(round: InputRequiredRound, inputResponses: Record<string, unknown> | undefined): RoundInput {
  return { ...(inputResponses !== undefined ? { inputResponses } : {}), ...(round.requestState !== undefined ? { requestState: round.requestState } : {}) };
}

/**
 * "Client MUST assume resultType complete when not specified" (MCP 2026-07-28, SEP-2322; the conformance scenario
 * `sep-2322-client-request-state` checks it). The SDK v2 (`@modelcontextprotocol/client` 2.4, its rev2026 codec's
 * `decodeResult`) instead rejects such a result: "missing required resultType — servers implementing protocol
 * revision 2026-07-28 MUST include it" (the server's MUST is real, but the client's MUST is to assume `complete`).
 * This differs from the spec's conformance suite; reproduction and report: scripts/upstream/missing-result-type.ts.
 *
 * So, at the transport, before the SDK decodes it: the result of a request this client sent with a modern-era
 * envelope (`_meta` names a 2026-07-28+ protocol version) gets `resultType: "complete"` when it has none. Only
 * then: a legacy-era result never carries the field, and the SDK bridges it itself. Everything else passes as sent.
 * Installed before `connect()`, after ./jsonrpc-ids.ts (so it sees the SDK's own ids).
 */
export function assumeCompleteWhenUnspecified(transport: Transport): void {
  /** JSON-RPC ids of the modern-era requests in flight (bounded: an id whose response never came is dropped first). */
  const modern = new Set<RequestId>();
  interceptMessages(transport, {
    outgoing: (message) => {
      if (isJSONRPCRequest(message)) {
        const version = (message.params?._meta as Record<string, unknown> | undefined)?.[PROTOCOL_VERSION_META_KEY];
        if (typeof version === 'string' && version >= MODERN_PROTOCOL_VERSION) {
          modern.add(message.id);
          if (modern.size > 1024) modern.delete(modern.values().next().value as RequestId);
        }
      }
      return message;
    },
    incoming: (message) => {
      if (!isJSONRPCResultResponse(message) || !modern.delete(message.id)) return message;
      const result = message.result as Record<string, unknown>;
      if (result && typeof result === 'object' && !Array.isArray(result) && result.resultType === undefined) result.resultType = 'complete';
      return message;
    },
  });
}

/**
 * A result the SDK could not accept (not an object, no or an unknown `resultType`, failing the era's result schema,
 * `input_required` with neither requests nor state) as an McpSourceError (ProtocolViolation) naming the server and the tool;
 * undefined for any other error. The same request would get the same answer: retrying cannot help.
 */
export function protocolViolation(err: unknown, server: string, tool: string): McpSourceError | undefined {
  if (!(err instanceof SdkError)) return undefined;
  if (err.code !== SdkErrorCode.InvalidResult && err.code !== SdkErrorCode.UnsupportedResultType) return undefined;
  return new McpSourceError(
    McpSourceErrorCodes.ProtocolViolation,
    `server "${server}": tool "${tool}" answered with a result MCP does not allow: ${err.message.replace(/\s+/g, ' ')}`,
    { server, tool },
  );
}

/**
 * The requests a server sends its client in the legacy era (MCP ≤ 2025-11-25), on the live session. The 2026-07-28
 * era has no channel for any of them: a server's SDK refuses to send one while serving a request of that era.
 */
export const SERVER_TO_CLIENT_METHODS = ['elicitation/create', 'sampling/createMessage', 'roots/list'] as const;

/** The server-to-client method `text` names, if it names one. */
export function serverToClientMethodIn(text: string): string | undefined {
  return SERVER_TO_CLIENT_METHODS.find((m) => text.includes(m));
}

/**
 * A `tools/call` error that says the tool tried to send a server-initiated request (the legacy way) and the server's SDK
 * had no channel for it, as a McpSourceError (BackChannelRefused); undefined for any other error.
 *
 * In the modern era (a call made on 2026-07-28) by its shape, whatever the SDK's sentence: any JSON-RPC error of the
 * call that names a server-to-client method (`elicitation/create`, `sampling/createMessage`, `roots/list`); no server
 * can send one in that era, so a tool whose error names one tried. Seen: the Python SDK 2.x (-32600 "Cannot send
 * 'elicitation/create': this transport context has no back-channel for server-initiated requests."), the Go SDK
 * v1.8 on `Server.AddTool` (code 0, "\"elicitation/create\" cannot be sent while serving a request on protocol version
 * 2026-07-28: …"), the TypeScript SDK v2's low-level server ("Server-to-client requests are not available on protocol
 * revision 2026-07-28: 'elicitation/create' cannot be sent …"). (The SDKs' high-level tool APIs turn the same refusal
 * into an `isError` result: `refusedResult`.)
 *
 * In the legacy era only the sentences of a server with no channel in either era (the Python SDK 2.x over stateless
 * HTTP); any other error keeps the rules of every error.
 */
export function backChannelRefusal(err: unknown, server: string, tool: string, era: 'legacy' | 'modern'): McpSourceError | undefined {
  if (!(err instanceof ProtocolError)) return undefined;
  const message = err.message;
  if (era === 'modern') return serverToClientMethodIn(message) ? refused(message, server, tool, era) : undefined;
  if (!message.includes('elicitation/create')) return undefined;
  if (!/no back-channel for server-initiated requests|Server-to-client requests are not available/.test(message)) return undefined;
  return refused(message, server, tool, era);
}

/**
 * A modern-era `isError` result whose text names a server-to-client method, as a McpSourceError (BackChannelRefused):
 * the refusal as the SDKs' high-level tool APIs report it (the Go SDK's `mcp.AddTool`, the TypeScript SDK v2's
 * `McpServer`: the tool's error becomes the result's text). Only for a server in `era: "auto"`, which runs the call again
 * in the legacy era; anywhere else an `isError` result stays a result. Undefined for any other result.
 */
export function refusedResult(raw: unknown, server: string, tool: string): McpSourceError | undefined {
  const r = raw as { isError?: unknown; content?: unknown };
  if (!r || r.isError !== true || !Array.isArray(r.content)) return undefined;
  const text = r.content
    .filter((c): c is { type: 'text'; text: string } => c?.type === 'text' && typeof c.text === 'string')
    .map((c) => c.text)
    .join('\n');
  return serverToClientMethodIn(text) ? refused(text.length > 1000 ? `${text.slice(0, 1000)}…` : text, server, tool, 'modern') : undefined;
}

function refused(message: string, server: string, tool: string, era: 'legacy' | 'modern'): McpSourceError {
  return new McpSourceError(McpSourceErrorCodes.BackChannelRefused, `server "${server}": tool "${tool}": ${message}`, { server, tool, era });
}
