/**
 * The SEP-2243 rules of src/mcp/param-headers.ts on their own (the worker-level test is test/workflows/protocol.test.ts;
 * the conformance scenarios http-custom-headers and http-invalid-tool-headers check the same).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeParamValue, paramHeaders, scanParamHeaders } from '../../src/mcp/param-headers.js';

const b64 = (s: string) => `=?base64?${Buffer.from(s, 'utf8').toString('base64')}?=`;
const tool = (properties: Record<string, unknown>) => ({ type: 'object', properties });

describe('x-mcp-header values', () => {
  it('sends printable ASCII as it is, anything else as the base64 sentinel', () => {
    for (const plain of ['us-west1', 'us west 1', '', '42', 'a=?base64?b']) assert.equal(encodeParamValue(plain), plain, JSON.stringify(plain));
    for (const coded of ['Hello, 世界', ' padded ', ' lead', 'trail ', 'line1\nline2', 'a\r\nb', '\tindented', 'a\tb', 'bell\u0007', '=?base64?abc?=']) {
      assert.equal(encodeParamValue(coded), b64(coded), JSON.stringify(coded));
    }
  });

  it('mirrors strings, integers and booleans; omits null, absent, non-integral and unsafe numbers', () => {
    const scan = scanParamHeaders(
      tool({
        s: { type: 'string', 'x-mcp-header': 'S' },
        i: { type: 'integer', 'x-mcp-header': 'I' },
        b: { type: 'boolean', 'x-mcp-header': 'B' },
        n: { type: 'object', properties: { deep: { type: 'string', 'x-mcp-header': 'Deep' } } },
        gone: { type: 'string', 'x-mcp-header': 'Gone' },
        nil: { type: 'string', 'x-mcp-header': 'Nil' },
        big: { type: 'integer', 'x-mcp-header': 'Big' },
        plain: { type: 'string' },
      }),
    );
    assert.ok(scan.valid);
    const headers = paramHeaders(scan.headers, { s: 'x', i: 7, b: true, n: { deep: 'd' }, nil: null, big: 2 ** 60, plain: 'p' });
    assert.deepEqual(headers, { 'Mcp-Param-S': 'x', 'Mcp-Param-I': '7', 'Mcp-Param-B': 'true', 'Mcp-Param-Deep': 'd' });
  });
});

describe('x-mcp-header declarations', () => {
  const invalid: Array<[string, Record<string, unknown>, RegExp]> = [
    ['empty', tool({ v: { type: 'string', 'x-mcp-header': '' } }), /must be a non-empty string/],
    ['object', tool({ v: { type: 'object', 'x-mcp-header': 'V' } }), /string, integer or boolean property, not "object"/],
    ['array', tool({ v: { type: 'array', items: { type: 'string' }, 'x-mcp-header': 'V' } }), /not "array"/],
    ['null', tool({ v: { type: 'null', 'x-mcp-header': 'V' } }), /not "null"/],
    ['number', tool({ v: { type: 'number', 'x-mcp-header': 'V' } }), /not "number"/],
    ['no type', tool({ v: { 'x-mcp-header': 'V' } }), /not null/],
    ['duplicate', tool({ a: { type: 'string', 'x-mcp-header': 'Region' }, b: { type: 'string', 'x-mcp-header': 'Region' } }), /declared twice/],
    ['duplicate, other case', tool({ a: { type: 'string', 'x-mcp-header': 'MyField' }, b: { type: 'string', 'x-mcp-header': 'myfield' } }), /declared twice/],
    ['space', tool({ v: { type: 'string', 'x-mcp-header': 'My Region' } }), /not an HTTP token/],
    ['colon', tool({ v: { type: 'string', 'x-mcp-header': 'Region:Primary' } }), /not an HTTP token/],
    ['non-ASCII', tool({ v: { type: 'string', 'x-mcp-header': 'Région' } }), /not an HTTP token/],
    ['control', tool({ v: { type: 'string', 'x-mcp-header': 'Region\t1' } }), /not an HTTP token/],
    ['under items', tool({ v: { type: 'array', items: { type: 'string', 'x-mcp-header': 'V' } } }), /reached through "properties" alone/],
    ['under anyOf', { type: 'object', anyOf: [{ properties: { v: { type: 'string', 'x-mcp-header': 'V' } } }] }, /reached through "properties" alone/],
    ['under $defs', { type: 'object', $defs: { d: { type: 'string', 'x-mcp-header': 'V' } } }, /reached through "properties" alone/],
    ['on the root', { type: 'string', 'x-mcp-header': 'V' }, /the schema root/],
  ];
  for (const [what, schema, reason] of invalid) {
    it(`a tool is invalid with a declaration that is ${what}`, () => {
      const scan = scanParamHeaders(schema);
      assert.equal(scan.valid, false);
      assert.match((scan as { reason: string }).reason, reason);
    });
  }

  it('a tool without declarations is valid with none', () => {
    assert.deepEqual(scanParamHeaders(tool({ q: { type: 'string' } })), { valid: true, headers: [] });
    assert.deepEqual(scanParamHeaders(undefined), { valid: true, headers: [] });
  });
});
