/**
 * The Nexus tests' setup and reading (test/nexus): caller namespaces and an endpoint made with the Temporal CLI, as
 * docs/nexus.md shows them, and the backing workflow of a caller's operation.
 */
import { execFileSync } from 'node:child_process';
import type { WorkflowHandle } from '@temporalio/client';
import { findTemporalBinary } from '../../src/cli/temporal-binaries.js';
import { operationTokenQuery } from '../nexus/caller-workflows.js';
import { eventually } from './temporal.js';

/**
 * On the server at `address`: the caller namespace and an endpoint `endpoint` that targets `taskQueue` in the `default`
 * namespace (`temporal operator namespace create`, `temporal operator nexus endpoint create`); resolves once the server
 * knows the namespace.
 */
export async function createNexusEndpoint(address: string, { namespace, endpoint, taskQueue }: { namespace: string; endpoint: string; taskQueue: string }) {
  const cli = findTemporalBinary('cli', { allowDownload: false }).path!;
  const temporal = (...args: string[]) => execFileSync(cli, [...args, '--address', address], { encoding: 'utf8' });
  temporal('operator', 'namespace', 'create', '--namespace', namespace);
  temporal('operator', 'nexus', 'endpoint', 'create', '--name', endpoint, '--target-namespace', 'default', '--target-task-queue', taskQueue);
  await eventually(() => {
    try {
      return temporal('operator', 'namespace', 'describe', '--namespace', namespace);
    } catch {
      return undefined;
    }
  }, 'the caller namespace is known');
}

/**
 * The backing workflow's id of a caller's operation, from its token (`{t, ns, wid}` in base64url; the caller workflow
 * of test/nexus/caller-workflows.ts answers it). When the operation never starts, the error says why: the caller's
 * events and its operation's last attempt.
 */
export async function backingWorkflowId(caller: WorkflowHandle): Promise<string> {
  const token = await eventually(() => caller.query(operationTokenQuery).catch(() => undefined), 'the operation started').catch(async (err: Error) => {
    const events = ((await caller.fetchHistory()).events ?? []).map((e) => Object.keys(e).find((k) => k.endsWith('Attributes')));
    const pending = (await caller.describe()).raw.pendingNexusOperations?.map((o) => `${o.state} attempt ${o.attempt}: ${o.lastAttemptFailure?.message}`);
    throw new Error(`${err.message}; caller events: ${events.join(', ')}; operations: ${pending?.join('; ') || 'none pending'}`);
  });
  return (JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { wid: string }).wid;
}
