import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
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
  it('shows a URL-mode request with its host', () => {
    const lines = pendingEntryLines(
      'wf-2',
      { id: 'r', kind: 'authorization', prompt: 'Sign in', url: 'https://login.example.test/x' },
      { callId: 'c', server: 's', tool: 't', host: 'login.example.test' },
    );
    assert.equal(lines[2], '    url: https://login.example.test/x  (host: login.example.test)');
  });
});

describe('terminal output of a tool result', () => {
  it('keeps line breaks and tabs, escapes every other control character, and leaves backslashes alone', async () => {
    const { terminalText } = await import('../../src/cli/terminal.js');
    assert.equal(terminalText('line 1\n\tC:\\temp\u001b]8;;https://evil\u0007\r\nend'), 'line 1\n\tC:\\temp\\e]8;;https://evil\\a\\r\nend');
  });
});
