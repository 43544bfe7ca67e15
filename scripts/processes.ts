/**
 * Processes of the machine, for the benchmarks and the tests alike (bench/ imports nothing from test/, and test/ nothing from bench/, so the one
 * copy lives here): spawn a node script and collect its output, list live processes by command line or by parent
 * (Linux /proc).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** Pids of live processes whose command line contains `needle` (zombies excluded). */
export function livePids(needle: string): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      if (state === 'Z' || state === 'X') continue;
      const cmd = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (cmd.includes(needle)) out.push(Number(entry));
    } catch {
      // gone
    }
  }
  return out;
}

/** Children of a process (by ppid). */
export function childPids(ppid = process.pid): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (rest[0] !== 'Z' && Number(rest[1]) === ppid) out.push(Number(entry));
    } catch {
      // gone
    }
  }
  return out;
}

export interface SpawnedProcess {
  child: ChildProcess;
  /** stdout and stderr, interleaved as they came. */
  output(): string;
  /** stdout alone. */
  stdout(): string;
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  exited: Promise<number | null>;
  kill(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Spawn a node script, collecting stdout+stderr. */
export function spawnNode(args: string[], env: Record<string, string | undefined> = {}, cwd?: string): SpawnedProcess {
  return spawnCommand(process.execPath, args, env, cwd);
}

/** Spawn any program (e.g. `python3`), collecting stdout+stderr. */
export function spawnCommand(command: string, args: string[], env: Record<string, string | undefined> = {}, cwd?: string): SpawnedProcess {
  const child = spawn(command, args, { env: { ...process.env, ...env }, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let buf = '';
  let out = '';
  const listeners = new Set<() => void>();
  const onData = (d: Buffer) => {
    buf += d.toString('utf8');
    for (const l of listeners) l();
  };
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString('utf8');
    onData(d);
  });
  child.stderr!.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code, signal) => resolve(code ?? (signal ? -1 : null))));
  return {
    child,
    output: () => buf,
    stdout: () => out,
    exited,
    waitFor(pattern, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = buf.match(pattern);
          if (m) {
            listeners.delete(check);
            clearTimeout(timer);
            resolve(m[0]);
          }
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`timed out waiting for ${pattern}; output so far:\n${buf.slice(-2000)}`));
        }, timeoutMs);
        listeners.add(check);
        void exited.then(() => {
          if (listeners.has(check)) {
            listeners.delete(check);
            clearTimeout(timer);
            reject(new Error(`process exited before ${pattern}; output:\n${buf.slice(-2000)}`));
          }
        });
        check();
      });
    },
    async kill(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
