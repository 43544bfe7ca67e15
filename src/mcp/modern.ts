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

/** The fields of a round (MCP 2026-07-28): in a result of either era, they make it a round or a protocol violation. */
export const ROUND_FIELDS = ['inputRequests', 'requestState'] as const;

/**
 * A `tools/call` result read in a session of either era: a round, or undefined for a complete result; a result that
 * is neither (round fields that make no round, or no content at all) throws a ProtocolViolation naming the server,
 * the tool and the field. Never a successful call with empty output made of a round nobody read.
 *
 * The legacy era has no rounds, yet a server may send one there: the Go SDK 1.8 (`mcp/mrtr.go`) turns a tool's first
 * round into `elicitation/create` for a client on an older protocol, then reinvokes the tool once and passes its next
 * round on as it is: `{ inputRequests, requestState }` with no `resultType`. Such a result is read as the round it is
 * (the next `tools/call` carries the answers and the state, which the same SDK hands the tool in either era).
 */
export function readRound(raw: unknown, server: string, tool: string, bare = false): InputRequiredRound | undefined {
  const violation = (field: string, what: string) =>
    new McpSourceError(McpSourceErrorCodes.ProtocolViolation, `server "${server}": tool "${tool}" answered with ${what} (field "${field}")`, {
      server,
      tool,
      field,
    });
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw violation('result', 'a result that is not an object');
  const r = raw as Record<string, unknown>;
  const hasContent = (Array.isArray(r.content) && r.content.length > 0) || (r.structuredContent !== undefined && r.structuredContent !== null);
  const modern = readInputRequired(r);
  if (modern) {
    if (hasContent) throw violation('inputRequests', 'both content and input requests (a result is complete or a round, never both)');
    if (Object.keys(modern.inputRequests).length === 0 && modern.requestState === undefined)
      throw violation('inputRequests', 'resultType "input_required" and neither input requests nor a requestState');
    return modern;
  }
  const asked = r.inputRequests !== undefined && r.inputRequests !== null;
  if (asked) {
    const requests = r.inputRequests;
    if (typeof requests !== 'object' || Array.isArray(requests) || Object.keys(requests as object).length === 0)
      throw violation('inputRequests', 'input requests that are not a non-empty object of requests');
    if (hasContent) throw violation('inputRequests', 'both content and input requests (a result is complete or a round, never both)');
    if (r.requestState !== undefined && typeof r.requestState !== 'string') throw violation('requestState', 'a requestState that is not a string');
    if (r.resultType !== undefined && r.resultType !== 'complete' && r.resultType !== 'input_required')
      throw violation('resultType', `input requests and resultType ${JSON.stringify(r.resultType).slice(0, 40)}`);
    const state = typeof r.requestState === 'string' ? { requestState: r.requestState } : {};
    return { kind: 'input_required', inputRequests: requests as Record<string, unknown>, ...state };
  }
  if (r.requestState !== undefined && r.requestState !== null && !hasContent)
    throw violation('requestState', 'a requestState without input requests or content (a round that asks nothing, or a result that says nothing)');
  // A result with neither content nor structured content says nothing: MCP requires `content` (an empty list is an
  // answer; no list at all is not). The 2024-10-07 `{ toolResult }` form is a result.
  // `bare`: the result came off the wire so (./result.ts), before the SDK filled in an empty `content`.
  if (bare || (!Array.isArray(r.content) && (r.structuredContent === undefined || r.structuredContent === null) && !('toolResult' in r)))
    throw violation('content', 'a result with neither content nor structuredContent');
  return undefined;
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
      // A result that carries input requests and no content is a round, whatever it left out: read as one (or refused as
      // a malformed one, naming the field), never taken for a complete result with no content. With content too, it is
      // "complete": `readRound` then sees both and names the fault (the SDK would drop the content of a round).
      if (result && typeof result === 'object' && !Array.isArray(result) && result.resultType === undefined)
        result.resultType = result.inputRequests !== undefined && result.inputRequests !== null && result.content === undefined ? 'input_required' : 'complete';
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
  const field = faultyField(err.message);
  return new McpSourceError(
    McpSourceErrorCodes.ProtocolViolation,
    `server "${server}": tool "${tool}" answered with a result MCP does not allow (field "${field}"): ${err.message.replace(/\s+/g, ' ')}`,
    { server, tool, field },
  );
}

/** The field of a result the SDK's words blame: a round's field, `content`, `resultType`, else the result as a whole. */
function faultyField(message: string): string {
  for (const field of ['inputRequests', 'requestState', 'resultType', 'structuredContent', 'content']) if (message.includes(field)) return field;
  return 'result';
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

/** JSON-RPC errors that say what is wrong with the call itself: never a refusal of a server-initiated request. */
const CALL_ERRORS = new Set([-32601, -32602, -32042]);

/**
 * A refusal to ask the old way recognised by what happened, whatever the server's SDK says (rmcp 3.11: -32600 "server-
 * to-client requests are not allowed on protocol 2026-07-28 or later; return InputRequiredResult instead", naming no
 * method): the call was made in the 2026-07-28 era to a server that also offers older versions, on its first round (no
 * result came before), and failed with a JSON-RPC error that is not about the call's name or arguments, for a server in
 * `era: "auto"`. As a McpSourceError (BackChannelRefused, `suspected`): the tool runs once more in the legacy era, and the
 * worker remembers it only if it then asks. A tool that fails for any other reason thus runs twice, never more.
 * Undefined otherwise.
 */
export function refusalByBehaviour(
  err: unknown,
  config: { name: string; era: string },
  tool: string,
  call: { era: 'legacy' | 'modern'; verdict: PriorDiscovery; round: RoundInput },
): McpSourceError | undefined {
  if (!(err instanceof ProtocolError) || CALL_ERRORS.has(err.code)) return undefined;
  if (config.era !== 'auto' || call.era !== 'modern' || call.verdict.kind !== 'modern') return undefined;
  if (call.round.inputResponses !== undefined || call.round.requestState !== undefined) return undefined;
  const server = config.name;
  const versions = (call.verdict.discover as { supportedVersions?: unknown }).supportedVersions;
  const older = Array.isArray(versions) && versions.some((v) => typeof v === 'string' && v < MODERN_PROTOCOL_VERSION);
  if (!older) return undefined;
  const message = err.message.length > 1000 ? `${err.message.slice(0, 1000)}…` : err.message;
  return new McpSourceError(McpSourceErrorCodes.BackChannelRefused, `server "${server}": tool "${tool}": ${message}`, {
    server,
    tool,
    era: 'modern',
    suspected: true,
  });
}

function refused(message: string, server: string, tool: string, era: 'legacy' | 'modern'): McpSourceError {
  return new McpSourceError(McpSourceErrorCodes.BackChannelRefused, `server "${server}": tool "${tool}": ${message}`, { server, tool, era });
}
