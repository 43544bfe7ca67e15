// The public surface, imported as a user imports it (the package's own name resolves through package.json "exports" to
// the built entries): the root entry's runtime names are the list in docs/architecture.md, at most 40; no entry holds an
// internal; the client's errors are one class a plane with their guards.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { ApplicationFailure } from '@temporalio/common';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { name: string; exports: Record<string, unknown> };
/** Each entry of package.json "exports", by its specifier (`durable-mcp`, `durable-mcp/client`, …). */
const entries = Object.keys(pkg.exports).map((key) => (key === '.' ? pkg.name : `${pkg.name}/${key.slice(2)}`));
const load = (specifier: string): Promise<Record<string, unknown>> => import(specifier);

/** Names no entry may export: internals of the planes, the CLI's, and the error classes one class a plane replaced. */
const INTERNALS = [
  'SessionPool',
  'deriveRequestId',
  'deriveRoundRequestId',
  'checkAnswer',
  'admitElicitation',
  'findTemporalBinary',
  'TemporalBinaryNotFoundError',
  'SIGNAL_HINT',
  'ElicitationHost',
  'WORKER_WAIT_MS',
  'rootFailure',
  'toolCallFailure',
  'answerRejection',
  'noWorker',
  'updateLimit',
  'fromTemporalError',
  'CALL_FAILURE_CLASSES',
  'elicitUpdate',
  'childPendingSignal',
  'childDoneSignal',
  'progressSignal',
  'callMcpTool',
  'notificationBody',
  'sanitize',
  'PoolClosedError',
  'ServerDisabledError',
  'UnknownServerError',
  'McpConfigError',
  'MissingEnvVarError',
  'McpConnectError',
  'McpToolCallError',
  'UnknownToolError',
  'RoundLimitExceededError',
  'UnsupportedInputRequestError',
  'ProtocolViolationError',
  'BackChannelRefusedError',
  'InboxOptionError',
  'InboxTokenRequiredError',
  'InboxPublicUrlError',
  'EncryptionConfigError',
  'UnknownEncryptionKeyError',
  'DecryptionFailedError',
  'CodecTokenRequiredError',
  'CodecOptionError',
  'LoginRequiredError',
  'OAuthFlowError',
  'SealError',
  'ToolCallFailedError',
  'UnknownServerFailure',
  'UnknownToolFailure',
  'NoWorkerError',
  'AnswerRejectedError',
  'NoSuchPendingRequestError',
  'UnknownWorkflowError',
];

describe('the public surface (the built entries, by the package name)', () => {
  it('the root entry exports at most 40 runtime names, exactly those docs/architecture.md lists', async () => {
    const root = await load(pkg.name);
    const names = Object.keys(root).sort();
    assert.ok(names.length <= 40, `${names.length} runtime names: ${names.join(', ')}`);
    const doc = readFileSync(join(repo, 'docs', 'architecture.md'), 'utf8');
    const listed = /<!-- root-entry -->([\s\S]*?)<!-- \/root-entry -->/.exec(doc)?.[1];
    assert.ok(listed, 'docs/architecture.md lists the root entry between <!-- root-entry --> markers');
    assert.deepEqual(names, [...listed.matchAll(/`([^`]+)`/g)].map((m) => m[1]).sort());
    assert.match(doc, new RegExp(`runtime names \\(${names.length}, at most 40;`), 'the docs say how many');
    for (const name of ['McpSource', 'parseMcpConfig', 'FailureTypes', 'RequestSchema', 'answerToElicitResult']) assert.ok(name in root, name);
  });

  it('no entry exports an internal; createActivities is only in durable-mcp/worker; durable-mcp/workflows exports no host class', async () => {
    assert.ok(!('./contract' in pkg.exports), 'the contract is the root entry, not an entry of its own');
    for (const specifier of entries) {
      const entry = await load(specifier);
      const leaked = INTERNALS.filter((name) => name in entry);
      assert.deepEqual(leaked, [], `${specifier} exports internals`);
      if (specifier !== `${pkg.name}/worker`) assert.ok(!('createActivities' in entry), `${specifier} exports createActivities`);
    }
    const workflows = await load(`${pkg.name}/workflows`);
    const hosts = Object.keys(workflows).filter((k) => /Host$/.test(k) && typeof workflows[k] === 'function' && /^class\b/.test(String(workflows[k])));
    assert.deepEqual(hosts, []);
    assert.equal(typeof workflows.useElicitationHost, 'function');
  });

  it('one FailureTypes across the entries; the client has one error class a plane, each with its guard', async () => {
    const [root, workflows, client] = await Promise.all([load(pkg.name), load(`${pkg.name}/workflows`), load(`${pkg.name}/client`)]);
    assert.equal(root.FailureTypes, client.FailureTypes);
    assert.equal(client.FailureTypes, workflows.FailureTypes);
    const errorClasses = Object.keys(client).filter((k) => /^[A-Z].*(Error|Failure)$/.test(k) && typeof client[k] === 'function');
    // The client's three, and the codec's one (besides the listing's option error).
    assert.deepEqual(
      errorClasses.filter((k) => !/ListOption/.test(k)),
      ['AnswerRejectedFailure', 'ClientError', 'CodecError', 'ToolCallFailure'],
    );
    // The root entry: one class for MCP without Temporal, one for the inbox, each with its codes and guard.
    const rootErrors = Object.keys(root).filter((k) => /^[A-Z].*(Error|Failure)$/.test(k) && typeof root[k] === 'function');
    assert.deepEqual(rootErrors.sort(), ['InboxError', 'McpSourceError']);
    const r = root as unknown as typeof import('../../src/index.js');
    const unknownTool = new r.McpSourceError(r.McpSourceErrorCodes.UnknownTool, 'unknown tool "x"', { tool: 'x' });
    assert.equal(unknownTool.code, r.FailureTypes.UnknownTool);
    assert.ok(r.isMcpSourceError(unknownTool, 'UnknownTool') && !r.isInboxError(unknownTool));
    const codecError = new (client as unknown as typeof import('../../src/client/index.js')).CodecError('DecryptionFailed', 'altered', { keyId: 'a' });
    assert.ok((client as unknown as typeof import('../../src/client/index.js')).isCodecError(codecError, 'DecryptionFailed'));
    const c = client as unknown as typeof import('../../src/client/index.js');
    const failure = c.ToolCallFailure.of(new Error('workflow failed', { cause: ApplicationFailure.nonRetryable('no tool "x"', 'UnknownTool') }), {
      workflowId: 'w',
      server: 's',
      tool: 'x',
    });
    assert.ok(failure instanceof ApplicationFailure);
    assert.equal(failure.type, c.FailureTypes.UnknownTool);
    assert.ok(c.isToolCallFailure(failure, 'UnknownTool') && !c.isToolCallFailure(failure, 'UnknownServer'));
    assert.ok(!c.isClientError(failure) && !c.isAnswerRejectedFailure(failure));
    const noWorker = new c.ClientError(c.ClientErrorCodes.NoWorker, 'no worker', { taskQueue: 'q' });
    assert.ok(c.isClientError(noWorker, 'NoWorker', 'WorkflowTaskFailing') && !c.isClientError(noWorker, 'UnknownWorkflow'));
    assert.deepEqual(noWorker.toJSON(), { error: 'NoWorker', message: 'no worker', taskQueue: 'q' });
  });
});
