/**
 * Temp folders of a test process, removed when the process exits. A test run must not fill the disk: the newcomer's
 * fresh clone is 1.2 GB and a user project installed from the packed package 0.4 GB, and runs that left them behind
 * filled this machine's disk until a CI run failed with ENOSPC. DURABLE_MCP_KEEP_TEMP=1 keeps them (to look at after a
 * failure); each test prints nothing about them either way.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made: string[] = [];

function removeAll(): void {
  if (process.env.DURABLE_MCP_KEEP_TEMP === '1') return;
  for (const dir of made.splice(0)) {
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 2 });
    } catch {
      // A process of the test still writing there, or already gone: the rest are removed all the same.
    }
  }
}

/** A new folder under the OS temp dir, named `prefix` and six random characters, removed when this process exits. */
export function scratchDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (made.length === 0) process.once('exit', removeAll);
  made.push(dir);
  return dir;
}
