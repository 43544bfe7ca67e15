/**
 * Issue 31, item 6: what a hostile MCP server or authorization server sends reaches neither the terminal nor the
 * worker's log raw. The real CLI on a pseudo-terminal (util-linux `script`), a worker process, the hostile fixture
 * server (a progress message and a tool description with ANSI sequences, a title change, CR/LF and a bidi override),
 * a server that dies writing ANSI codes and a forged log entry to its stderr, and a login whose issuer and scopes (what
 * an authorization server sent) hold the same.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { loginWorkflowId } from '../../src/contract/login.js';
import { hostileServerPath } from '../fixtures/paths.js';
import { tempDir } from '../helpers/temporal.js';
import { cliHarness, runOnTerminal } from '../helpers/cli.js';

/** The hostile text of the fixture (test/fixtures/hostile-server.ts) as the terminal and the log must show it. */
const HOSTILE_ESCAPED = 'ok\\e]0;pwned\\a\\e[2K\\r\\n[####] 2/2 forged\\u{202e}evil';
/** What must never reach a terminal or the log raw: the title change, the erase-line, the bidi override. */
// eslint-disable-next-line no-control-regex
const RAW = /\u001b\]0;pwned|\u0007|\u202e|2\/2 forged\u202e/;

/** A stdio "server" that dies at start, writing ANSI codes and a forged log entry to its stderr. */
const CRASHY_STDERR = '\u001b[31mPWNED\u001b[0m\n2026-01-01T00:00:00.000Z [ERROR] forged entry\u202e';
const crashy = { command: [process.execPath, '-e', `process.stderr.write(${JSON.stringify(CRASHY_STDERR)}); process.exit(1)`] };

describe('a hostile server on the terminal and in the worker log (real CLI on a pty, worker process, hostile fixture server)', () => {
  const h = cliHarness({ extraServers: { hostile: { command: [process.execPath, hostileServerPath] }, crashy } });

  it("call --wait draws the server's progress message escaped: no title change, erased line, forged bar or bidi override", async () => {
    await h.startWorkerProcess();
    const until = join(tempDir('cli-hostile-'), 'go-on');
    const call = runOnTerminal(
      ['call', 'hostile', 'control_progress', '--args', JSON.stringify({ until }), '--wait', '--workflow-id', 'cli-hostile-progress'],
      h.cliEnv,
    );
    try {
      await call.waitFor(/\[#{15}\.{15}\] 1\/2 ok/);
      writeFileSync(until, '');
      assert.equal(await call.exited, 0, call.output());
    } finally {
      call.child.kill('SIGKILL');
    }
    const out = call.output();
    assert.ok(out.includes(`] 1/2 ${HOSTILE_ESCAPED}`), `the message is shown escaped: ${JSON.stringify(out)}`);
    assert.doesNotMatch(out, RAW, 'no raw control sequence of the server reaches the terminal');
    // The bar's own erase-line (ESC[2K before each drawing, and once to clear it) is the only ESC on the terminal.
    assert.ok(!out.split('\u001b[2K').join('').includes('\u001b'), `only the bar's erase-line is sent: ${JSON.stringify(out)}`);
  });

  it('tools lists the hostile description escaped, on one line', async () => {
    const tools = runOnTerminal(['tools', 'hostile'], h.cliEnv);
    assert.equal(await tools.exited, 0, tools.output());
    const line = tools
      .output()
      .split(/\r?\n/)
      .find((l) => l.startsWith('control_progress'));
    assert.ok(line, tools.output());
    assert.match(line, /then waits for the file `until`ok\\e\]0;pwned\\a\\e\[2K$/);
    assert.doesNotMatch(tools.output(), RAW);
  });

  it("auth list shows a login's issuer and scopes (an authorization server's text) escaped, on one line", async () => {
    const id = loginWorkflowId('remote');
    // A login as an authorization server left it: issuer and scopes are what its metadata and token response said.
    await h.env.client.workflow.start('mcpLogin', {
      taskQueue: h.cliEnv.DURABLE_MCP_TASK_QUEUE,
      workflowId: id,
      args: [
        {
          server: 'remote',
          principal: 'shared',
          continued: {
            sealed: 'sealed-by-a-worker',
            generation: 1,
            info: { issuer: 'https://as.example\u001b]0;pwned\u0007', scopes: 'read\r\nremote: signed-out\u202eevil', refreshable: false },
            requests: 1,
            waiters: [],
          },
        },
      ],
    });
    try {
      let out = '';
      // Listed from visibility: the new login shows once the dev server has indexed it.
      for (let i = 0; i < 50 && !out.includes('remote'); i++) {
        const list = runOnTerminal(['auth', 'list'], h.cliEnv);
        assert.equal(await list.exited, 0, list.output());
        out = list.output();
        if (!out.includes('remote')) await new Promise((r) => setTimeout(r, 200));
      }
      const lines = out.split(/\r?\n/).filter((l) => l.trim() !== '');
      assert.deepEqual(lines, ['remote: signed-in, at https://as.example\\e]0;pwned\\a, scopes read\\r\\nremote: signed-out\\u{202e}evil']);
      assert.doesNotMatch(out, RAW);
    } finally {
      await h.env.client.workflow.getHandle(id).terminate('done with it');
    }
  });

  it("the worker's log shows a server's stderr with its control characters escaped: no colour, no forged entry", async () => {
    const worker = h.workers[0];
    const call = runOnTerminal(['call', 'crashy', 'anything', '--max-attempts', '1', '--no-wait-start'], h.cliEnv);
    await call.exited;
    await worker.waitFor(/PWNED/);
    // The log entry is written at once; give the rest of its lines (a stack trace) the time to arrive.
    await worker.waitFor(/forged entry/);
    const log = worker.output();
    assert.ok(log.includes('\\e[31mPWNED\\e[0m\\n2026-01-01T00:00:00.000Z [ERROR] forged entry\\u{202e}'), log);
    // eslint-disable-next-line no-control-regex
    assert.doesNotMatch(log, /\u001b|\u202e|\u0007/, 'no raw control character of the server in the log');
    assert.doesNotMatch(log, /^2026-01-01T00:00:00\.000Z \[ERROR\] forged entry/m, 'no forged entry on a line of its own');
  });
});
