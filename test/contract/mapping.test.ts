import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  answerToElicitResult,
  checkAnswer,
  deriveRequestId,
  elicitationToRequest,
  MAX_ANSWER_BYTES,
  RequestSchema,
  type Answer,
  type ElicitParams,
  type Request,
} from '../../src/contract/index.js';
import { McpSource, type WaitFor } from '../../src/mcp/index.js';

const REQUEST_KEYS = new Set(['id', 'kind', 'prompt', 'url', 'data', 'expiresAt']);

const NAME_SCHEMA = {
  type: 'object',
  properties: { name: { type: 'string' } },
  required: ['name'],
};

/** The rule of seed example 3, stated independently of the implementation. */
function classify(a: Answer): 'accept' | 'decline' | 'cancel' {
  if (a.ok) return 'accept';
  return a.reason === 'declined' ? 'decline' : 'cancel';
}

function assertOnlyRequestKeys(request: Request): void {
  for (const key of Object.keys(request)) assert.ok(REQUEST_KEYS.has(key), `unexpected Request key "${key}"`);
  assert.ok(RequestSchema.safeParse(request).success, 'a Request satisfies RequestSchema (strict)');
}

describe('seed examples (McpSource.elicitationToRequest)', () => {
  it('example 1: form mode becomes kind "input" with the schema in data.schema and no url', () => {
    const request = elicitationToRequest({ mode: 'form', message: 'Your name?', requestedSchema: NAME_SCHEMA }, { id: 'elc-1' });
    assert.equal(request.kind, 'input');
    assert.deepEqual(request.data?.schema, NAME_SCHEMA);
    assert.equal(request.url, undefined);
    assert.equal('url' in request, false);
    assert.deepEqual(request, { id: 'elc-1', kind: 'input', prompt: 'Your name?', data: { schema: NAME_SCHEMA } });
  });

  it('example 1: URL mode becomes kind "authorization" with the link in url and no data', () => {
    const request = elicitationToRequest({ mode: 'url', message: 'Log in', url: 'https://x/auth', elicitationId: 'e-1' }, { id: 'elc-2' });
    assert.equal(request.data, undefined);
    assert.equal('data' in request, false);
    assert.deepEqual(request, { id: 'elc-2', kind: 'authorization', prompt: 'Log in', url: 'https://x/auth' });
  });

  it('example 2: wiring waitFor into McpSource.load with every server disabled gives status "disabled" and never calls waitFor', async () => {
    let calls = 0;
    const waitFor: WaitFor = (req) => {
      calls++;
      return { id: req.id, ok: true, data: { name: 'Ada' } };
    };
    const config = { mcpServers: { off: { command: ['x'], enabled: false } } };
    const src = await McpSource.load(config, waitFor);
    try {
      assert.deepEqual(src.status, { off: 'disabled' });
      assert.deepEqual(src.tools, []);
      assert.deepEqual(src.errors, {});
    } finally {
      await src.close();
    }
    assert.equal(calls, 0);
  });

  it('example 2: works with await using', async () => {
    let calls = 0;
    {
      await using src = await McpSource.load({ mcpServers: { off: { command: ['x'], disabled: true } } }, () => {
        calls++;
        return { id: 'x', ok: false };
      });
      assert.equal(src.status.off, 'disabled');
    }
    assert.equal(calls, 0);
  });

  it('example 3: accept / decline / cancel classification matches answerToElicitResult', () => {
    const answers: Answer[] = [
      { id: 'id-1', ok: true, data: { name: 'Ada' } },
      { id: 'id-2', ok: false, reason: 'declined' },
      { id: 'id-3', ok: false, reason: 'expired' },
      { id: 'id-4', ok: false },
    ];
    assert.deepEqual(answers.map(classify), ['accept', 'decline', 'cancel', 'cancel']);
    for (const a of answers) assert.equal(answerToElicitResult(a).action, classify(a), `answer ${a.id}`);
  });
});

describe('elicitationToRequest', () => {
  it('maps a form elicitation without a message to prompt ""', () => {
    const request = elicitationToRequest({ mode: 'form', requestedSchema: NAME_SCHEMA }, { id: 'r' });
    assert.equal(request.prompt, '');
    assert.equal(request.kind, 'input');
  });

  it('maps a URL elicitation without a message to prompt ""', () => {
    const request = elicitationToRequest({ mode: 'url', url: 'https://x/auth' }, { id: 'r' });
    assert.equal(request.prompt, '');
  });

  it('keeps the message verbatim (whitespace, newlines, unicode)', () => {
    const message = '  Hello\n\tWörld ✓  ';
    assert.equal(elicitationToRequest({ message, requestedSchema: NAME_SCHEMA }, { id: 'r' }).prompt, message);
  });

  it('treats an absent mode as form mode', () => {
    const request = elicitationToRequest({ message: 'Your name?', requestedSchema: NAME_SCHEMA }, { id: 'r' });
    assert.deepEqual(request, { id: 'r', kind: 'input', prompt: 'Your name?', data: { schema: NAME_SCHEMA } });
  });

  it('puts no url on a form-mode Request even when the params carry one', () => {
    const params = { mode: 'form', message: 'm', requestedSchema: NAME_SCHEMA, url: 'https://stray' } as ElicitParams;
    const request = elicitationToRequest(params, { id: 'r' });
    assert.equal('url' in request, false);
  });

  it('puts no data on a URL-mode Request even when the params carry a schema', () => {
    const params = { mode: 'url', message: 'm', url: 'https://x/auth', requestedSchema: NAME_SCHEMA } as ElicitParams;
    const request = elicitationToRequest(params, { id: 'r' });
    assert.equal('data' in request, false);
    assert.equal(request.url, 'https://x/auth');
  });

  it('copies expiresAt from the options, and omits the key when not given', () => {
    const withExpiry = elicitationToRequest({ message: 'm', requestedSchema: NAME_SCHEMA }, { id: 'r', expiresAt: '2030-01-01T00:00:00Z' });
    assert.equal(withExpiry.expiresAt, '2030-01-01T00:00:00Z');
    const without = elicitationToRequest({ message: 'm', requestedSchema: NAME_SCHEMA }, { id: 'r' });
    assert.equal('expiresAt' in without, false);
  });

  it('produces a Request with exactly the keys id, kind, prompt, url?, data?, expiresAt?', () => {
    const extra = { mode: 'url', message: 'm', url: 'https://x', elicitationId: 'e', _meta: { a: 1 }, other: true } as ElicitParams;
    const cases: Request[] = [
      elicitationToRequest({ message: 'm', requestedSchema: NAME_SCHEMA }, { id: 'a' }),
      elicitationToRequest({ message: 'm', requestedSchema: NAME_SCHEMA }, { id: 'b', expiresAt: '2030-01-01T00:00:00Z' }),
      elicitationToRequest({ mode: 'url', message: 'm', url: 'https://x', elicitationId: 'e' }, { id: 'c', expiresAt: '2030-01-01T00:00:00Z' }),
      elicitationToRequest(extra, { id: 'd' }),
      elicitationToRequest({ ...extra, mode: 'form', requestedSchema: NAME_SCHEMA } as ElicitParams, { id: 'e' }),
    ];
    for (const request of cases) assertOnlyRequestKeys(request);
    assert.deepEqual(Object.keys(cases[1]).sort(), ['data', 'expiresAt', 'id', 'kind', 'prompt']);
    assert.deepEqual(Object.keys(cases[2]).sort(), ['expiresAt', 'id', 'kind', 'prompt', 'url']);
    assert.deepEqual(Object.keys(cases[3]).sort(), ['id', 'kind', 'prompt', 'url']);
    assert.deepEqual(Object.keys(cases[4]).sort(), ['data', 'id', 'kind', 'prompt']);
  });
});

describe('answerToElicitResult', () => {
  it('maps ok:true to accept with the answer data as content', () => {
    assert.deepEqual(answerToElicitResult({ id: 'a', ok: true, data: { name: 'Ada', age: 36 } }), {
      action: 'accept',
      content: { name: 'Ada', age: 36 },
    });
  });

  it('maps ok:true without data to accept with content {}', () => {
    assert.deepEqual(answerToElicitResult({ id: 'a', ok: true }), { action: 'accept', content: {} });
    assert.deepEqual(answerToElicitResult({ id: 'a', ok: true }, { mode: 'form' }), { action: 'accept', content: {} });
  });

  it('maps ok:true in URL mode to accept without content', () => {
    assert.deepEqual(answerToElicitResult({ id: 'a', ok: true }, { mode: 'url' }), { action: 'accept' });
  });

  it('maps reason "declined" to decline', () => {
    assert.deepEqual(answerToElicitResult({ id: 'a', ok: false, reason: 'declined' }), { action: 'decline' });
  });

  for (const reason of ['expired', 'cancelled', 'timed out', 'Declined', undefined]) {
    it(`maps ok:false with ${reason === undefined ? 'no reason' : `reason "${reason}"`} to cancel`, () => {
      const answer: Answer = reason === undefined ? { id: 'a', ok: false } : { id: 'a', ok: false, reason };
      assert.deepEqual(answerToElicitResult(answer), { action: 'cancel' });
      assert.deepEqual(answerToElicitResult(answer, { mode: 'url' }), { action: 'cancel' });
    });
  }

  it('never puts content on decline or cancel, even when the answer carries data', () => {
    assert.deepEqual(answerToElicitResult({ id: 'a', ok: false, reason: 'declined', data: { x: 1 } }), { action: 'decline' });
    assert.deepEqual(answerToElicitResult({ id: 'a', ok: false, data: { x: 1 } }), { action: 'cancel' });
  });
});

describe('deriveRequestId', () => {
  const form: ElicitParams = { mode: 'form', message: 'Your name?', requestedSchema: NAME_SCHEMA };
  const url: ElicitParams = { mode: 'url', message: 'Log in', url: 'https://x/auth?s=1', elicitationId: 'e-1' };

  it('is deterministic for equal inputs', () => {
    assert.equal(deriveRequestId('call-1', 1, form), deriveRequestId('call-1', 1, structuredClone(form)));
    assert.equal(deriveRequestId('call-1', 2, url), deriveRequestId('call-1', 2, { ...url }));
  });

  it('does not depend on the key order of the schema', () => {
    const reordered = { required: ['name'], properties: { name: { type: 'string' } }, type: 'object' };
    assert.equal(deriveRequestId('c', 1, form), deriveRequestId('c', 1, { ...form, requestedSchema: reordered }));
  });

  it('changes with the callId', () => {
    assert.notEqual(deriveRequestId('call-1', 1, form), deriveRequestId('call-2', 1, form));
  });

  it('changes with the ordinal', () => {
    assert.notEqual(deriveRequestId('call-1', 1, form), deriveRequestId('call-1', 2, form));
  });

  it('changes with the message', () => {
    assert.notEqual(deriveRequestId('c', 1, form), deriveRequestId('c', 1, { ...form, message: 'Your full name?' }));
    assert.notEqual(deriveRequestId('c', 1, url), deriveRequestId('c', 1, { ...url, message: 'Sign in' }));
  });

  it('changes with the requested schema', () => {
    const other = { ...NAME_SCHEMA, properties: { name: { type: 'string', minLength: 1 } } };
    assert.notEqual(deriveRequestId('c', 1, form), deriveRequestId('c', 1, { ...form, requestedSchema: other }));
  });

  it('changes with the mode', () => {
    assert.notEqual(deriveRequestId('c', 1, { message: 'm' }), deriveRequestId('c', 1, { mode: 'url', message: 'm', url: 'https://x' }));
  });

  it('does not change with a URL-mode url or elicitationId (they change per attempt)', () => {
    const a = deriveRequestId('c', 1, url);
    assert.equal(a, deriveRequestId('c', 1, { ...url, url: 'https://x/auth?s=2' }));
    assert.equal(a, deriveRequestId('c', 1, { ...url, elicitationId: 'e-2' }));
    assert.equal(a, deriveRequestId('c', 1, { ...url, url: 'https://elsewhere/', elicitationId: undefined }));
  });

  it('treats absent mode and mode "form" alike', () => {
    const { mode: _mode, ...noMode } = form;
    assert.equal(deriveRequestId('c', 1, form), deriveRequestId('c', 1, noMode));
  });

  it('rejects an empty callId and a non-positive or fractional ordinal', () => {
    assert.throws(() => deriveRequestId('', 1, form), TypeError);
    assert.throws(() => deriveRequestId('c', 0, form), TypeError);
    assert.throws(() => deriveRequestId('c', 1.5, form), TypeError);
  });

  it('starts with the callId and ordinal', () => {
    assert.match(deriveRequestId('wf-7/call-3', 2, form), /^wf-7\/call-3\.2\.[0-9a-f]+$/);
  });
});

describe('checkAnswer', () => {
  const formRequest: Request = {
    id: 'req-1',
    kind: 'input',
    prompt: 'Your details',
    data: {
      schema: {
        type: 'object',
        properties: {
          name: { type: 'string', minLength: 1 },
          age: { type: 'integer', minimum: 0 },
          subscribe: { type: 'boolean', default: false },
        },
        required: ['name'],
      },
    },
  };
  const urlRequest: Request = { id: 'req-2', kind: 'authorization', prompt: 'Log in', url: 'https://x/auth' };

  for (const raw of [null, 'yes', 42, true, ['req-1', true], undefined]) {
    it(`rejects a non-object answer (${raw === null ? 'null' : Array.isArray(raw) ? 'array' : typeof raw})`, () => {
      const check = checkAnswer(raw, formRequest);
      assert.equal(check.ok, false);
      assert.match((check as { reason: string }).reason, /answer must be an object/);
    });
  }

  it(`rejects an answer over MAX_ANSWER_BYTES (${MAX_ANSWER_BYTES})`, () => {
    const check = checkAnswer({ id: 'req-1', ok: true, data: { name: 'x'.repeat(MAX_ANSWER_BYTES) } }, formRequest);
    assert.equal(check.ok, false);
    assert.match((check as { reason: string }).reason, new RegExp(`over the limit of ${MAX_ANSWER_BYTES} bytes`));
  });

  it('counts multi-byte characters as UTF-8 bytes when checking the size', () => {
    const chars = Math.ceil(MAX_ANSWER_BYTES / 3); // 3 bytes each in UTF-8, well under the limit in UTF-16 units
    const check = checkAnswer({ id: 'req-1', ok: true, data: { name: '€'.repeat(chars) } }, formRequest);
    assert.equal(check.ok, false);
    assert.match((check as { reason: string }).reason, /over the limit/);
  });

  it('honours a smaller maxBytes limit', () => {
    const check = checkAnswer({ id: 'req-1', ok: true, data: { name: 'Ada Lovelace' } }, formRequest, { maxBytes: 20 });
    assert.equal(check.ok, false);
    assert.match((check as { reason: string }).reason, /over the limit of 20 bytes/);
  });

  it('rejects an unknown key, naming it', () => {
    const check = checkAnswer({ id: 'req-1', ok: true, data: { name: 'Ada' }, extra: 1 }, formRequest);
    assert.equal(check.ok, false);
    assert.match((check as { reason: string }).reason, /unknown key\(s\) "extra"/);
  });

  it('rejects an answer whose id names no pending request', () => {
    const check = checkAnswer({ id: 'nope', ok: true, data: { name: 'Ada' } }, undefined);
    assert.deepEqual(check, { ok: false, reason: 'no pending request with id "nope"', type: 'UnknownRequest' });
  });

  it('rejects a reason together with ok:true', () => {
    const check = checkAnswer({ id: 'req-1', ok: true, data: { name: 'Ada' }, reason: 'declined' }, formRequest);
    assert.equal(check.ok, false);
    assert.match((check as { reason: string }).reason, /"reason".*only allowed when ok is false/);
  });

  it('rejects a missing or empty id and a non-boolean ok', () => {
    for (const raw of [{ ok: true }, { id: '', ok: true }, { id: 'req-1', ok: 'yes' }]) {
      const check = checkAnswer(raw, formRequest);
      assert.equal(check.ok, false, JSON.stringify(raw));
    }
  });

  it('rejects data that does not match the requested schema, naming the field', () => {
    const check = checkAnswer({ id: 'req-1', ok: true, data: { name: 'Ada', age: 'old' } }, formRequest);
    assert.equal(check.ok, false);
    const reason = (check as { reason: string }).reason;
    assert.match(reason, /does not match the requested schema/);
    assert.match(reason, /field "age"/);
  });

  it('rejects an accept without a required field, naming it', () => {
    const check = checkAnswer({ id: 'req-1', ok: true }, formRequest);
    assert.equal(check.ok, false);
    assert.match((check as { reason: string }).reason, /field "name": is required/);
  });

  it('applies the schema defaults to an accepted answer', () => {
    const check = checkAnswer({ id: 'req-1', ok: true, data: { name: 'Ada' } }, formRequest);
    assert.deepEqual(check, { ok: true, answer: { id: 'req-1', ok: true, data: { name: 'Ada', subscribe: false } } });
  });

  it('keeps the reason of an ok:false answer and drops its data', () => {
    assert.deepEqual(checkAnswer({ id: 'req-1', ok: false, reason: 'declined' }, formRequest), {
      ok: true,
      answer: { id: 'req-1', ok: false, reason: 'declined' },
    });
    assert.deepEqual(checkAnswer({ id: 'req-1', ok: false, reason: 'expired', data: { name: 1 } }, formRequest), {
      ok: true,
      answer: { id: 'req-1', ok: false, reason: 'expired' },
    });
    assert.deepEqual(checkAnswer({ id: 'req-1', ok: false }, formRequest), { ok: true, answer: { id: 'req-1', ok: false } });
  });

  it('accepts a URL-mode answer without data', () => {
    assert.deepEqual(checkAnswer({ id: 'req-2', ok: true }, urlRequest), { ok: true, answer: { id: 'req-2', ok: true } });
  });

  it('does not mutate the raw answer', () => {
    const raw = { id: 'req-1', ok: true, data: { name: 'Ada' } };
    const copy = structuredClone(raw);
    checkAnswer(raw, formRequest);
    assert.deepEqual(raw, copy);
  });
});
