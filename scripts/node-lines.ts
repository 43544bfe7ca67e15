/**
 * The Node lines the project supports besides the machine's own: each is npm's `node` package (the official
 * binary, from the npm registry) in `.tools/node<line>`, which `npm run tools` installs once. CI runs the suite on
 * them (.ci/run); the conformance runner needs 22 (`fs.globSync`).
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

export const NODE_LINES = ['22', '24'] as const;
export type NodeLine = (typeof NODE_LINES)[number];

/** Where `npm run tools` installs the line (`npm i --prefix <dir> node@<line>`). */
export function nodeLineDir(line: NodeLine): string {
  return join(root, '.tools', `node${line}`);
}

/** The line's `node` binary. */
export function nodeLineBinary(line: NodeLine): string {
  return join(nodeLineDir(line), 'node_modules', 'node', 'bin', 'node');
}

/** The line's binary, or an error saying how to install it. */
export function requireNodeLine(line: NodeLine): string {
  const bin = nodeLineBinary(line);
  if (!existsSync(bin)) throw new Error(`Node ${line} is not installed at ${bin}: run \`npm run tools\` (npm i --prefix ${nodeLineDir(line)} node@${line})`);
  return bin;
}
