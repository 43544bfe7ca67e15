import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { validateElicitationContent, type ContentValidation, type ValidationIssue } from '../../src/contract/content.js';

/** One restricted schema (MCP 2025-11-25) using every supported property kind. */
const SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Name', minLength: 2, maxLength: 10 },
    email: { type: 'string', format: 'email' },
    website: { type: 'string', format: 'uri' },
    birthday: { type: 'string', format: 'date' },
    meetingAt: { type: 'string', format: 'date-time' },
    code: { type: 'string', pattern: '^[A-Z]{3}$' },
    score: { type: 'number', minimum: 0, maximum: 10 },
    age: { type: 'integer', minimum: 1, maximum: 120 },
    subscribe: { type: 'boolean', default: false },
    color: { type: 'string', enum: ['red', 'green'] },
    size: { type: 'string', enum: ['s', 'm', 'l'], enumNames: ['Small', 'Medium', 'Large'] },
    priority: {
      type: 'string',
      oneOf: [
        { const: 'low', title: 'Low' },
        { const: 'high', title: 'High' },
      ],
      default: 'low',
    },
    tone: {
      type: 'string',
      anyOf: [
        { const: 'formal', title: 'Formal' },
        { const: 'casual', title: 'Casual' },
      ],
    },
    tags: { type: 'array', items: { type: 'string', enum: ['a', 'b', 'c'] }, minItems: 1, maxItems: 2 },
    features: {
      type: 'array',
      items: {
        anyOf: [
          { const: 'x', title: 'X' },
          { const: 'y', title: 'Y' },
        ],
      },
      minItems: 1,
      maxItems: 2,
      default: ['x'],
    },
    nickname: { type: 'string', default: 'friend' },
    retries: { type: 'integer', default: 3 },
  },
  required: ['name', 'email', 'age'],
} as const;

const SCHEMA_SNAPSHOT = JSON.stringify(SCHEMA);

/** A complete valid content object; individual tests override one field. */
const VALID = {
  name: 'Ada',
  email: 'ada@example.com',
  website: 'https://example.com/path?q=1',
  birthday: '2024-02-29',
  meetingAt: '2025-11-25T09:30:00.123+01:00',
  code: 'ABC',
  score: 7.5,
  age: 36,
  subscribe: true,
  color: 'green',
  size: 'm',
  priority: 'high',
  tone: 'casual',
  tags: ['a', 'c'],
  features: ['x', 'y'],
  nickname: 'ada',
  retries: 5,
};

function validate(content: unknown, schema: unknown = SCHEMA): ContentValidation {
  return validateElicitationContent(schema, content);
}

function expectOk(result: ContentValidation): Record<string, unknown> {
  if (!result.ok) assert.fail(`expected ok, got issues: ${result.message}`);
  return result.data;
}

function expectIssues(result: ContentValidation): ValidationIssue[] {
  if (result.ok) assert.fail(`expected issues, got ok: ${JSON.stringify(result.data)}`);
  assert.ok(result.issues.length > 0);
  assert.equal(result.message, result.issues.map((i) => i.message).join('; '));
  return result.issues;
}

/** Overrides one field of VALID, expects exactly that field to be rejected, returns its issue. */
function rejectField(field: string, value: unknown, messagePart?: string | RegExp): ValidationIssue {
  const issues = expectIssues(validate({ ...VALID, [field]: value }));
  assert.deepEqual(
    issues.map((i) => i.field),
    issues.map(() => field),
    `only ${field} should be rejected: ${JSON.stringify(issues)}`,
  );
  const issue = issues[0];
  assert.ok(issue.message.includes(`"${field}"`), `message should name the field: ${issue.message}`);
  if (typeof messagePart === 'string') assert.ok(issue.message.includes(messagePart), `${issue.message} ⊅ ${messagePart}`);
  else if (messagePart) assert.match(issue.message, messagePart);
  return issue;
}

function acceptField(field: string, value: unknown): void {
  const data = expectOk(validate({ ...VALID, [field]: value }));
  assert.deepEqual(data[field], value);
}

describe('validateElicitationContent', () => {
  it('accepts a complete valid form and returns every field', () => {
    const data = expectOk(validate(VALID));
    assert.deepEqual(data, VALID);
  });

  describe('string with minLength/maxLength', () => {
    it('accepts a string within the length bounds', () => acceptField('name', 'Grace'));
    it('rejects a string shorter than minLength and names the field', () => {
      const issue = rejectField('name', 'A', 'at least 2 characters');
      assert.ok(issue.message.includes('"A"'));
    });
    it('rejects a string longer than maxLength', () => void rejectField('name', 'A'.repeat(11), 'at most 10 characters'));
    it('counts code points, not UTF-16 units, for length', () => acceptField('name', '😀😀'));
    it('rejects a non-string value for a string field', () => assert.equal(rejectField('name', 42).message, 'field "name": must be a string, got 42'));
  });

  describe('string formats', () => {
    it('accepts a valid email', () => acceptField('email', 'first.last+tag@sub.example.org'));
    it('rejects an invalid email and names the field', () =>
      assert.equal(rejectField('email', 'nope').message, 'field "email": must be a valid email address, got "nope"'));

    it('accepts a valid uri', () => acceptField('website', 'mailto:ada@example.com'));
    it('rejects a uri without a scheme', () => void rejectField('website', 'example.com/path', 'valid URI'));
    it('rejects a uri containing spaces', () => void rejectField('website', 'https://exa mple.com', 'valid URI'));

    it('accepts a valid calendar date', () => acceptField('birthday', '1990-12-31'));
    it('rejects an impossible calendar date', () => void rejectField('birthday', '2023-02-29', 'valid date (YYYY-MM-DD), got "2023-02-29"'));
    it('rejects a date in the wrong shape', () => void rejectField('birthday', '31/12/1990', 'valid date'));

    it('accepts an RFC 3339 date-time with Z', () => acceptField('meetingAt', '2025-01-31T23:59:60Z'));
    it('rejects a date-time without an offset', () => void rejectField('meetingAt', '2025-01-31T09:30:00', 'RFC 3339'));
    it('rejects a date-time with an impossible hour', () => void rejectField('meetingAt', '2025-01-31T24:00:00Z', 'RFC 3339'));

    it('accepts a string matching pattern', () => acceptField('code', 'XYZ'));
    it('rejects a string not matching pattern', () => void rejectField('code', 'xyz', 'must match pattern'));
  });

  describe('number with minimum/maximum', () => {
    it('accepts a fractional number within bounds', () => acceptField('score', 0.5));
    it('rejects a number above maximum and names the field', () => assert.equal(rejectField('score', 10.5).message, 'field "score": must be <= 10, got 10.5'));
    it('rejects a number below minimum', () => void rejectField('score', -1, 'must be >= 0, got -1'));
    it('rejects a numeric string', () => void rejectField('score', '5', 'must be a number, got "5"'));
    it('rejects NaN', () => void rejectField('score', Number.NaN, 'got NaN'));
    it('rejects Infinity', () => void rejectField('score', Number.POSITIVE_INFINITY, 'got Infinity'));
  });

  describe('integer with minimum/maximum', () => {
    it('accepts an integer within bounds', () => acceptField('age', 120));
    it('rejects an integer field given 3.5 and names the field', () =>
      assert.equal(rejectField('age', 3.5).message, 'field "age": must be an integer, got 3.5'));
    it('rejects an integer below minimum', () => assert.equal(rejectField('age', 0).message, 'field "age": must be >= 1, got 0'));
    it('rejects an integer above maximum', () => void rejectField('age', 121, 'must be <= 120, got 121'));
  });

  describe('boolean', () => {
    it('accepts false', () => acceptField('subscribe', false));
    it('rejects the string "true" and names the field', () =>
      assert.equal(rejectField('subscribe', 'true').message, 'field "subscribe": must be a boolean, got "true"'));
  });

  describe('single-select enums', () => {
    it('accepts a value from enum', () => acceptField('color', 'red'));
    it('rejects a value outside enum and lists the options', () =>
      assert.equal(rejectField('color', 'blue').message, 'field "color": must be one of "red", "green", got "blue"'));

    it('accepts a value from enum with legacy enumNames', () => acceptField('size', 'l'));
    it('rejects a display label from enumNames (only values are allowed)', () =>
      void rejectField('size', 'Large', 'must be one of "s", "m", "l", got "Large"'));

    it('accepts a const from a titled oneOf enum', () => acceptField('priority', 'low'));
    it('rejects a title (not a const) for a titled oneOf enum', () => void rejectField('priority', 'High', 'must be one of "low", "high", got "High"'));

    it('accepts a const from a titled anyOf enum', () => acceptField('tone', 'formal'));
    it('rejects a value outside a titled anyOf enum', () => void rejectField('tone', 'rude', 'must be one of "formal", "casual"'));
  });

  describe('multi-select arrays', () => {
    it('accepts items from items.enum within minItems/maxItems', () => acceptField('tags', ['b']));
    it('rejects an item outside items.enum and names the field', () => void rejectField('tags', ['a', 'z'], 'item 1 must be one of "a", "b", "c", got "z"'));
    it('rejects fewer than minItems', () => void rejectField('tags', [], 'at least 1 item'));
    it('rejects more than maxItems', () => void rejectField('tags', ['a', 'b', 'c'], 'at most 2 items'));
    it('rejects a bare string instead of an array', () => void rejectField('tags', 'a', 'must be an array of strings, got "a"'));

    it('accepts items from items.anyOf consts', () => acceptField('features', ['y']));
    it('rejects an item outside items.anyOf consts', () => void rejectField('features', ['x', 'Y'], 'got "Y"'));
    it('rejects more than maxItems for items.anyOf', () => void rejectField('features', ['x', 'y', 'x'], 'at most 2 items'));

    it('rejects duplicate items in a multi-select', () =>
      assert.equal(rejectField('tags', ['a', 'a']).message, 'field "tags": must not contain duplicates, got "a" more than once'));
  });

  describe('defaults and required', () => {
    it('applies defaults for absent fields', () => {
      const data = expectOk(validate({ name: 'Ada', email: 'ada@example.com', age: 36 }));
      assert.deepEqual(data, {
        name: 'Ada',
        email: 'ada@example.com',
        age: 36,
        subscribe: false,
        priority: 'low',
        features: ['x'],
        nickname: 'friend',
        retries: 3,
      });
    });

    it('does not override supplied values with defaults', () => {
      const data = expectOk(validate({ name: 'Ada', email: 'ada@example.com', age: 36, subscribe: true, retries: 0 }));
      assert.equal(data.subscribe, true);
      assert.equal(data.retries, 0);
    });

    it('satisfies a required field from its default', () => {
      const schema = { type: 'object', properties: { mode: { type: 'string', default: 'auto' } }, required: ['mode'] };
      assert.deepEqual(expectOk(validate({}, schema)), { mode: 'auto' });
    });

    it('reports every missing required field by name', () => {
      const issues = expectIssues(validate({ name: 'Ada' }));
      assert.deepEqual(issues, [
        { field: 'email', message: 'field "email": is required' },
        { field: 'age', message: 'field "age": is required' },
      ]);
    });

    it('does not share the default array with the schema or mutate inputs', () => {
      const schema = structuredClone(SCHEMA);
      const content = { name: 'Ada', email: 'ada@example.com', age: 36 };
      const data = expectOk(validate(content, schema));
      (data.features as string[]).push('y');
      assert.deepEqual(schema.properties.features.default, ['x']);
      assert.deepEqual(content, { name: 'Ada', email: 'ada@example.com', age: 36 });
      assert.equal(JSON.stringify(SCHEMA), SCHEMA_SNAPSHOT);
    });
  });

  describe('object-level checks', () => {
    it('rejects an unknown key and names it', () => {
      const issues = expectIssues(validate({ ...VALID, foo: 1 }));
      assert.deepEqual(issues, [{ field: 'foo', message: 'field "foo": is not in the requested schema' }]);
    });

    it('rejects an own __proto__ key as unknown without touching the prototype', () => {
      const content = JSON.parse('{"name":"Ada","email":"ada@example.com","age":36,"__proto__":{"x":1}}') as unknown;
      const issues = expectIssues(validate(content));
      assert.deepEqual(
        issues.map((i) => i.field),
        ['__proto__'],
      );
    });

    it('rejects array content with a single issue on field ""', () => {
      const result = validate(['a']);
      assert.deepEqual(result, {
        ok: false,
        issues: [{ field: '', message: 'data must be an object, got array' }],
        message: 'data must be an object, got array',
      });
    });

    it('rejects null and string content', () => {
      assert.deepEqual(expectIssues(validate(null)), [{ field: '', message: 'data must be an object, got null' }]);
      assert.deepEqual(expectIssues(validate('hi')), [{ field: '', message: 'data must be an object, got string' }]);
    });

    it('joins several issues with "; " in the message', () => {
      const result = validate({ ...VALID, age: 3.5, color: 'blue' });
      assert.equal(result.ok, false);
      if (!result.ok) {
        assert.equal(result.message, 'field "age": must be an integer, got 3.5; field "color": must be one of "red", "green", got "blue"');
      }
    });
  });

  describe('malformed or empty requested schemas', () => {
    it('treats a schema without properties as having no fields', () => {
      assert.deepEqual(expectOk(validate({}, { type: 'object' })), {});
      assert.deepEqual(expectOk(validateElicitationContent(undefined, {})), {});
      assert.deepEqual(expectOk(validateElicitationContent(null, {})), {});
      const issues = expectIssues(validate({ a: 1 }, { type: 'object', properties: [] }));
      assert.deepEqual(issues, [{ field: 'a', message: 'field "a": is not in the requested schema' }]);
    });

    it('reports a property with an unsupported type by name instead of throwing', () => {
      const schema = { type: 'object', properties: { x: { type: 'object' }, y: { type: 'string' } } };
      const issues = expectIssues(validate({ y: 'ok' }, schema));
      assert.deepEqual(issues, [{ field: 'x', message: 'field "x": unsupported schema type "object"' }]);
    });

    it('reports a property schema that is not an object, or has a bad enum or pattern', () => {
      const schema = {
        type: 'object',
        properties: {
          a: 'string',
          b: { type: 'string', enum: [1, 2] },
          c: { type: 'string', pattern: '(' },
          d: { type: 'array', items: { type: 'string' } },
        },
      };
      const issues = expectIssues(validate({}, schema));
      assert.deepEqual(
        issues.map((i) => i.field),
        ['a', 'b', 'c', 'd'],
      );
      for (const i of issues) assert.ok(i.message.startsWith(`field "${i.field}": `), i.message);
    });

    it('reports an invalid schema default against the field', () => {
      const schema = { type: 'object', properties: { n: { type: 'integer', minimum: 5, default: 1 } } };
      const issues = expectIssues(validate({}, schema));
      assert.deepEqual(issues, [{ field: 'n', message: 'field "n": must be >= 5, got 1 (schema default)' }]);
    });
  });
});
