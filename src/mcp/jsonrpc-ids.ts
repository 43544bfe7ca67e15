/**
 * JSON-RPC ids of the client's requests unique across sessions and processes, in both eras and on every transport.
 *
 * The SDK's client numbers its requests from 0 on each connection. A call whose rounds run on different sessions (the
 * session released while a person answers, then closed idle; a worker restart; another worker) would send its next
 * round with the id of the round before, which 2026-07-28 forbids ("The JSON-RPC id MUST be different between the
 * initial request and the retry", SEP-2322; the conformance scenario `sep-2322-client-request-state` checks it): a
 * stateless server has no session to tell the two apart. The legacy era asks ids to be unique within a session only,
 * but a legacy call retried after a URL elicitation runs on a new session too, and stateless HTTP has none.
 *
 * So at the transport, nearest the wire: each request goes out with an id of the session's own series, from a random
 * base (an integer below 2^31, so that a server keeping ids in a 32-bit integer still can; two sessions' series meet
 * on a given request with a chance of about 1 in 2^31), counting up; its response (result or error) comes back to the
 * SDK with the SDK's id, and a `notifications/cancelled` the SDK sends names the id that went out. Progress tokens
 * stay the SDK's (a token is the request's own, and a progress notification comes back on the request's session).
 * Requests from the server (legacy `elicitation/create`) and the answers to them keep the server's ids.
 */
import { randomInt } from 'node:crypto';
import {
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type RequestId,
  type Transport,
} from '@modelcontextprotocol/client';
import { interceptMessages } from './transports.js';

/** The largest id sent: ids stay positive 32-bit integers. */
const MAX_WIRE_ID = 2 ** 31 - 1;
/** Requests remembered while their response is outstanding (one that never came is forgotten first). */
const MAX_IN_FLIGHT = 4096;

/** A random first id for a session's series, leaving it room to count up before it wraps. */
export function randomIdBase(): number {
  return randomInt(1, MAX_WIRE_ID - 2 ** 24);
}

/** Installed before `connect()` and before every other interceptor of the session's transport. */
export function uniqueJsonRpcIds(transport: Transport, base: number = randomIdBase()): void {
  let next = base;
  /** The SDK's id → the id that went out, and back, while the request is in flight. */
  const wire = new Map<RequestId, number>();
  const sdk = new Map<RequestId, RequestId>();
  interceptMessages(transport, {
    outgoing: (message) => {
      if (isJSONRPCRequest(message)) {
        const id = next;
        next = next >= MAX_WIRE_ID ? 1 : next + 1;
        wire.delete(message.id);
        wire.set(message.id, id);
        sdk.set(id, message.id);
        if (wire.size > MAX_IN_FLIGHT) {
          const [oldest, oldWire] = wire.entries().next().value as [RequestId, number];
          wire.delete(oldest);
          sdk.delete(oldWire);
        }
        return { ...message, id };
      }
      if (isJSONRPCNotification(message) && message.method === 'notifications/cancelled') {
        const requestId = (message.params as { requestId?: RequestId } | undefined)?.requestId;
        const id = requestId === undefined ? undefined : wire.get(requestId);
        if (id !== undefined) return { ...message, params: { ...message.params, requestId: id } };
      }
      return message;
    },
    incoming: (message) => {
      if (!isJSONRPCResultResponse(message) && !isJSONRPCErrorResponse(message)) return message;
      if (message.id === undefined || message.id === null) return message;
      const id = sdk.get(message.id);
      if (id === undefined) return message;
      sdk.delete(message.id);
      wire.delete(id);
      return { ...message, id };
    },
  });
}
