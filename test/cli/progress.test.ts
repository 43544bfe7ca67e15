import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { tempDir } from '../helpers/temporal.js';
import { cliHarness, runOnTerminal } from '../helpers/cli.js';

describe('call --wait and result on a terminal (dev server, a worker process, the fixture MCP server)', () => {
  const h = cliHarness();

  it("call --wait and result draw a progress bar from the tool's MCP progress notifications while the call runs, and clear it for the result", async () => {
    await h.startWorkerProcess();
    const until = join(tempDir('cli-tty-'), 'go-on');
    const call = runOnTerminal(['call', 'fx', 'progress', '--args', JSON.stringify({ until }), '--wait', '--workflow-id', 'cli-tty-progress'], h.cliEnv);
    let result: ReturnType<typeof runOnTerminal> | undefined;
    try {
      // The fixture reports 1 of 2 ("halfway") and waits for the file: half of the 30-wide bar is filled.
      await call.waitFor(/\[#{15}\.{15}\] 1\/2 halfway/);
      assert.match(call.output(), /waiting for the result of cli-tty-progress/);
      // `result` of the same call, from another terminal, draws it too.
      result = runOnTerminal(['result', 'cli-tty-progress'], h.cliEnv);
      await result.waitFor(/\[#{15}\.{15}\] 1\/2 halfway/);
      const described = await h.env.client.workflow.getHandle('cli-tty-progress').describe();
      assert.equal(described.status.name, 'RUNNING', 'the bar is shown while the call runs');
      writeFileSync(until, '');
      assert.equal(await call.exited, 0, call.output());
      assert.equal(await result.exited, 0, result.output());
    } finally {
      call.child.kill('SIGKILL');
      result?.child.kill('SIGKILL');
    }
    for (const out of [call.output(), result.output()]) {
      const lastBar = out.lastIndexOf('] 1/2 halfway');
      const cleared = out.lastIndexOf('\r\u001b[2K');
      assert.ok(cleared > lastBar, `the bar's line is cleared after its last drawing: ${JSON.stringify(out.slice(-200))}`);
      assert.match(out.slice(cleared + '\r\u001b[2K'.length), /^done\r?\n/, 'then the result is printed');
    }
  });
});
