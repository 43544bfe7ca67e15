/**
 * A newcomer's first hour, as a test: a fresh `git clone` of this repository, `npm ci`, `npm start`, then the README's
 * walkthrough commands exactly as written (each `$ ` line of its shell blocks, run by bash in the clone), each output
 * compared with the README's (modulo workflow ids, request ids, times and URL states, which differ on every run), then
 * each example project's README commands. What differs from a newcomer's machine: `npm start` gets free ports (the
 * CLI then reads TEMPORAL_ADDRESS), and the Temporal binaries come from this machine (TEMPORAL_CLI_PATH and
 * TEMPORAL_TEST_SERVER_PATH, a route the READMEs document), so nothing is installed with pip.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { findTemporalBinary } from '../../src/cli/temporal-binaries.js';
import { projectRoot } from '../helpers/pack.js';
import { freePort } from '../helpers/ports.js';
import { tempDir } from '../helpers/temporal.js';

/** The environment of a fresh terminal: no npm or test-runner variables of this run. */
function terminalEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  // No model provider of this machine either: the README's agent section runs the scripted demo model, as a newcomer's does.
  const dropped = /^(npm_|NODE_TEST_CONTEXT$|NODE_OPTIONS$|INIT_CWD$|OPENAI_|ANTHROPIC_|DURABLE_MCP_MODEL_|MCP_CONFIG$)/;
  for (const [k, v] of Object.entries(process.env)) if (!dropped.test(k)) env[k] = v;
  return {
    ...env,
    TEMPORAL_CLI_PATH: findTemporalBinary('cli').path!,
    TEMPORAL_TEST_SERVER_PATH: findTemporalBinary('test-server').path!,
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
    ...extra,
  };
}

/** Run a line as a person types it, in bash; stdout and stderr as a terminal shows them (interleaved). */
function sh(line: string, cwd: string, env: NodeJS.ProcessEnv, timeout = 120_000): { code: number; out: string; ms: number } {
  const t0 = Date.now();
  const r = spawnSync('bash', ['-c', `${line} 2>&1`], { cwd, env, encoding: 'utf8', timeout, maxBuffer: 64 * 1024 * 1024 });
  return { code: r.status ?? -1, out: r.stdout ?? '', ms: Date.now() - t0 };
}

interface Step {
  command: string;
  expected: string[];
}

/** The `$ ` steps of the ```sh blocks between two headings of a markdown file, each with the output lines below it. */
function steps(markdown: string, from: string, to: string): Step[] {
  const section = markdown.slice(markdown.indexOf(from), markdown.indexOf(to));
  const out: Step[] = [];
  for (const block of section.matchAll(/```sh\n([\s\S]*?)```/g)) {
    for (const line of block[1].split('\n')) {
      if (line.startsWith('$ ')) out.push({ command: line.slice(2), expected: [] });
      else if (line !== '' && out.length) out.at(-1)!.expected.push(line);
    }
  }
  return out;
}

/** What differs on every run (found in the README's lines), and the pattern an actual value must match. */
const VARYING: Array<{ find: RegExp; wild: (token: string) => string }> = [
  { find: /mcp-[a-z_]+-[a-z_]+-[0-9a-f]{8}/g, wild: (t) => `${escape(t.slice(0, -8))}[0-9a-f]{8}` }, // workflow ids
  { find: /c\d+\.r\d+\.[A-Za-z0-9_]+\.[0-9a-f]{10}/g, wild: (t) => `${escape(t.slice(0, -10))}[0-9a-f]{10}` }, // request ids
  { find: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, wild: () => '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z' }, // expiry times
  { find: /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, wild: () => '[0-9a-f-]{36}' }, // URL states
];
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Match the actual output against the README's lines, learning (and then holding to) which actual id each README id
 * stands for. Returns the problem, or undefined.
 */
function compare(expected: string[], actual: string[], ids: Map<string, string>): string | undefined {
  if (expected.length !== actual.length) return `expected ${expected.length} lines, got ${actual.length}`;
  for (let i = 0; i < expected.length; i++) {
    const tokens: string[] = [];
    let pattern = '';
    let at = 0;
    const hits = VARYING.flatMap(({ find, wild }) => [...expected[i].matchAll(find)].map((m) => ({ m, wild }))).sort((a, b) => a.m.index! - b.m.index!);
    for (const { m, wild } of hits) {
      if (m.index! < at) continue;
      pattern += escape(expected[i].slice(at, m.index));
      const known = ids.get(m[0]);
      pattern += `(${known ? escape(known) : wild(m[0])})`;
      tokens.push(m[0]);
      at = m.index! + m[0].length;
    }
    pattern += escape(expected[i].slice(at));
    const m = new RegExp(`^${pattern}$`).exec(actual[i]);
    if (!m) return `line ${i + 1}: expected\n  ${expected[i]}\ngot\n  ${actual[i]}`;
    tokens.forEach((t, k) => ids.set(t, m[k + 1]));
  }
  return undefined;
}

/** The README's ids in a command replaced by the actual ones. */
const substitute = (command: string, ids: Map<string, string>) => [...ids].reduce((c, [readme, actual]) => c.split(readme).join(actual), command);

describe("a newcomer's first hour: a fresh clone, npm ci, npm start, the README's walkthrough as written, the examples' READMEs", () => {
  const clone = join(tempDir('durable-mcp-newcomer-'), 'durable-mcp');
  const timings: Record<string, number> = {};
  let dev: ReturnType<typeof spawn> | undefined;
  const devLog = join(tempDir('durable-mcp-newcomer-log-'), 'npm-start.log');
  const devOutput = () => readFileSync(devLog, 'utf8');
  let cliEnv: NodeJS.ProcessEnv;

  before(async () => {
    let t0 = Date.now();
    const cloned = spawnSync('git', ['clone', '--quiet', projectRoot, clone], { encoding: 'utf8' });
    assert.equal(cloned.status, 0, cloned.stderr);
    timings.clone = Date.now() - t0;
    const ci = sh('npm ci', clone, terminalEnv(), 600_000);
    assert.equal(ci.code, 0, ci.out.slice(-3000));
    timings['npm ci'] = ci.ms;

    const port = await freePort();
    const uiPort = await freePort();
    cliEnv = terminalEnv({ TEMPORAL_ADDRESS: `127.0.0.1:${port}` });
    t0 = Date.now();
    // Its output goes to a file, as a terminal would take it (a pipe could fill while the test runs a command).
    const log = openSync(devLog, 'w');
    dev = spawn('bash', ['-c', `npm start -- --port ${port} --ui-port ${uiPort} --inbox-port 0 --codec-port 0 2>&1`], {
      cwd: clone,
      env: terminalEnv(),
      detached: true,
      stdio: ['ignore', log, log],
    });
    closeSync(log);
    const deadline = Date.now() + 300_000;
    while (!devOutput().includes('Ctrl-C stops everything')) {
      assert.ok(Date.now() < deadline && dev.exitCode === null, `npm start was not ready:\n${devOutput().slice(-3000)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    timings['npm start (build, then ready)'] = Date.now() - t0;
  });
  /** Ctrl-C, as the README says: dev stops the Temporal server, the worker and the MCP servers. */
  async function ctrlC(): Promise<number | null> {
    if (!dev?.pid || dev.exitCode !== null || dev.signalCode !== null) return dev?.exitCode ?? null;
    const exited = new Promise<number | null>((r) => dev!.once('exit', (code) => r(code)));
    process.kill(-dev.pid, 'SIGINT');
    const timer = setTimeout(() => dev?.pid && process.kill(-dev.pid, 'SIGKILL'), 30_000);
    const code = await exited;
    clearTimeout(timer);
    return code;
  }
  after(async () => {
    await ctrlC();
    console.log(`# measured (ms): ${JSON.stringify(timings)}`);
  });

  it('npm start prints the commands to try, as the README shows them', () => {
    const readme = readFileSync(join(clone, 'README.md'), 'utf8');
    const block = /`npm start` builds the project[\s\S]*?```\n([\s\S]*?)```/.exec(readme)![1];
    for (const line of block.split('\n').filter((l) => l.trim() !== '' && l.trim() !== '…')) {
      // Addresses and paths are this machine's (the test gives npm start free ports).
      const pattern = escape(line)
        .replace(/127\\\.0\\\.0\\\.1:\d+/g, '127\\.0\\.0\\.1:\\d+')
        .replace(/\\\(data: [^)]*\\\)/, '\\(data: [^)]*\\)')
        .replace(/built in: \S+$/, 'built in: \\S+');
      assert.match(devOutput(), new RegExp(`^${pattern}$`, 'm'), `npm start printed: ${line}`);
    }
  });

  it("the walkthrough's commands, pasted as written, print what the README shows", () => {
    const readme = readFileSync(join(clone, 'README.md'), 'utf8');
    const walkthrough = steps(readme, '## Walkthrough', '## Where to go next');
    assert.ok(walkthrough.length >= 19, `the walkthrough has its steps (${walkthrough.length})`);
    const ids = new Map<string, string>();
    const t0 = Date.now();
    for (const step of walkthrough) {
      const command = substitute(step.command, ids);
      const r = sh(command, clone, cliEnv);
      const actual = r.out.split('\n').filter((l) => l !== '');
      const problem = compare(step.expected, actual, ids);
      assert.equal(problem, undefined, `$ ${command}\n${problem}\n--- actual output:\n${r.out}`);
      const fails = step.expected[0]?.startsWith('durable-mcp: ');
      assert.equal(r.code !== 0, !!fails, `$ ${command}: exit ${r.code}`);
    }
    timings[`walkthrough (${walkthrough.length} commands)`] = Date.now() - t0;
    // The mistake is one line in npm start's terminal too (the worker's log), with no stack trace.
    assert.match(devOutput(), /\[WARN\] UnknownTool \(server "demo", tool "book_tabel", workflow mcp-demo-book_tabel-[0-9a-f]{8}\): server "demo" has no tool/);
    assert.doesNotMatch(devOutput(), /^\s+at /m, `no stack trace in npm start's output:\n${devOutput()}`);
  });

  it('Ctrl-C stops npm start, and everything it started', async () => {
    const t0 = Date.now();
    await ctrlC();
    timings['Ctrl-C'] = Date.now() - t0;
    assert.match(devOutput(), /Ctrl-C stops everything/);
    const left = spawnSync('pgrep', ['-f', clone], { encoding: 'utf8' }).stdout.trim();
    assert.equal(left, '', `no process of the clone is left: ${left}`);
  });

  for (const example of ['testing', 'testing-vitest']) {
    it(`examples/${example}: its README's commands, from the root of the clone, pass`, () => {
      const readme = readFileSync(join(clone, 'examples', example, 'README.md'), 'utf8');
      const block = /From the root of a clone of durable-mcp:\n\n```sh\n([\s\S]*?)```/.exec(readme);
      assert.ok(block, `examples/${example}/README.md says what to run from the root of a clone`);
      const r = sh(`set -e\n${block[1]}`, clone, terminalEnv({ NO_COLOR: '1' }), 900_000); // no colours in vitest's summary
      assert.equal(r.code, 0, r.out.slice(-6000));
      timings[`examples/${example}`] = r.ms;
      const out = r.out;
      // node --test prints TAP off a terminal on Node 20 and 22, its spec reporter (ℹ) on Node 24.
      if (example === 'testing') assert.match(out, /[#ℹ] pass 8\n[#ℹ] fail 0/);
      else assert.match(out, /Tests\s+1 passed \(1\)/);
      const status = spawnSync('git', ['status', '--porcelain'], { cwd: clone, encoding: 'utf8' });
      assert.equal(status.stdout, '', 'nothing left untracked (no package-lock.json) or changed in the clone');
    });
  }
});
