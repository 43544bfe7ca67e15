/**
 * The old way recognised by its shape (issue #34 item 4): a modern-era `tools/call` error (or, in `era: "auto"`, an
 * `isError` result) that names a server-to-client method is the server's refusal of a server-initiated request,
 * whatever its SDK's sentence; in the legacy era only the known sentences of a server without a channel in either era.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ProtocolError } from '@modelcontextprotocol/client';
import { backChannelRefusal, refusedResult, serverToClientMethodIn } from '../../src/mcp/modern.js';

const error = (code: number, message: string) => new ProtocolError(code, message);
const GO = '"elicitation/create" cannot be sent while serving a request on protocol version 2026-07-28: return an InputRequests map instead';

describe('backChannelRefusal', () => {
  it('in the modern era: any error naming a server-to-client method, whatever the SDK says', () => {
    for (const [message, method] of [
      [`eliciting failed: ${GO}`, 'elicitation/create'],
      ["Cannot send 'elicitation/create': this transport context has no back-channel for server-initiated requests.", 'elicitation/create'],
      ['sampling failed: "sampling/createMessage" cannot be sent on 2026-07-28', 'sampling/createMessage'],
      ['ServerRequest roots/list is not supported by the negotiated protocol', 'roots/list'],
    ] as const) {
      const refused = backChannelRefusal(error(0, message), 'go', 'greet', 'modern');
      assert.equal(refused?.code, 'BackChannelRefused', message);
      assert.equal(refused?.era, 'modern');
      assert.match(refused!.message, /^server "go": tool "greet": /);
      assert.equal(serverToClientMethodIn(message), method);
    }
  });

  it('an error naming no such method, or not a JSON-RPC error, keeps the rules of every error', () => {
    assert.equal(backChannelRefusal(error(-32603, 'Internal error: database unreachable'), 'go', 'greet', 'modern'), undefined);
    assert.equal(backChannelRefusal(new Error(`eliciting failed: ${GO}`), 'go', 'greet', 'modern'), undefined);
  });

  it('in the legacy era: only the sentences of a server with no channel in either era', () => {
    const stateless = "Cannot send 'elicitation/create': this transport context has no back-channel for server-initiated requests.";
    assert.equal(backChannelRefusal(error(-32600, stateless), 'py', 'greet', 'legacy')?.era, 'legacy');
    assert.equal(backChannelRefusal(error(0, `eliciting failed: ${GO}`), 'go', 'greet', 'legacy'), undefined);
  });
});

describe('refusedResult', () => {
  it('an isError result whose text names a server-to-client method', () => {
    const raw = { content: [{ type: 'text', text: `eliciting failed: ${GO}` }], isError: true };
    const refused = refusedResult(raw, 'go', 'greet');
    assert.equal(refused?.code, 'BackChannelRefused');
    assert.equal(refused?.era, 'modern');
  });

  it('any other result stays a result', () => {
    assert.equal(refusedResult({ content: [{ type: 'text', text: GO }] }, 'go', 'greet'), undefined, 'not isError');
    assert.equal(refusedResult({ content: [{ type: 'text', text: 'disk full' }], isError: true }, 'go', 'greet'), undefined);
    assert.equal(refusedResult({ content: [{ type: 'image', data: GO }], isError: true }, 'go', 'greet'), undefined);
    assert.equal(refusedResult({ resultType: 'input_required', inputRequests: {} }, 'go', 'greet'), undefined);
  });

  it('bounds the message of a long result', () => {
    const raw = { content: [{ type: 'text', text: `elicitation/create ${'x'.repeat(5000)}` }], isError: true };
    assert.ok(refusedResult(raw, 'go', 'greet')!.message.length < 1100);
  });
});
