/**
 * Differential test (issue #16): generated restricted schemas and answers go through durable-mcp's
 * validation and through the check an MCP SDK server applies to an accepted elicitation (Ajv with the
 * SDK's own options: strict false, validateFormats, validateSchema false, allErrors, ajv-formats), and
 * must get the same verdict. Seeded and reproducible: DIFF_SEED / DIFF_CASES override the defaults.
 *
 * durable-mcp applies the schema's defaults before the answer is forwarded, so the server checks the
 * answer with its defaults filled in: that is what Ajv is given. Two things durable-mcp refuses on top,
 * on purpose, are compared one way only (durable-mcp accepts ⇒ the server accepts): keys the schema does
 * not ask for (a person's typo) and an item chosen twice in a multi-select.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { admitElicitation, validateElicitationContent } from '../../src/contract/index.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
/** The MCP SDK server's validator, as @modelcontextprotocol/sdk's AjvJsonSchemaValidator creates it. */
function sdkAjv(): Ajv {
  const ajv = new Ajv({ strict: false, validateFormats: true, validateSchema: false, allErrors: true });
  addFormats(ajv);
  return ajv;
}

/** mulberry32: a small seeded PRNG. */
function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1));
  const pick = <T>(xs: readonly T[]): T => xs[int(0, xs.length - 1)];
  const chance = (p: number) => next() < p;
  return { next, int, pick, chance };
}
type Rng = ReturnType<typeof rng>;

// Patterns run in RE2 (issue #31), translated from ECMAScript: the second line holds what the translation
// must keep (ECMAScript's `.`, `\s`, `[^]`, `\u` escapes, `\b`). Patterns RE2 cannot run (backreferences,
// lookaround) are refused at arrival and never compared; test/contract/pattern.test.ts covers them.
const PATTERNS = [
  '^[0-9]{4}$',
  '^a',
  'b$',
  '\\d',
  '^[a-z]+$',
  '^\\p{L}+$',
  '^.{2}$',
  '^[^@]+$',
  'x|y',
  '^(ab)+$',
  '^\\w*$',
  '^$',
  '😀',
  '^.$',
  '^\\s+$',
  '\\S',
  '^[\\s\\S]{2}$',
  '^[^]$',
  '\\u00e9',
  '^\\p{Lu}',
  '\\bab\\b',
  '^[\\S]+$',
];
const WORDS = [
  '',
  'a',
  'ab',
  'b',
  'abc',
  '1234',
  '12345',
  '123',
  'abcd',
  'x',
  'y',
  'xy',
  'ÄÖ',
  'é',
  '😀',
  '😀😀',
  'a😀',
  'ababab',
  'A B',
  ' ',
  'Z9',
  'q@r',
  'hello world',
  'αβγ',
  '\n',
  'a\u0000b',
  '\r',
  '\u2028',
  '\u00a0',
  '\ufeff',
  'Ab',
];
const EMAILS = [
  'ada@example.com',
  'a.b@c.d',
  'a..b@c.de',
  '.a@b.cd',
  'a.@b.cd',
  'a@b',
  'a@-b.cd',
  'a@b-.cd',
  'a@b.c-d.ef',
  "o'neil+x@ex-ample.co.uk",
  'a b@c.de',
  'a@b@c.de',
  'A@B.CO',
  'a@1.2',
  'a@b..c',
  '@b.cd',
  'a@',
  'ü@b.cd',
  'a@b.cd.',
  'x{y}@z.io',
  'a"b@c.de',
  'a@[1.2.3.4]',
];
const URIS = [
  'https://example.com/a?b=c#d',
  'http://[::1]:8080/',
  'http://[2001:db8::7]/c',
  'http://[v1.fe:x]/',
  'http://[::ffff:1.2.3.4]/',
  'http://[1:2:3:4:5:6:7:8]/',
  'http://[1:2:3:4:5:6:7:8:9]/',
  'http://[1::2::3]/',
  'http://[::g]/',
  'http://[1.2.3.4]/',
  'mailto:ada@example.com',
  'urn:isbn:0451450523',
  'a:',
  'a:b',
  'a:/',
  'a://',
  'a:?q',
  'a:#f',
  '1a:b',
  'example.com',
  '//example.com',
  'https://exa mple.com',
  'https://example.com/%zz',
  'https://example.com/%7e',
  'https://u:p@host:/p',
  'https://host:99999999/',
  'file:///etc/passwd',
  'javascript:alert(1)',
  'data:text/html,<b>',
  'https://例え.jp/',
  'HTTP://EXAMPLE.COM',
  'a:b/c/d?e#f',
  'a:/[::1]',
  'x+y.z-w:q',
  'https://a.b/c d',
  'http://a/b\\c',
  'tel:+1-201-555-0123',
  'https://host/#a#b',
  'https://[::1',
];
const DATES = [
  '2025-01-31',
  '2024-02-29',
  '2023-02-29',
  '2025-13-01',
  '2025-00-10',
  '2025-04-31',
  '2025-1-01',
  '20250101',
  '0000-01-01',
  '9999-12-31',
  '2025-01-31T00:00:00Z',
  '1900-02-29',
  '2000-02-29',
  ' 2025-01-01',
  '２０２５-01-01',
];
const DATE_TIMES = [
  '2025-01-31T09:30:00Z',
  '2025-01-31t09:30:00z',
  '2025-01-31 09:30:00Z',
  '2025-01-31T09:30:00',
  '2025-01-31T09:30:00+01:00',
  '2025-01-31T09:30:00+0100',
  '2025-01-31T09:30:00+01',
  '2025-01-31T09:30:00.123456Z',
  '2025-01-31T24:00:00Z',
  '2025-01-31T23:59:60Z',
  '2025-01-31T22:59:60-01:00',
  '2025-01-31T23:59:60+01:00',
  '2025-01-31T12:60:00Z',
  '2025-01-31T12:00:61Z',
  '2025-02-30T12:00:00Z',
  '2025-01-31T12:00:00+24:00',
  '2025-01-31T12:00:00+23:60',
  '2025-01-31TT12:00:00Z',
  '2025-01-31T12:00Z',
  '2025-01-31T9:30:00Z',
  '2025-01-31T09:30:00.Z',
  '2025-01-31\t09:30:00Z',
  '2025-01-31T00:59:60+01:00',
  '2025-01-31T23:59:59.999-00:00',
];

function stringValue(r: Rng, format?: string): unknown {
  if (r.chance(0.08)) return r.pick([1, true, null, ['a'], { a: 1 }, 2.5]);
  if (format === 'email') return r.pick(EMAILS);
  if (format === 'uri') return r.pick(URIS);
  if (format === 'date') return r.pick(DATES);
  if (format === 'date-time') return r.pick(DATE_TIMES);
  return r.chance(0.8) ? r.pick(WORDS) : r.pick(WORDS) + r.pick(WORDS);
}

function numberValue(r: Rng, min?: number, max?: number): unknown {
  if (r.chance(0.08)) return r.pick(['1', true, null, [1]]);
  const near = [min, max].filter((x): x is number => x !== undefined);
  if (near.length && r.chance(0.5)) return r.pick(near) + r.pick([-1, -0.5, 0, 0, 0.5, 1]);
  return r.pick([0, 1, -1, 2.5, -3.75, 10, 100, 1e6, 0.1, 7, -0]);
}

interface Gen {
  schema: Record<string, unknown>;
  value: () => unknown;
}

function genField(r: Rng): Gen {
  const kind = r.pick(['string', 'string', 'enum', 'titled', 'number', 'integer', 'boolean', 'array'] as const);
  const annotate = (s: Record<string, unknown>) => {
    if (r.chance(0.3)) s.title = 'T';
    if (r.chance(0.3)) s.description = 'D';
    return s;
  };
  if (kind === 'string') {
    const s: Record<string, unknown> = { type: 'string' };
    const format = r.chance(0.35) ? r.pick(['email', 'uri', 'date', 'date-time']) : undefined;
    if (format) s.format = format;
    if (r.chance(0.35)) s.minLength = r.int(0, 3);
    if (r.chance(0.35)) s.maxLength = r.int(0, 6);
    if (!format && r.chance(0.4)) s.pattern = r.pick(PATTERNS);
    return { schema: annotate(s), value: () => stringValue(r, format) };
  }
  if (kind === 'enum' || kind === 'titled') {
    const options = Array.from(new Set(Array.from({ length: r.int(1, 4) }, () => r.pick(['a', 'b', 'c', 'ab', 'é', '😀', '']))));
    const s: Record<string, unknown> =
      kind === 'enum'
        ? { type: 'string', enum: options, ...(r.chance(0.3) ? { enumNames: options.map((o) => o.toUpperCase()) } : {}) }
        : { type: 'string', [r.pick(['oneOf', 'anyOf'])]: options.map((o) => ({ const: o, title: `T${o}` })) };
    if (r.chance(0.2)) delete s.type;
    return { schema: annotate(s), value: () => (r.chance(0.7) ? r.pick(options) : stringValue(r)) };
  }
  if (kind === 'number' || kind === 'integer') {
    const s: Record<string, unknown> = { type: kind };
    if (r.chance(0.5)) s.minimum = r.pick([0, 1, -5, 2.5, 10]);
    if (r.chance(0.5)) s.maximum = r.pick([0, 5, 10, 7.5, 100]);
    return { schema: annotate(s), value: () => numberValue(r, s.minimum as number | undefined, s.maximum as number | undefined) };
  }
  if (kind === 'boolean') return { schema: annotate({ type: 'boolean' }), value: () => (r.chance(0.85) ? r.chance(0.5) : r.pick(['true', 0, null])) };
  const options = Array.from(new Set(Array.from({ length: r.int(1, 4) }, () => r.pick(['x', 'y', 'z', 'w']))));
  const items: Record<string, unknown> = r.chance(0.5) ? { type: 'string', enum: options } : { anyOf: options.map((o) => ({ const: o, title: o })) };
  if (!('type' in items) && r.chance(0.5)) items.type = 'string';
  const s: Record<string, unknown> = { type: 'array', items };
  if (r.chance(0.4)) s.minItems = r.int(0, options.length);
  if (r.chance(0.4)) s.maxItems = r.int(0, 4);
  if (r.chance(0.3)) s.uniqueItems = true;
  const value = () => {
    if (r.chance(0.08)) return r.pick(['x', 1, null, [1], [null]]);
    return Array.from({ length: r.int(0, 4) }, () => (r.chance(0.85) ? r.pick(options) : r.pick(['v', 'X', ''])));
  };
  return { schema: annotate(s), value };
}

function genCase(r: Rng) {
  const names = ['name', 'pin', 'n', 'when', 'tags', 'ok', 'a b', 'ünï', ''];
  const count = r.int(1, 4);
  const properties: Record<string, unknown> = {};
  const gens: Record<string, Gen> = {};
  while (Object.keys(gens).length < count) {
    // Now and then a name like a built-in: refused at arrival (the server's validator misreads it).
    const name = r.chance(0.01) ? r.pick(['constructor', '__proto__', 'toString']) : r.pick(names);
    if (Object.hasOwn(gens, name)) continue;
    const g = genField(r);
    gens[name] = g;
    Object.defineProperty(properties, name, { value: g.schema, enumerable: true, writable: true, configurable: true });
  }
  // Defaults: mostly ones their field accepts (a few that it rejects, which are refused at arrival).
  for (const g of Object.values(gens)) {
    if (!r.chance(0.25)) continue;
    for (let tries = 0; tries < 4; tries++) {
      g.schema.default = g.value();
      const alone = admitElicitation({ message: '', requestedSchema: { type: 'object', properties: { f: g.schema } } });
      if (alone.ok || tries === 3 || r.chance(0.1)) break;
    }
  }
  const required = Object.keys(gens).filter(() => r.chance(0.5));
  const schema: Record<string, unknown> = { type: 'object', properties, ...(required.length ? { required } : {}) };
  if (r.chance(0.1)) schema.additionalProperties = false;
  const answers = Array.from({ length: 6 }, () => {
    const content: Record<string, unknown> = {};
    for (const [name, g] of Object.entries(gens)) {
      if (r.chance(0.8)) Object.defineProperty(content, name, { value: g.value(), enumerable: true, writable: true, configurable: true });
    }
    if (r.chance(0.05)) content.extra = 'typo';
    return content;
  });
  return { schema, answers };
}

/** The answer as the server receives it: the schema's defaults filled in for missing fields. */
function withDefaults(schema: Record<string, unknown>, content: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(content)) Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  for (const [k, p] of Object.entries(schema.properties as Record<string, Record<string, unknown>>)) {
    if (!Object.hasOwn(out, k) && p.default !== undefined)
      Object.defineProperty(out, k, { value: structuredClone(p.default), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

describe('differential: durable-mcp validation against the MCP SDK server check (Ajv)', () => {
  const seed = Number(process.env.DIFF_SEED ?? 1616);
  const cases = Number(process.env.DIFF_CASES ?? 1500);

  it(`gives the server's verdict on ${cases} generated schemas × 6 answers (seed ${seed})`, () => {
    const r = rng(seed);
    const ajv = sdkAjv();
    let compared = 0;
    let oneWay = 0;
    let refusedSchemas = 0;
    const verdicts = { accepted: 0, rejected: 0 };
    for (let c = 0; c < cases; c++) {
      const { schema, answers } = genCase(r);
      const admission = admitElicitation({ mode: 'form', message: 'm', requestedSchema: schema });
      if (!admission.ok) {
        // Only a default its own field rejects, or bounds no answer meets, may be refused here: all else is in the subset.
        assert.match(admission.message, /default|no answer can satisfy|distinct items|built-in/, `case ${c}: ${admission.message}\n${JSON.stringify(schema)}`);
        refusedSchemas++;
        continue;
      }
      const check = ajv.compile(structuredClone(schema));
      for (const content of answers) {
        const ours = validateElicitationContent(schema, content);
        const sent = withDefaults(schema, content);
        const server = check(structuredClone(sent));
        const where = `seed ${seed} case ${c}\nschema ${JSON.stringify(schema)}\nanswer ${JSON.stringify(content)}\ndurable-mcp: ${ours.ok ? 'accept' : ours.message}\nserver: ${server ? 'accept' : JSON.stringify(check.errors)}`;
        const props = schema.properties as Record<string, Record<string, unknown>>;
        const stricter =
          Object.keys(content).some((k) => !Object.hasOwn(props, k)) ||
          Object.entries(sent).some(([k, v]) => Array.isArray(v) && props[k]?.uniqueItems !== true && new Set(v).size !== v.length);
        if (ours.ok) {
          assert.ok(server, `durable-mcp accepted what the server rejects: ${where}`);
          assert.deepEqual(ours.data, sent, `the forwarded data is the answer with its defaults: ${where}`);
        }
        if (stricter) {
          assert.ok(!ours.ok, where);
          oneWay++;
          continue;
        }
        assert.equal(ours.ok, server, where);
        compared++;
        verdicts[server ? 'accepted' : 'rejected']++;
      }
    }
    // The generator must exercise both verdicts, and most schemas must be admitted.
    assert.ok(compared >= 5000, `compared ${compared}`);
    assert.ok(verdicts.accepted > 1000 && verdicts.rejected > 1000, JSON.stringify(verdicts));
    assert.ok(refusedSchemas < cases / 3, `refused ${refusedSchemas} of ${cases} schemas`);
    console.log(
      `# differential: ${compared} answers compared (${verdicts.accepted} accepted, ${verdicts.rejected} rejected), ${oneWay} one-way, ${refusedSchemas} schemas refused at arrival`,
    );
  });
});
