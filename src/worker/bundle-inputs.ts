/**
 * A hash of everything a workflow bundle is made of: durable-mcp's compiled code (every .js/.cjs file of dist/src, by
 * content) and the versions of the packages webpack takes in. The prebuilt bundles of `npm run build`
 * (scripts/bundle-workflows.ts, `dist/.bundles-stamp`) and the agent worker's cached bundle (./agent-bundle.ts) are
 * made again only when it changes. Conservative: any change of durable-mcp's code counts, not only workflow code.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const src = resolve(dirname(fileURLToPath(import.meta.url)), '..'); // dist/src

/**
 * The packages whose code goes into a workflow bundle, the prebuilt ones and the agent worker's (one that does not
 * resolve from here, missing or nested below another package, counts as "none": the version of the package it comes
 * with stands for it). test/worker/bundle-inputs.test.ts checks that every package the bundles hold is listed.
 */
export const BUNDLED_PACKAGES = [
  '@temporalio/workflow',
  '@temporalio/common',
  '@temporalio/proto',
  '@temporalio/worker',
  '@temporalio/ai-sdk',
  '@temporalio/interceptors-opentelemetry',
  '@opentelemetry/api',
  '@opentelemetry/core',
  '@opentelemetry/resources',
  '@opentelemetry/sdk-trace-base',
  '@opentelemetry/semantic-conventions',
  'nexus-rpc',
  'zod',
  're2js',
  'long',
  'ms',
  'ai',
  '@ai-sdk/provider',
  '@ai-sdk/provider-utils',
  '@ai-sdk/gateway',
  '@vercel/oidc',
  '@workflow/serde',
  'eventsource-parser',
  '@ungap/structured-clone',
  'web-streams-polyfill',
  'headers-polyfill',
  'set-cookie-parser',
] as const;

function* codeFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* codeFiles(path);
    else if (entry.name.endsWith('.js') || entry.name.endsWith('.cjs')) yield path;
  }
}

/** The version of an installed package, found from where it resolves (its package.json may not be exported). */
function versionOf(name: string): string {
  let dir: string;
  try {
    dir = dirname(fileURLToPath(import.meta.resolve(name)));
  } catch {
    return 'none';
  }
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === name) return pkg.version ?? 'unknown';
    }
    const up = dirname(dir);
    if (up === dir) return 'unknown';
    dir = up;
  }
}

/** The hash (hex sha256) of durable-mcp's compiled code and the bundled packages' versions, with `label` (the variant). */
export function bundleInputsHash(label: string): string {
  const h = createHash('sha256');
  h.update(`${label}\n`);
  for (const name of BUNDLED_PACKAGES) h.update(`${name} ${versionOf(name)}\n`);
  for (const file of codeFiles(src)) {
    h.update(`${relative(src, file)}\n`);
    h.update(readFileSync(file));
  }
  return h.digest('hex');
}
