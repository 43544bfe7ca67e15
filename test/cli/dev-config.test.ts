/**
 * `durable-mcp dev` reads `./mcp.json` (as `worker` does, docs/configuration.md), adds the built-in demo server when
 * the file has none, and its banner shows each server's approval policy: a real `dev` (its own Temporal server) in a
 * folder with an mcp.json whose server needs approval, and a call that then waits for one. The choice of the file
 * (flag, MCP_CONFIG, ./mcp.json, built in) is also checked on its own.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { spawnNode, type SpawnedProcess } from '../../scripts/processes.js';
import { demoServerPath, devMcpConfigPath, loadDevMcpConfig, mcpConfigLines, policyText, tryItLines } from '../../src/cli/dev-config.js';
import { freePort } from '../helpers/ports.js';
import { tempDir } from '../helpers/temporal.js';

const cli = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..', 'src', 'cli', 'main.js');

function run(args: string[], env: Record<string, string | undefined>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((res) => {
    execFile(process.execPath, [cli, ...args], { env: { ...process.env, ...env }, timeout: 120_000 }, (err, stdout, stderr) => {
      res({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe("dev's MCP config: --mcp-config, MCP_CONFIG, ./mcp.json, else the built-in demo server", () => {
  it('the flag wins, then MCP_CONFIG, then ./mcp.json when the folder has one, else the built-in config', () => {
    const dir = tempDir('dev-config-');
    assert.deepEqual(devMcpConfigPath(undefined, {}, dir), { from: 'built in' });
    writeFileSync(join(dir, 'mcp.json'), '{"mcpServers":{}}');
    assert.deepEqual(devMcpConfigPath(undefined, {}, dir), { path: join(dir, 'mcp.json'), from: './mcp.json' });
    assert.deepEqual(devMcpConfigPath(undefined, { MCP_CONFIG: 'other.json' }, dir), { path: join(dir, 'other.json'), from: 'MCP_CONFIG' });
    assert.deepEqual(devMcpConfigPath('x.json', { MCP_CONFIG: 'other.json' }, dir), { path: join(dir, 'x.json'), from: '--mcp-config' });
  });

  it("the built-in demo server is added to a file without one (the file's own policy applies), and not to a file with one", () => {
    const dir = tempDir('dev-config-');
    const own = join(dir, 'own.json');
    writeFileSync(own, JSON.stringify({ approval: 'always', mcpServers: { calc: { command: [process.execPath, demoServerPath] } } }));
    const added = loadDevMcpConfig(own, dir, {});
    assert.deepEqual(Object.keys(added.config.servers), ['calc', 'demo']);
    assert.equal(added.demoAdded, true);
    assert.equal(added.config.servers.demo!.approval?.gate, 'always');
    assert.deepEqual(mcpConfigLines(added), [
      `MCP config:          ${own} (--mcp-config), with the built-in demo server added`,
      `  calc: approval always, built in: ${demoServerPath}`,
      `  demo: approval always, built in: ${demoServerPath}`,
    ]);
    const withDemo = join(dir, 'with-demo.json');
    writeFileSync(withDemo, JSON.stringify({ mcpServers: { demo: { url: 'http://127.0.0.1:9/mcp', enabled: false } } }));
    const kept = loadDevMcpConfig(withDemo, dir, {});
    assert.equal(kept.demoAdded, false);
    assert.deepEqual(mcpConfigLines(kept).slice(1), ['  demo: approval never, disabled, http']);
    assert.equal(
      policyText({ gate: 'destructive', annotations: 'trust', tools: ['transfer*'], approvals: 2 }),
      'destructive; tools transfer*; read-only tools trusted; 2 approvals',
    );
  });
});

describe('the commands dev suggests (Try it)', () => {
  it("name the built-in demo server when it runs, else the config's first enabled server, else nothing", () => {
    const dir = tempDir('dev-try-it-');
    const file = (name: string, config: unknown) => {
      const path = join(dir, name);
      writeFileSync(path, JSON.stringify(config));
      return path;
    };
    const builtIn = tryItLines(loadDevMcpConfig(undefined, dir, {}, dir), 'npx durable-mcp', true);
    assert.ok(builtIn.includes(`  npx durable-mcp call demo book_table --args '{"restaurant":"Chez Temporal"}'`), builtIn.join('\n'));
    assert.ok(builtIn.some((l) => l.includes('agent demo --server demo')));
    assert.ok(
      !tryItLines(loadDevMcpConfig(undefined, dir, {}, dir), 'npx durable-mcp', false).some((l) => l.includes(' agent ')),
      'no agent line without agents',
    );
    // A file without "demo": dev adds the built-in one, and its commands work.
    const added = loadDevMcpConfig(file('calc.json', { mcpServers: { calc: { command: [process.execPath, demoServerPath] } } }), dir, {});
    assert.ok(tryItLines(added, 'npx durable-mcp', false).some((l) => l.includes('call demo book_table')));
    // Its own "demo" (another server, or the demo disabled): demo's commands would fail, so the lines name its first enabled server.
    const own = loadDevMcpConfig(
      file('own.json', { mcpServers: { demo: { url: 'http://127.0.0.1:9/mcp' }, files: { url: 'http://127.0.0.1:9/f' } } }),
      dir,
      {},
    );
    const lines = tryItLines(own, 'npx durable-mcp', true);
    assert.ok(!lines.some((l) => /book_table|plan_trip|connect_account|agent demo/.test(l)), lines.join('\n'));
    assert.ok(lines.includes('  npx durable-mcp tools demo'), lines.join('\n'));
    assert.match(lines[0]!, /has its own server "demo"/);
    const disabled = loadDevMcpConfig(
      file('off.json', { mcpServers: { demo: { command: [process.execPath, demoServerPath], enabled: false }, files: { url: 'http://127.0.0.1:9/f' } } }),
      dir,
      {},
    );
    assert.ok(tryItLines(disabled, 'npx durable-mcp', false).includes("  npx durable-mcp call files TOOL --args '{...}'"));
    const none = loadDevMcpConfig(file('none.json', { mcpServers: { demo: { url: 'http://127.0.0.1:9/mcp', enabled: false } } }), dir, {});
    assert.deepEqual(tryItLines(none, 'npx durable-mcp', true), []);
  });
});

describe('dev in a folder with an mcp.json', () => {
  let dev: SpawnedProcess | undefined;
  after(async () => {
    await dev?.kill('SIGINT');
  });

  it('reads it: the banner shows each server and its approval policy, and a call of its server waits for the approval it sets', async () => {
    const dir = tempDir('dev-mcp-json-');
    mkdirSync(join(dir, 'data'));
    // The demo server under another name, with a policy: every call needs a person's approval.
    writeFileSync(join(dir, 'mcp.json'), JSON.stringify({ mcpServers: { calc: { command: [process.execPath, demoServerPath], approval: 'always' } } }));
    const port = await freePort();
    const env = { TEMPORAL_ADDRESS: undefined, MCP_CONFIG: undefined, DURABLE_MCP_ENCRYPTION_KEYS: undefined };
    dev = spawnNode(
      [cli, 'dev', '--data-dir', join(dir, 'data'), '--port', String(port), '--ui-port', String(await freePort()), '--inbox-port', '0', '--no-agent'],
      env,
      dir,
    );
    await dev.waitFor(/Ctrl-C stops everything/, 120_000);
    const out = dev.output();
    for (const line of [
      'Worker: task queue durable-mcp, MCP servers: calc, demo',
      `MCP config:          ${join(dir, 'mcp.json')} (./mcp.json), with the built-in demo server added`,
      `  calc: approval always, built in: ${demoServerPath}`,
      `  demo: approval never, built in: ${demoServerPath}`,
      'Agents:              off',
    ]) {
      assert.ok(out.split('\n').includes(line), `dev printed "${line}":\n${out}`);
    }

    const cliEnv = { TEMPORAL_ADDRESS: `127.0.0.1:${port}`, DURABLE_MCP_ENCRYPTION_KEYS: undefined, DURABLE_MCP_TASK_QUEUE: undefined };
    const call = await run(['call', 'calc', 'add', '--args', '{"a":2,"b":3}', '--workflow-id', 'dev-config-1'], cliEnv);
    assert.equal(call.code, 0, call.stderr);
    const pending = await run(['pending', 'dev-config-1', '--wait', '60', '--json'], cliEnv);
    assert.equal(pending.code, 0, pending.stderr);
    const [row] = JSON.parse(pending.stdout) as Array<{ pending: Array<{ request: { id: string }; context: { approval?: unknown } }> }>;
    assert.match(row!.pending[0]!.request.id, /^c1\.approve\./, pending.stdout);
  });
});
