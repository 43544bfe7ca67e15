import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toToolResult } from '../../src/mcp/result.js';

describe('the tool result shape { output, isError, metadata }', () => {
  it('structured content wins over text (a Python tool declared `-> str` returns {"result": …})', () => {
    const r = toToolResult({ content: [{ type: 'text', text: 'hi' }], structuredContent: { result: 'hi' } });
    assert.deepEqual(r, { output: '{"result":"hi"}', isError: false });
  });

  it('an error result is its joined text, never the structured content', () => {
    const r = toToolResult({
      content: [
        { type: 'text', text: 'bad' },
        { type: 'text', text: 'worse' },
      ],
      structuredContent: { x: 1 },
      isError: true,
    });
    assert.deepEqual(r, { output: 'bad\nworse', isError: true });
  });

  it('keeps annotations of text parts, the parts that are not text, and _meta in metadata', () => {
    const image = { type: 'image', data: 'AAAA', mimeType: 'image/png' };
    const r = toToolResult({
      content: [{ type: 'text', text: 'for you', annotations: { audience: ['user'], priority: 1 } }, image, { type: 'text', text: 'plain' }],
      _meta: { trace: 'x' },
    });
    assert.deepEqual(r, {
      output: 'for you\nplain',
      isError: false,
      metadata: { _meta: { trace: 'x' }, content: [image], text: [{ index: 0, annotations: { audience: ['user'], priority: 1 } }] },
    });
  });
});
