/**
 * `npm run conformance`: the client scenarios of the official MCP conformance suites, both installed versions,
 * through the real worker. One Temporal dev server and one worker process (test/conformance/worker.ts) for the
 * whole run; for each scenario the suite's runner (on Node 22: it needs `fs.globSync`) starts the scenario's
 * server and spawns test/conformance/client.ts with its URL, which runs the scenario's tool calls as
 * `mcpToolCall` workflows and answers their requests through `submitAnswer`. The runner's own verdict (its exit
 * code: a failed or warning check, a timeout, a client that failed) is the scenario's; test/conformance/baseline.json
 * names the scenarios expected to fail, with the reason. The run fails on a regression (a failure not in the
 * baseline) and on an unexpected pass (a baseline entry that passes: remove it), so the baseline only shrinks.
 *
 * Arguments narrow the run to scenarios whose name contains one of them (e.g. `npm run conformance -- tools_call`).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnNode } from '../../scripts/processes.js';
import { requireNodeLine } from '../../scripts/node-lines.js';
import { installQuietRuntime, startTemporalServer } from '../../src/testing/temporal-server.js';

const here = dirname(fileURLToPath(import.meta.url)); // dist/test/conformance
const root = resolve(here, '..', '..', '..');
const baselinePath = join(root, 'test', 'conformance', 'baseline.json');

interface Suite {
  /** The package version, as the baseline names it. */
  version: string;
  bin: string;
  /** The spec revision whose client scenarios run. */
  specVersion: string;
}
const SUITES: Suite[] = [
  { version: '0.1.16', bin: join(root, 'node_modules', 'conformance-legacy', 'dist', 'index.js'), specVersion: '2025-11-25' },
  { version: '0.2.0-alpha.12', bin: join(root, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js'), specVersion: '2026-07-28' },
];
/** Per scenario (the suite's runner kills a client after it); a run that outlives it by far is cut off. */
const SCENARIO_TIMEOUT_MS = 30_000;
/** Scenarios run at once (each is a runner process, a scenario server and a client). */
const PARALLEL = Number(process.env.CONFORMANCE_PARALLEL) || 3;

type Baseline = Record<string, Record<string, string>>;

interface Outcome {
  suite: string;
  scenario: string;
  passed: boolean;
  /** Why it failed: the failed checks, a timeout, the client's error. */
  reason: string;
  ms: number;
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((res) => {
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      res({ code: code ?? (signal ? -1 : 1), stdout, stderr: signal ? `${stderr}\nkilled (${signal}) after ${timeoutMs} ms` : stderr });
    });
  });
}

/**
 * The client scenarios of a suite at its spec revision (`conformance list --client --spec-version`), and the client
 * credentials extension's (`auth/client-credentials-*`, tagged `[extension]` by the unfiltered `list --client`: a spec
 * revision's filter leaves every extension out). The other extensions' scenarios (DPoP, enterprise-managed
 * authorization, cross-app access, workload identity, skills) are not run: the worker does not speak them.
 */
async function scenariosOf(node: string, suite: Suite): Promise<string[]> {
  const list = async (...args: string[]) => {
    const r = await run(node, [suite.bin, 'list', '--client', ...args], process.env, 60_000);
    if (r.code !== 0) throw new Error(`conformance ${suite.version} list failed (exit ${r.code}): ${r.stderr.slice(-1000)}`);
    return r.stdout;
  };
  const revision = [...(await list('--spec-version', suite.specVersion)).matchAll(/^\s+- (\S+) \[/gm)].map((m) => m[1]);
  const extensions = [...(await list()).matchAll(/^\s+- (auth\/client-credentials-\S+) \[extension\]/gm)].map((m) => m[1]);
  return [...revision, ...extensions.filter((e) => !revision.includes(e))];
}

function findFile(dir: string, name: string): string | undefined {
  for (const entry of readdirSync(dir)) {
    const p = join(dir, entry);
    if (statSync(p).isDirectory()) {
      const found = findFile(p, name);
      if (found) return found;
    } else if (entry === name) return p;
  }
  return undefined;
}

interface Check {
  id: string;
  name: string;
  status: string;
  errorMessage?: string;
}

/** Why a scenario failed, in one line: its failed and warning checks, else what the runner said. */
function reasonOf(outDir: string, stdout: string, stderr: string): string {
  const file = findFile(outDir, 'checks.json');
  const checks: Check[] = file ? JSON.parse(readFileSync(file, 'utf8')) : [];
  const bad = checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING');
  const counted = checks.filter((c) => c.status === 'SUCCESS' || c.status === 'FAILURE').length;
  const parts = bad.map((c) => `${c.status === 'WARNING' ? 'warning ' : ''}${c.name}${c.errorMessage ? `: ${c.errorMessage}` : ''}`);
  const all = `${stdout}\n${stderr}`;
  if (/CLIENT TIMED OUT/.test(all)) parts.push('client timed out');
  const clientError = /Client exited with code \d+[\s\S]*?Stderr:\n([^\n]+)/.exec(all);
  if (clientError) parts.push(`client: ${clientError[1]}`);
  else if (/CLIENT EXITED WITH ERROR/.test(all)) parts.push('client exited with an error');
  if (parts.length === 0) parts.push(all.trim().split('\n').slice(-3).join(' / ') || 'no checks');
  const summary = counted ? `${counted - bad.filter((c) => c.status === 'FAILURE').length}/${counted} checks passed; ` : '';
  return (summary + parts.join('; ')).replace(/\s+/g, ' ').slice(0, 600);
}

async function runScenario(node: string, suite: Suite, scenario: string, env: NodeJS.ProcessEnv, work: string): Promise<Outcome> {
  const started = Date.now();
  const outDir = mkdtempSync(join(work, `${suite.version}-${scenario.replace(/\W/g, '_')}-`));
  const clientCommand = `${process.execPath} ${join(here, 'client.js')}`;
  const args = [suite.bin, 'client', '--command', clientCommand, '--scenario', scenario, '--timeout', String(SCENARIO_TIMEOUT_MS), '-o', outDir];
  const r = await run(node, args, env, SCENARIO_TIMEOUT_MS + 30_000);
  const passed = r.code === 0;
  return { suite: suite.version, scenario, passed, reason: passed ? '' : reasonOf(outDir, r.stdout, r.stderr), ms: Date.now() - started };
}

async function pool<T, R>(items: T[], n: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]);
      }
    }),
  );
  return out;
}

const filters = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const baseline = JSON.parse(readFileSync(baselinePath, 'utf8')) as Baseline;
const node22 = requireNodeLine('22');
const t0 = Date.now();
installQuietRuntime();
const temporal = await startTemporalServer();
const work = mkdtempSync(join(tmpdir(), 'durable-mcp-conformance-'));
const taskQueue = `conformance-${process.pid}`;
const authDir = mkdtempSync(join(work, 'auth-'));
const env = { ...process.env, TEMPORAL_ADDRESS: temporal.address, DURABLE_MCP_TASK_QUEUE: taskQueue, CONFORMANCE_AUTH_DIR: authDir };
const worker = spawnNode([join(here, 'worker.js')], env);
let problems = 0;
try {
  await worker.waitFor(/ready: task queue/, 120_000);
  console.log(`conformance: Temporal ${temporal.address}, worker pid ${worker.child.pid} (task queue ${taskQueue}), runner on ${node22}`);
  const outcomes: Outcome[] = [];
  for (const suite of SUITES) {
    const expected = baseline[suite.version] ?? {};
    const all = await scenariosOf(node22, suite);
    for (const name of Object.keys(expected)) {
      if (!all.includes(name)) {
        console.log(`STALE          ${suite.version} ${name}: in the baseline but not a ${suite.specVersion} client scenario of this version`);
        problems++;
      }
    }
    const chosen = all.filter((s) => filters.length === 0 || filters.some((f) => s.includes(f)));
    await pool(chosen, PARALLEL, async (scenario) => {
      const o = await runScenario(node22, suite, scenario, env, work);
      outcomes.push(o);
      const reason = expected[scenario];
      const secs = `${(o.ms / 1000).toFixed(1)}s`;
      if (o.passed && reason === undefined) console.log(`pass           ${suite.version} ${scenario} (${secs})`);
      else if (!o.passed && reason !== undefined)
        console.log(
          `expected-fail  ${suite.version} ${scenario} (${secs}): ${reason} [${o.reason.slice(0, Number(process.env.CONFORMANCE_REASON_CHARS) || 200)}]`,
        );
      else if (o.passed) {
        problems++;
        console.log(`UNEXPECTED PASS ${suite.version} ${scenario} (${secs}): remove it from test/conformance/baseline.json (was: ${reason})`);
      } else {
        problems++;
        console.log(`FAIL           ${suite.version} ${scenario} (${secs}): ${o.reason}`);
      }
    });
  }
  const passed = outcomes.filter((o) => o.passed).length;
  const expectedFails = outcomes.filter((o) => !o.passed && baseline[o.suite]?.[o.scenario] !== undefined).length;
  for (const suite of SUITES) {
    const mine = outcomes.filter((o) => o.suite === suite.version);
    console.log(`conformance ${suite.version} (${suite.specVersion}): ${mine.filter((o) => o.passed).length}/${mine.length} scenarios pass`);
  }
  console.log(
    `conformance summary: ${passed} pass, ${expectedFails} expected failures (baseline), ${problems} against the baseline` +
      ` (regressions, unexpected passes, stale entries), in ${((Date.now() - t0) / 1000).toFixed(0)} s`,
  );
} finally {
  await worker.kill('SIGTERM');
  await temporal.teardown();
  rmSync(work, { recursive: true, force: true });
}
if (problems > 0) {
  console.log('conformance: FAILED against test/conformance/baseline.json');
  process.exit(1);
}
