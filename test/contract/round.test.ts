/** The pure parts of the modern era (MRTR): reading a round's input requests and deriving their request ids. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deriveRequestId, deriveRoundRequestId, elicitationToRequest, readInputRequests, type ElicitParams } from '../../src/contract/index.js';

const form: ElicitParams = { mode: 'form', message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string', 'x-custom': 1 } } } };

describe('deriveRoundRequestId', () => {
  it('is deterministic in (call id, round, key, fingerprint) and differs when any of them does', () => {
    const id = deriveRoundRequestId('c1', 1, 'name', form);
    assert.match(id, /^c1\.r1\.name\.[0-9a-f]{10}$/);
    assert.equal(deriveRoundRequestId('c1', 1, 'name', { ...form }), id);
    assert.notEqual(deriveRoundRequestId('c2', 1, 'name', form), id);
    assert.notEqual(deriveRoundRequestId('c1', 2, 'name', form), id);
    assert.notEqual(deriveRoundRequestId('c1', 1, 'other', form), id);
    assert.notEqual(deriveRoundRequestId('c1', 1, 'name', { ...form, message: 'Name, please?' }), id);
    // Never the same as a legacy-era id of the same call.
    assert.notEqual(deriveRoundRequestId('c1', 1, 'name', form), deriveRequestId('c1', 1, form));
  });

  it('hashes a key that is not a short plain word (keys are chosen by the server)', () => {
    const id = deriveRoundRequestId('c1', 1, '__main__:ask_name', form);
    assert.match(id, /^c1\.r1\.k[0-9a-f]{8}\.[0-9a-f]{10}$/);
    assert.notEqual(deriveRoundRequestId('c1', 1, '__main__:ask_other', form), id);
  });

  it('URL mode: the url is not part of the id (it changes per attempt)', () => {
    const a = deriveRoundRequestId('c1', 1, 'login', { mode: 'url', message: 'Log in', url: 'https://a.example/1' });
    const b = deriveRoundRequestId('c1', 1, 'login', { mode: 'url', message: 'Log in', url: 'https://a.example/2' });
    assert.equal(a, b);
  });

  it('refuses a round that is not a positive integer', () => {
    assert.throws(() => deriveRoundRequestId('c1', 0, 'k', form), /round must be a positive integer, got 0/);
    assert.throws(() => deriveRoundRequestId('', 1, 'k', form), /callId must be a non-empty string/);
  });
});

describe('readInputRequests', () => {
  it("keeps elicitations in the server's order with their params exactly as sent (every schema keyword)", () => {
    const read = readInputRequests({
      b: { method: 'elicitation/create', params: form },
      a: { method: 'elicitation/create', params: { mode: 'url', message: 'Log in', url: 'https://x.example' } },
    });
    assert.deepEqual(
      read.map((r) => r.key),
      ['b', 'a'],
    );
    assert.equal(read[0].kind, 'elicitation');
    assert.equal((read[0] as { params: ElicitParams }).params, form, 'the same object: nothing parsed or dropped');
    const request = elicitationToRequest((read[0] as { params: ElicitParams }).params, { id: 'x' });
    assert.deepEqual(request.data, { schema: form.requestedSchema });
  });

  it('marks sampling, roots, unknown methods, bad modes and malformed entries as unsupported, naming them', () => {
    const read = readInputRequests({
      s: { method: 'sampling/createMessage', params: { messages: [], maxTokens: 1 } },
      r: { method: 'roots/list' },
      m: { method: 'elicitation/create', params: { mode: 'carrier-pigeon', message: 'x' } },
      n: null,
      p: { method: 'elicitation/create', params: 'nope' },
    });
    assert.deepEqual(
      read.map((r) => [r.key, r.kind, r.kind === 'unsupported' ? r.method : '']),
      [
        ['s', 'unsupported', 'sampling/createMessage'],
        ['r', 'unsupported', 'roots/list'],
        ['m', 'unsupported', 'elicitation/create (mode "carrier-pigeon")'],
        ['n', 'unsupported', 'object'],
        ['p', 'unsupported', 'elicitation/create'],
      ],
    );
  });
});
