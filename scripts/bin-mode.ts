// The last step of `npm run build`: the commands of package.json's "bin" get their run bit. tsc writes a new
// dist/src/cli/main.js without one after `rm -rf dist`, and npx keeps its link to a clone from the first run, so without
// this step `npx durable-mcp` answers "Permission denied" after a clean rebuild.
import { chmodSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { bin } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { bin?: string | Record<string, string> };
for (const file of typeof bin === 'string' ? [bin] : Object.values(bin ?? {})) {
  const path = join(root, file);
  // Read, write and run for the owner; read and run for everyone else (what npm gives a bin it links).
  chmodSync(path, statSync(path).mode | 0o755);
}
