import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { postedToContent, rejectionByField, schemaFields, initialValues } from '../../src/inbox/form.js';
import { clickableUrl, timeLeft } from '../../src/inbox/page.js';
import { isLoopback } from '../../src/codec/access.js';
import { validateElicitationContent } from '../../src/contract/index.js';

const schema = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Name', minLength: 1 },
    when: { type: 'string', format: 'date-time' },
    age: { type: 'integer', minimum: 0 },
    ok: { type: 'boolean', default: true },
    color: { type: 'string', enum: ['r', 'g'], enumNames: ['Red', 'Green'] },
    size: { type: 'string', oneOf: [{ const: 's', title: 'Small' }], default: 's' },
    tags: {
      type: 'array',
      items: {
        anyOf: [
          { const: 'a', title: 'A' },
          { const: 'b', title: 'B' },
        ],
      },
      default: ['b'],
    },
  },
  required: ['name'],
};

describe('inbox form: requestedSchema as fields, a posted form as content', () => {
  it('reads every restricted type, with titles, required marks, labels and defaults', () => {
    const fields = schemaFields(schema);
    assert.deepEqual(
      fields.map((f) => [f.key, f.kind, f.required]),
      [
        ['name', 'text', true],
        ['when', 'text', false],
        ['age', 'number', false],
        ['ok', 'boolean', false],
        ['color', 'select', false],
        ['size', 'select', false],
        ['tags', 'multi', false],
      ],
    );
    assert.deepEqual((fields[4] as { choices: unknown }).choices, [
      { value: 'r', label: 'Red' },
      { value: 'g', label: 'Green' },
    ]);
    assert.deepEqual(initialValues(fields), { ok: ['true'], size: ['s'], tags: ['b'] });
  });

  it('turns posted strings into typed content the contract accepts: numbers, booleans, arrays, UTC date-times', () => {
    const fields = schemaFields(schema);
    const content = postedToContent(fields, { name: ['Ada'], when: ['2026-12-24T10:30'], age: ['36'], color: ['g'], size: ['s'], tags: ['a', 'b'] });
    assert.deepEqual(content, { name: 'Ada', when: '2026-12-24T10:30:00Z', age: 36, ok: false, color: 'g', size: 's', tags: ['a', 'b'] });
    assert.equal(validateElicitationContent(schema, content).ok, true);
  });

  it('leaves empty controls out and sends a non-number as typed, so that the workflow names the field', () => {
    const fields = schemaFields(schema);
    const content = postedToContent(fields, { name: [''], age: ['forty'], color: [''] });
    assert.deepEqual(content, { age: 'forty', ok: false });
    const check = validateElicitationContent(schema, content);
    assert.equal(check.ok, false);
    const split = rejectionByField(
      `answer data does not match the requested schema: ${check.ok ? '' : check.message}`,
      fields.map((f) => f.key),
    );
    assert.deepEqual(Object.keys(split.fields).sort(), ['age', 'name']);
    assert.equal(split.general, undefined);
  });

  it('keeps a reason that names no field of the form as a general rejection', () => {
    assert.deepEqual(rejectionByField('answer is 300000 bytes, over the limit', ['name']), { fields: {}, general: 'answer is 300000 bytes, over the limit' });
  });

  it('makes only http: and https: links clickable', () => {
    assert.deepEqual(clickableUrl('https://example.test/a?b=1'), { href: 'https://example.test/a?b=1', host: 'example.test' });
    assert.deepEqual(clickableUrl('http://127.0.0.1:8080/cb'), { href: 'http://127.0.0.1:8080/cb', host: '127.0.0.1:8080' });
    // The arrival rules (contract/admit.ts) again: http: only to a loopback host, no user info, printable ASCII.
    for (const bad of [
      'javascript:alert(1)',
      'JAVASCRIPT:alert(1)',
      'data:text/html,<script>',
      'vbscript:x',
      'file:///etc/passwd',
      'not a url',
      ' javascript:alert(1)',
      'http://evil.example/',
      'https://bank@evil.example/',
      'https://ex\u001bample.test/',
    ]) {
      assert.equal(clickableUrl(bad), undefined, bad);
    }
  });

  it('counts down, and says when a request has expired', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    assert.equal(timeLeft('2026-01-02T03:00:00Z', now), '1 d 3 h');
    assert.equal(timeLeft('2026-01-01T00:05:30Z', now), '5 min 30 s');
    assert.equal(timeLeft('2025-12-31T00:00:00Z', now), 'expired');
  });

  it('knows loopback addresses (anything else needs a token)', () => {
    for (const h of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]']) assert.equal(isLoopback(h), true, h);
    for (const h of ['0.0.0.0', '::', '192.168.1.2', 'example.test', '127.0.0.1.example.test']) assert.equal(isLoopback(h), false, h);
  });
});
