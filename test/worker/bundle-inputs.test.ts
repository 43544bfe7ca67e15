/**
 * The hash that decides whether a workflow bundle is made again (src/worker/bundle-inputs.ts: `npm run build`'s stamp,
 * the agent worker's cached bundle) takes in the version of every package the bundles hold: a package it left out
 * could be updated and the old bundle, with its old code, kept. Read from the bundles themselves: the four prebuilt
 * ones of `npm run build`, and an agent worker's (traced, with encoded failures), made here in a folder of its own.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { agentWorkflowBundle } from '../../src/worker/agent-bundle.js';
import { BUNDLED_PACKAGES } from '../../src/worker/bundle-inputs.js';
import { workflowBundleFile } from '../../src/worker/workflow-code.js';
import { tempDir } from '../helpers/temporal.js';

/** The npm packages a bundle's code comes from (webpack keeps each module's path). */
function packagesIn(path: string): Set<string> {
  const found = new Set<string>();
  for (const m of readFileSync(path, 'utf8').matchAll(/node_modules\/((?:@[a-z0-9._-]+\/)?[a-z0-9._-]+)/g)) found.add(m[1]!);
  return found;
}

describe('what the workflow bundles are made of', () => {
  it("every package in the prebuilt bundles and in an agent worker's bundle is one whose version the hash takes in", async () => {
    const listed = new Set<string>(BUNDLED_PACKAGES);
    const files = [false, true].flatMap((traced) => [false, true].map((encodedFailures) => workflowBundleFile({ traced, encodedFailures })));
    const agent = await agentWorkflowBundle({ cacheDir: tempDir('bundle-inputs-'), traced: true, encodedFailures: true });
    files.push(agent.codePath);
    for (const file of files) {
      const packages = packagesIn(file);
      assert.ok(packages.has('@temporalio/workflow'), `${file} names the packages it holds`);
      const unlisted = [...packages].filter((p) => !listed.has(p));
      assert.deepEqual(unlisted, [], `${file} holds packages the bundle hash does not take in (add them to BUNDLED_PACKAGES)`);
    }
  });
});
