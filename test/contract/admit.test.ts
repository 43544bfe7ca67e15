import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admitElicitation, checkElicitationUrl, INVALID_PARAMS, MAX_ELICITATION_BYTES, readInputRequests, urlHost } from '../../src/contract/index.js';

const form = (requestedSchema: unknown, message = 'Please answer') => ({ mode: 'form', message, requestedSchema });
const obj = (properties: Record<string, unknown>, required?: string[]) => ({ type: 'object', properties, ...(required ? { required } : {}) });

function refused(raw: unknown, ...fragments: string[]): string {
  const a = admitElicitation(raw);
  assert.equal(a.ok, false, `expected a refusal, got ${JSON.stringify(a)}`);
  if (a.ok) throw new Error('unreachable');
  assert.equal(a.code, INVALID_PARAMS);
  assert.ok(!a.message.includes('\n'), 'a one-line reason');
  for (const f of fragments) assert.ok(a.message.includes(f), `"${a.message}" should mention ${f}`);
  return a.message;
}
function admitted(raw: unknown) {
  const a = admitElicitation(raw);
  assert.ok(a.ok, `expected admission, got ${JSON.stringify(a)}`);
  return a;
}

describe('admitElicitation: size', () => {
  it('refuses a 3 MB message, naming the size and the bound', () => {
    const message = refused(form(obj({}), 'x'.repeat(3 * 1024 * 1024)), `bound of ${MAX_ELICITATION_BYTES} bytes`);
    const size = Number(/the request is (\d+) bytes/.exec(message)?.[1]);
    assert.ok(size > 3 * 1024 * 1024, message);
  });
  it('refuses a schema that pushes the request past the bound, and admits one just under it', () => {
    const big = Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`field_${i}`, { type: 'string', description: 'd'.repeat(30) }]));
    refused(form(obj(big)), 'over the bound');
    const small = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`field_${i}`, { type: 'string', description: 'd'.repeat(30) }]));
    admitted(form(obj(small)));
  });
  it('refuses nesting deeper than 32 levels without overflowing the stack (20,000 levels in 40 KB)', () => {
    const deep = JSON.parse('['.repeat(20_000) + ']'.repeat(20_000)) as unknown;
    refused(form(obj({ a: { type: 'string', 'x-deep': deep } })), 'nested deeper than 32 levels');
    admitted(form(obj({ a: { type: 'string', 'x-ok': [[[[[[1]]]]]] } })));
  });
  it('counts UTF-8 bytes, not characters', () => {
    refused(form(obj({}), '€'.repeat(22 * 1024)), 'over the bound'); // 66 KiB as UTF-8, 22 K characters
  });
});

describe('admitElicitation: faithful schema', () => {
  it('keeps requestedSchema exactly as sent, every keyword included', () => {
    const schema = {
      type: 'object',
      properties: { pin: { type: 'string', pattern: '^[0-9]{4}$', 'x-ui': { widget: 'pin' } } },
      required: ['pin'],
      additionalProperties: false,
    };
    const a = admitted(form(schema));
    assert.deepEqual(a.params.requestedSchema, schema);
  });
  for (const [what, schema, fragment] of [
    ['$ref/$defs', { type: 'object', properties: { a: { $ref: '#/$defs/a' } }, $defs: { a: { type: 'string' } } }, '"$defs"'],
    ['a schema for additionalProperties', { type: 'object', properties: {}, additionalProperties: { type: 'string' } }, 'additionalProperties'],
    ['allOf on a property', obj({ a: { type: 'string', allOf: [{ minLength: 2 }] } }), '"allOf"'],
    ['const on a property', obj({ a: { type: 'string', const: 'x' } }), '"const"'],
    ['exclusiveMinimum', obj({ n: { type: 'number', exclusiveMinimum: 0 } }), '"exclusiveMinimum"'],
    ['multipleOf', obj({ n: { type: 'integer', multipleOf: 5 } }), '"multipleOf"'],
    ['a format outside the four', obj({ ip: { type: 'string', format: 'ipv4' } }), 'ipv4'],
    ['a pattern only valid without unicode mode', obj({ a: { type: 'string', pattern: '\\-[' } }), 'pattern'],
    ['a 2020-12 $schema', { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: {} }, '$schema'],
    ['a oneOf option with its own keyword', obj({ c: { type: 'string', oneOf: [{ const: 'a', pattern: 'b' }] } }), 'oneOf entry'],
    ['a nested object', obj({ o: { type: 'object', properties: {} } }), '"object"'],
    ['a type list', obj({ a: { type: ['string', 'null'] } }), 'a'],
  ] as const) {
    it(`refuses ${what} with -32602 and a one-line reason`, () => void refused(form(schema), fragment));
  }
  it('admits annotations both validators ignore (title, description, enumNames, x-…)', () => {
    admitted(form(obj({ c: { type: 'string', title: 'C', description: 'd', enum: ['a', 'b'], enumNames: ['A', 'B'], 'x-order': 1 } })));
  });
});

describe('admitElicitation: answerable or refused', () => {
  for (const [what, schema, fragment] of [
    ['required naming a missing property', obj({ a: { type: 'string' } }, ['a', 'ghost']), '"ghost"'],
    ['a fractional minLength', obj({ a: { type: 'string', minLength: 1.5 } }), 'minLength'],
    ['a negative maxItems', obj({ a: { type: 'array', items: { enum: ['x'] }, maxItems: -1 } }), 'maxItems'],
    ['minLength above maxLength', obj({ a: { type: 'string', minLength: 5, maxLength: 2 } }), 'minLength 5 above maxLength 2'],
    ['minimum above maximum', obj({ n: { type: 'number', minimum: 3, maximum: 1 } }), 'minimum 3 above maximum 1'],
    ['an integer range without an integer', obj({ n: { type: 'integer', minimum: 1.2, maximum: 1.8 } }), 'no integer'],
    ['an empty enum', obj({ c: { type: 'string', enum: [] } }), 'non-empty'],
    ['more items required than options', obj({ m: { type: 'array', items: { enum: ['a', 'b'] }, minItems: 3 } }), 'at least 3'],
    ['a default its own field rejects', obj({ c: { type: 'string', enum: ['a', 'b'], default: 'z' } }), 'default'],
    ['a default that misses its pattern', obj({ pin: { type: 'string', pattern: '^[0-9]{4}$', default: 'abcd' } }), 'default'],
    ['a oneOf listing a value twice', obj({ c: { type: 'string', oneOf: [{ const: 'a' }, { const: 'a' }] } }), 'twice'],
    ['a schema that is not type object', { type: 'string' }, '"object"'],
    ['a missing schema', undefined, 'object schema'],
  ] as const) {
    it(`refuses ${what}`, () => void refused(form(schema), fragment));
  }
});

describe('admitElicitation: URL mode', () => {
  const url = (u: unknown) => ({ mode: 'url', message: 'Sign in', url: u, elicitationId: 'e1' });
  for (const bad of [
    'javascript:alert(1)',
    'file:///etc/passwd',
    'data:text/html,<script>alert(1)</script>',
    'http://example.com/login',
    'https:///nohost',
    'https://bank.com@evil.example/',
    'https://evil.example/\u001b]8;;x\u0007',
    'https://exa mple.com/',
    'https://ex\\ample.com/',
    'ftp://example.com/',
    '',
    42,
  ]) {
    it(`refuses ${JSON.stringify(bad)}`, () => void refused(url(bad), 'url'));
  }
  it('admits an https: URL and shows its host; http: only for loopback hosts', () => {
    const a = admitted(url('https://Login.Example.com:8443/oauth?x=1'));
    assert.deepEqual(a.context, { host: 'login.example.com:8443' });
    assert.equal(a.params.url, 'https://Login.Example.com:8443/oauth?x=1');
    for (const u of ['http://localhost:3000/cb', 'http://127.0.0.1/cb', 'http://[::1]:8080/']) assert.ok(checkElicitationUrl(u).ok, u);
    assert.equal(urlHost('https://example.com/a'), 'example.com');
    assert.equal(urlHost('javascript:alert(1)'), undefined);
  });
});

describe('modern era input requests: the same rules (readInputRequests, then admitElicitation)', () => {
  /** What the activity and McpSource do with one entry of `inputRequests`. */
  const admitInputRequest = (raw: unknown) => {
    const [entry] = readInputRequests({ k: raw });
    return entry.kind === 'elicitation' ? admitElicitation(entry.params) : { ok: false as const, method: entry.method };
  };
  it('admits an elicitation input request and refuses what admitElicitation refuses, or another method', () => {
    assert.ok(admitInputRequest({ method: 'elicitation/create', params: form(obj({ a: { type: 'string' } })) }).ok);
    const ghost = admitInputRequest({ method: 'elicitation/create', params: form(obj({ a: { type: 'string' } }, ['ghost'])) });
    assert.ok(!ghost.ok && 'code' in ghost && ghost.code === INVALID_PARAMS && ghost.message.includes('"ghost"'));
    const url = admitInputRequest({ method: 'elicitation/create', params: { mode: 'url', message: 'x', url: 'javascript:alert(1)', elicitationId: 'e' } });
    assert.ok(!url.ok && 'message' in url && url.message.includes('javascript:'));
    const sampling = admitInputRequest({ method: 'sampling/createMessage', params: {} });
    assert.ok(!sampling.ok && 'method' in sampling && sampling.method === 'sampling/createMessage');
  });
});
