/**
 * What the reproductions in this folder share, and nothing of durable-mcp: where the Temporal CLI and the Java
 * time-skipping test server are, and a free port.
 */
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** The Temporal CLI: `$TEMPORAL_CLI_PATH`, else `.tools/temporal/bin/temporal` of this repository (`npm run tools`), else `temporal` on PATH. */
export function temporalCli(): string {
  if (process.env.TEMPORAL_CLI_PATH) return process.env.TEMPORAL_CLI_PATH;
  // dist/scripts/upstream → the repository root is three up.
  const local = resolve(here, '..', '..', '..', '.tools', 'temporal', 'bin', 'temporal');
  if (existsSync(local)) return local;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) if (dir && existsSync(join(dir, 'temporal'))) return join(dir, 'temporal');
  throw new Error('no Temporal CLI: set TEMPORAL_CLI_PATH, or run `npm run tools`');
}

/** The time-skipping test server: `$TEMPORAL_TEST_SERVER_PATH`, else `.tools/temporal/bin/temporal-test-server` of this repository (`npm run tools`), else `temporal-test-server` on PATH. */
export function temporalTestServer(): string {
  if (process.env.TEMPORAL_TEST_SERVER_PATH) return process.env.TEMPORAL_TEST_SERVER_PATH;
  const local = resolve(here, '..', '..', '..', '.tools', 'temporal', 'bin', 'temporal-test-server');
  if (existsSync(local)) return local;
  for (const dir of (process.env.PATH ?? '').split(delimiter))
    if (dir && existsSync(join(dir, 'temporal-test-server'))) return join(dir, 'temporal-test-server');
  throw new Error('no time-skipping test server: set TEMPORAL_TEST_SERVER_PATH, or run `npm run tools`');
}

/** A TCP port on 127.0.0.1 that was free a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => res(port));
    });
  });
}
