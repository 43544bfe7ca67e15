/** @modelcontextprotocol/server-everything for the tests: its entry point, and the server over streamable HTTP as a process of its own. */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { freePort } from './ports.js';

const require = createRequire(import.meta.url);
/** server-everything's entry point (`node <it> stdio` or `streamableHttp`). */
export const everything = join(dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')), 'dist', 'index.js');

/** Start server-everything over streamable HTTP on a free port; its MCP URL once it listens, and `close` (SIGTERM, awaited). */
export async function startEverythingHttp(): Promise<{ url: string; close(): Promise<void> }> {
  const port = await freePort();
  const child = spawn(process.execPath, [everything, 'streamableHttp'], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    let err = '';
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      if (/listening on port/.test(err)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`server-everything exited (${code}): ${err}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    async close() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
