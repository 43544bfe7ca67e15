import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { answeredBy, historyLines } from '../../src/cli/commands/history.js';
import { pendingEntryLines, terminalSafe } from '../../src/cli/terminal.js';

const hostilePrompt =
  'Confirm\u001b]0;pwned\u0007 the \u001b[2Ktransfer\r\nwf-forged  c9.9.ffff  input  evil/tool\n    url: https://evil.test\n\u009b31mred\u202eevil';

describe('terminal output of server text', () => {
  it('shows ESC, BEL, CR, C1 and bidi controls as visible escapes', () => {
    assert.equal(terminalSafe('a\u001b[2Kb\u0007c\rd\te\u0000f\u009bg\u202eh\u2028i'), 'a\\e[2Kb\\ac\\rd\\te\\x00f\\x9bg\\u{202e}h\\u{2028}i');
  });
  it('prints a hostile prompt so that no line begins like an entry or forges a detail line, with field names quoted', () => {
    const lines = pendingEntryLines(
      'wf-1',
      {
        id: 'c1.1.abc',
        kind: 'input',
        prompt: hostilePrompt,
        data: { schema: { type: 'object', properties: { 'ok\u001b[31m': { type: 'boolean' } }, required: ['ok\u001b[31m'] } },
        expiresAt: '2026-12-01T00:00:00.000Z',
      },
      { callId: 'c1', server: 'hostile', tool: 'control_prompt' },
    );
    const output = lines.join('\n');
    // eslint-disable-next-line no-control-regex
    assert.ok(!/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/.test(output), 'no raw control character reaches the terminal');
    assert.deepEqual(lines, [
      'wf-1  c1.1.abc  input  hostile/control_prompt',
      '    Confirm\\e]0;pwned\\a the \\e[2Ktransfer\\r',
      '    | wf-forged  c9.9.ffff  input  evil/tool',
      '    |     url: https://evil.test',
      '    | \\x9b31mred\\u{202e}evil',
      '    fields: "ok\\u001b[31m"*:boolean',
      '    expires: 2026-12-01T00:00:00.000Z',
    ]);
    const entries = lines.filter((l) => !l.startsWith(' '));
    assert.deepEqual(entries, [lines[0]], 'only the real entry line starts at column 0');
    assert.deepEqual(
      lines.filter((l) => /^ {4}url: /.test(l)),
      [],
      'no forged url: detail line',
    );
  });
  it("shows each enum field's choices (plain, enumNames, titled oneOf/anyOf, arrays of them), a hostile one quoted and escaped", () => {
    const lines = pendingEntryLines(
      'wf-3',
      {
        id: 'r',
        kind: 'input',
        prompt: 'Book a table',
        data: {
          schema: {
            type: 'object',
            properties: {
              seating: { type: 'string', enum: ['inside', 'outside'] },
              color: { type: 'string', enum: ['r', 'g'], enumNames: ['Red', 'Green'] },
              size: {
                type: 'string',
                oneOf: [
                  { const: 's', title: 'Small' },
                  { const: 'l', title: 'Large' },
                ],
              },
              tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] } },
              extras: { type: 'array', items: { anyOf: [{ const: 'x', title: 'X\u202eevil' }] } },
              trap: { type: 'string', enum: ['a|b', 'c) , "forged":string (d', 'e\u001b[2K'] },
            },
            required: ['seating'],
          },
        },
      },
      { callId: 'c', server: 's', tool: 't' },
    );
    assert.equal(
      lines.find((l) => l.startsWith('    fields: ')),
      '    fields: "seating"*:string (inside|outside), "color":string (r "Red"|g "Green"), "size":string (s "Small"|l "Large"), ' +
        '"tags":array (a|b), "extras":array (x "X\\u{202e}evil"), "trap":string ("a|b"|"c) , \\"forged\\":string (d"|"e\\u001b[2K")',
    );
  });
  it('shows a URL-mode request with its host', () => {
    const lines = pendingEntryLines(
      'wf-2',
      { id: 'r', kind: 'authorization', prompt: 'Sign in', url: 'https://login.example.test/x' },
      { callId: 'c', server: 's', tool: 't', host: 'login.example.test' },
    );
    assert.equal(lines[2], '    url: https://login.example.test/x  (host: login.example.test)');
  });
  it('names who asked through Nexus (namespace/workflow), escaped', () => {
    const lines = pendingEntryLines(
      'mcp-nexus-1',
      { id: 'r', kind: 'input', prompt: 'Name?' },
      { callId: 'c', server: 's', tool: 't', caller: { namespace: 'caller-py', workflowId: 'order\u202e-42' } },
    );
    assert.ok(lines.includes('    asked by: caller-py/order\\u{202e}-42 (Nexus)'), lines.join('\n'));
  });
});

describe('terminal output of a tool result', () => {
  it('keeps line breaks and tabs, escapes every other control character, and leaves backslashes alone', async () => {
    const { terminalText } = await import('../../src/cli/terminal.js');
    assert.equal(terminalText('line 1\n\tC:\\temp\u001b]8;;https://evil\u0007\r\nend'), 'line 1\n\tC:\\temp\\e]8;;https://evil\\a\\r\nend');
  });
});

describe("the worker's log and auth lines: outside text escaped (issue 31)", () => {
  it("logSafe escapes every string of the metadata, an error's message, stack header, cause and details, and keeps JSON valid", async () => {
    const { logSafe } = await import('../../src/telemetry/worker-log.js');
    const cause = new Error('stderr:\n\u001b[31mPWNED');
    const err = Object.assign(new Error('failed\r\n2026-01-01T00:00:00.000Z [ERROR] forged', { cause }), { details: ['x\u202ey'] });
    const stamp = Symbol('stamp');
    const safe = logSafe({ error: err, note: 'a\u0007b', n: 3, [stamp]: 1n }) as Record<string | symbol, any>;
    assert.equal(safe.note, 'a\\ab');
    assert.equal(safe.n, 3);
    assert.equal(safe[stamp], 1n, "the SDK's symbol keys are kept");
    assert.equal(safe.error.message, 'failed\\r\\n2026-01-01T00:00:00.000Z [ERROR] forged');
    assert.ok(safe.error.stack.startsWith('Error: failed\\r\\n2026'), safe.error.stack);
    assert.match(safe.error.stack, /\n {4}at /, 'the frames stay one a line');
    assert.equal(safe.error.cause.message, 'stderr:\\n\\e[31mPWNED');
    assert.deepEqual(safe.error.details, ['x\\u{202e}y']);
    const json = JSON.stringify({ note: safe.note, message: safe.error.message });
    assert.deepEqual(JSON.parse(json), { note: 'a\\ab', message: 'failed\\r\\n2026-01-01T00:00:00.000Z [ERROR] forged' });
  });
  it("an auth line shows an authorization server's issuer and scopes escaped", async () => {
    const { loginLine } = await import('../../src/cli/commands/auth.js');
    const line = loginLine({
      server: 'remote',
      principal: 'shared',
      state: 'signed-in',
      issuer: 'https://as.example\u001b]0;pwned\u0007',
      scopes: 'read\nremote: signed-out',
      generation: 1,
      refreshable: false,
      waiting: 0,
    });
    assert.equal(line, 'remote: signed-in, at https://as.example\\e]0;pwned\\a, scopes read\\nremote: signed-out');
  });
});

describe('history lines (durable-mcp history)', () => {
  const row = {
    id: 'c1.1.abc',
    kind: 'input' as const,
    server: 'fx',
    tool: 'transfer',
    prompt: 'Allow\u001b[2K it',
    outcome: 'accepted' as const,
    by: 'ana@example.com\u202e',
    at: '2026-12-05T10:00:00.000Z',
    workflowId: 'wf-1',
    runId: 'r',
    workflowType: 'mcpToolCall',
    status: 'COMPLETED',
  };
  it('prints when, workflow, request, outcome, the tool with its prompt, whom it was for, who and via which channel, escaped', () => {
    assert.deepEqual(historyLines({ ...row, source: 'oidc', assignees: { users: ['ana@example.com'], roles: ['finance'] } }), [
      '2026-12-05T10:00:00.000Z  wf-1  c1.1.abc  accepted',
      '    fx/transfer: Allow\\e[2K it',
      '    for: ana@example.com, role finance',
      '    by ana@example.com\\u{202e}, via oidc',
    ]);
    assert.equal(historyLines(row).at(-1), '    by ana@example.com\\u{202e}, via signal or update (unverified)');
  });
  it('prints how strongly the worker knows who answered (its assurance), and a claimed source as claimed, naming what it claimed', () => {
    const by = '    by ana@example.com\\u{202e}, via ';
    assert.equal(historyLines({ ...row, source: 'oidc', assurance: 'issuer-verified' }).at(-1), `${by}oidc (issuer-verified)`);
    assert.equal(historyLines({ ...row, source: 'cli', assurance: 'claimed' }).at(-1), `${by}cli (claimed)`);
    assert.equal(historyLines({ ...row, assurance: 'claimed' }).at(-1), `${by}signal or update (claimed)`);
    assert.equal(historyLines({ ...row, source: 'claimed', claimed: 'oidc', assurance: 'claimed' }).at(-1), `${by}claimed (named oidc, not proved)`);
  });
  it("prints a field of the record it does not know by its name (a newer record's), escaped", () => {
    const newer = { ...row, source: 'cli', reviewed: true, issuer: 'https://id.example\u001b]0;x' };
    assert.equal(historyLines(newer).at(-1), '    by ana@example.com\\u{202e}, via cli; reviewed: true; issuer: https://id.example\\e]0;x');
  });
  it('--by names a person whole, case-insensitive: an email, a subject after sub=, a role; never part of a longer name', () => {
    assert.ok(answeredBy('ana@example.com, bob@example.com', 'BOB@example.com'));
    assert.ok(answeredBy('ana@example.com (oidc https://id.example.com sub=248289761001)', '248289761001'));
    assert.ok(answeredBy('role:finance (link)', 'role:finance'));
    assert.ok(answeredBy('ana@example.com (link)', 'ana@example.com (link)'));
    assert.ok(!answeredBy('banana@example.com', 'ana@example.com'));
    assert.ok(!answeredBy('ana@example.com.evil', 'ana@example.com'));
    assert.ok(!answeredBy('ana@example.com', ' '));
  });
});
