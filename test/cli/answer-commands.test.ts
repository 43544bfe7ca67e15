/**
 * The commands `agent` and `result` print under a pending request (src/cli/answer-commands.ts), pure: a form's example
 * answer passes the workflow's own check of an answer against the schema, an approval takes no `--data`, a URL-mode
 * request is answered after the visit, and what the server sent reaches the terminal escaped.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { answerCommandLines, exampleData, shellQuote } from '../../src/cli/answer-commands.js';
import { validateElicitationContent } from '../../src/contract/content.js';
import type { Request } from '../../src/contract/index.js';
import type { PendingContext } from '../../src/workflows/messages.js';

const context: PendingContext = { callId: 'c1', server: 'demo', tool: 'book_table' };

/** The --data of a printed line, as the shell hands it to the CLI (one single-quoted word). */
function dataOf(line: string): unknown {
  const m = /--data '((?:[^']|'\\'')*)'$/.exec(line);
  assert.ok(m, line);
  return JSON.parse(m[1]!.replace(/'\\''/g, "'"));
}

describe('the commands that answer a pending request', () => {
  const schemas: Array<[string, Record<string, unknown>]> = [
    ['a required string', { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }],
    [
      'formats, lengths and bounds',
      {
        type: 'object',
        properties: {
          date: { type: 'string', format: 'date' },
          when: { type: 'string', format: 'date-time' },
          email: { type: 'string', format: 'email' },
          site: { type: 'string', format: 'uri' },
          code: { type: 'string', minLength: 8, maxLength: 10 },
          guests: { type: 'integer', minimum: 1, maximum: 12 },
          ratio: { type: 'number', exclusiveMinimum: 0 },
          agree: { type: 'boolean' },
        },
        required: ['date', 'when', 'email', 'site', 'code', 'guests', 'ratio', 'agree'],
      },
    ],
    [
      'choices and defaults',
      {
        type: 'object',
        properties: {
          seating: { type: 'string', enum: ['inside', 'outside'] },
          size: {
            type: 'string',
            oneOf: [
              { const: 's', title: 'Small' },
              { const: 'l', title: 'Large' },
            ],
          },
          extras: { type: 'array', items: { type: 'string', enum: ['wine', "chef's table"] }, minItems: 1 },
          note: { type: 'string', default: "it's fine" },
          optional: { type: 'string' },
        },
        required: ['seating', 'size', 'extras'],
      },
    ],
  ];
  for (const [what, schema] of schemas) {
    it(`a form (${what}): the printed --data is an answer the workflow accepts`, () => {
      const request: Request = { id: 'c1.r1.x', kind: 'input', prompt: 'Details?', data: { schema } };
      // One clock for both: a date-time example is the time it is made.
      const now = new Date();
      const [line, decline] = answerCommandLines('wf-1', request, context, now);
      assert.match(line!, /^ {4}answer \(with your values\): npx durable-mcp answer wf-1 c1\.r1\.x --data '/);
      assert.equal(decline, '    decline: npx durable-mcp decline wf-1 c1.r1.x');
      const data = dataOf(line!);
      assert.deepEqual(data, exampleData(schema, now));
      if ('when' in data) assert.match(String(data.when), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/, 'a date-time example, to the second');
      const check = validateElicitationContent(schema, data);
      assert.ok(check.ok, `${what}: ${JSON.stringify(data)}: ${check.ok ? '' : check.message}`);
      assert.equal((data as Record<string, unknown>).optional, undefined, 'an optional field without a default is left out');
    });
  }

  it('an approval is answered without --data (the proposed arguments), a URL-mode request after the visit', () => {
    const approval: Request = {
      id: 'c1.approve.1',
      kind: 'input',
      prompt: 'Allow?',
      data: { schema: { type: 'object', properties: { guests: { type: 'integer' } } } },
    };
    assert.deepEqual(answerCommandLines('agent-1', approval, { ...context, approval: { annotations: {}, annotationsTrusted: false } as never }), [
      '    approve: npx durable-mcp answer agent-1 c1.approve.1',
      '    decline: npx durable-mcp decline agent-1 c1.approve.1',
    ]);
    const url: Request = { id: 'c1.r2', kind: 'authorization', prompt: 'Sign in', url: 'https://idp.example/x' };
    assert.deepEqual(answerCommandLines('agent-1', url, context), [
      '    visit the url above, then: npx durable-mcp answer agent-1 c1.r2',
      '    or refuse: npx durable-mcp decline agent-1 c1.r2',
    ]);
  });

  it('what the server sent is escaped: no raw control character reaches the terminal, and a workflow id is shell-quoted', () => {
    const schema = { type: 'object', properties: { 'x\u001b]0;pwned\u0007': { type: 'string', enum: ['a\u202eb'] } }, required: ['x\u001b]0;pwned\u0007'] };
    const request: Request = { id: 'c1.r1', kind: 'input', prompt: 'p', data: { schema } };
    const lines = answerCommandLines("it's mine", request, context).join('\n');
    // eslint-disable-next-line no-control-regex
    assert.doesNotMatch(lines, /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/);
    assert.match(lines, /\\u\{202e\}/);
    assert.match(lines, /answer 'it'\\''s mine' c1\.r1/);
    assert.equal(shellQuote('plain-id.1'), 'plain-id.1');
  });
});
