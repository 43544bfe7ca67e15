/** Shared helpers of the MCP integration tests (not a test file itself). */
import { readdirSync, readFileSync } from 'node:fs';
import { fixtureServerPath, readFixtureLog } from '../fixtures/paths.js';

export interface ChildProcessInfo {
  pid: number;
  state: string;
  comm: string;
}

/** The live child processes of this process, read from /proc (no `ps`, which would count itself). */
export function childProcesses(): ChildProcessInfo[] {
  const children: ChildProcessInfo[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    // pid (comm) state ppid ...; comm may contain spaces and parentheses.
    const close = stat.lastIndexOf(')');
    const comm = stat.slice(stat.indexOf('(') + 1, close);
    const [state, ppid] = stat.slice(close + 2).split(' ');
    if (Number(ppid) === process.pid) children.push({ pid: Number(entry), state, comm });
  }
  return children.sort((a, b) => a.pid - b.pid);
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Poll `predicate` every 20 ms until it holds; throws after `ms`. */
export async function waitUntil(predicate: () => boolean, ms = 5000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A stdio server entry running the fixture server. */
export function stdioFixture(logPath: string, options: { args?: string[]; [key: string]: unknown } = {}): Record<string, unknown> {
  const { args = [], ...rest } = options;
  return { command: [process.execPath, fixtureServerPath, ...args], env: { FIXTURE_LOG: logPath }, ...rest };
}

export type LogEvent = Record<string, unknown>;

export function events(logPath: string, event?: string, tool?: string): LogEvent[] {
  return readFixtureLog(logPath).filter((e) => (event === undefined || e.event === event) && (tool === undefined || e.tool === tool));
}
