/**
 * Payloads encrypted at rest, end to end (real dev server, real worker, real fixture MCP servers, the real CLI): with a
 * key set, requests answered through DurableMcpClient, the CLI (`answer` and `answer --signal`), a modern-era call with
 * `requestState` and a pipeline that continues-as-new all work, and the raw history (fetched by a client without the
 * codec) holds none of the prompt's, the answers', the tool results' or the requestState's bytes, nor a failure's message
 * (an activity's, a workflow's own). Then key rotation, and bad key material at start.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@temporalio/client';
import { decodeOptionalFailureToOptionalError } from '@temporalio/common/lib/internal-non-workflow/index.js';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import proto from '@temporalio/proto';
import {
  dataConverterOf,
  EncryptionCodec,
  generateEncryptionKey,
  isCodecError,
  parseEncryptionKeys,
  ENCRYPTED_ENCODING,
  KEY_ID_METADATA,
} from '../../src/codec/index.js';
import { DurableMcpClient } from '../../src/client/index.js';
import { replayHistories } from '../../src/testing/replay.js';
import { mcpPipeline } from '../../src/workflows/index.js';
import type { DurableMcpWorker } from '../../src/worker.js';
import { workflowsPath } from '../../src/worker.js';
import { modernServerPath } from '../fixtures/paths.js';
import { run } from '../helpers/cli.js';
import { eventually, fixtureConfig, startWorker, tempDir, uniqueTaskQueue, suiteEnvironment, testEnvironment } from '../helpers/temporal.js';

const { temporal } = proto;
type History = proto.temporal.api.history.v1.IHistory;

const keyA = generateEncryptionKey('A');
const keyB = generateEncryptionKey('B');
const codecOf = (text: string) => new EncryptionCodec(parseEncryptionKeys(text, 'test'));
const tag = randomUUID().slice(0, 8);
/** A distinct name per path, so each answer (and the tool result and requestState carrying it) is findable. */
const names = { sdk: `Ada-sdk-${tag}`, cli: `Ada-cli-${tag}`, signal: `Ada-sig-${tag}`, modern: `Ada-mod-${tag}`, pipeline: `Ada-pipe-${tag}` };

/** The base64 text of `secret` wherever it starts in a longer byte string (three alignments, the bytes it fixes). */
function base64Forms(secret: string): string[] {
  const bytes = Buffer.from(secret);
  return [0, 1, 2].map((k) =>
    Buffer.concat([Buffer.alloc(k), bytes])
      .toString('base64')
      .slice(k ? 4 : 0, Math.floor((k + bytes.length) / 3) * 4),
  );
}

/** Every history of the namespace (every run of every workflow), fetched with `raw` (a client without the codec). */
async function rawHistories(raw: Client, expectIds: string[]): Promise<Array<{ workflowId: string; runId: string; history: History }>> {
  const executions = await eventually(async () => {
    const found: Array<{ workflowId: string; runId: string }> = [];
    // Raw pages: the SDK's list() decodes each memo, which this client without keys cannot (the listing memo is encrypted).
    let nextPageToken: Uint8Array | undefined;
    do {
      const res = await raw.workflowService.listWorkflowExecutions({ namespace: 'default', ...(nextPageToken ? { nextPageToken } : {}) });
      for (const wf of res.executions ?? []) found.push({ workflowId: wf.execution!.workflowId!, runId: wf.execution!.runId! });
      nextPageToken = res.nextPageToken?.length ? res.nextPageToken : undefined;
    } while (nextPageToken);
    return expectIds.every((id) => found.some((f) => f.workflowId === id)) ? found : undefined;
  }, 'every workflow to be listed');
  return Promise.all(executions.map(async (e) => ({ ...e, history: (await raw.workflow.getHandle(e.workflowId, e.runId).fetchHistory()) as History })));
}

/** Where `secret` shows in a raw history: its bytes in the protobuf, its text or base64 in the JSON (what `temporal workflow show` prints). */
function leaks(history: History, secret: string): string[] {
  const bytes = Buffer.from(temporal.api.history.v1.History.encode(history).finish());
  const json = historyToJSON(history as Parameters<typeof historyToJSON>[0]);
  return [
    ...(bytes.includes(Buffer.from(secret)) ? ['bytes'] : []),
    ...(json.includes(secret) ? ['JSON'] : []),
    ...(base64Forms(secret).some((b64) => json.includes(b64)) ? ['base64'] : []),
  ];
}

const metadataOf = (p: { metadata?: Record<string, Uint8Array> | null } | undefined, key: string) =>
  p?.metadata?.[key] ? Buffer.from(p.metadata[key]).toString() : undefined;

describe('payloads encrypted at rest, with a key set', () => {
  let raw: Client;
  let c: DurableMcpClient;
  const taskQueue = uniqueTaskQueue('encryption');
  const dir = tempDir('encryption-');
  const ids: string[] = [];
  let cliEnv: Record<string, string>;
  let requestState: string | undefined;
  const suite = suiteEnvironment({
    taskQueue,
    searchAttributes: true,
    encryption: codecOf(keyA),
    logPath: join(dir, 'fx.jsonl'),
    extraServers: { m: { command: [process.execPath, modernServerPath], env: { FIXTURE_LOG: join(dir, 'm.jsonl') } } },
  });

  before(async () => {
    raw = new Client({ connection: suite.env.connection, namespace: 'default' });
    c = suite.durable;
    cliEnv = { TEMPORAL_ADDRESS: suite.env.address, DURABLE_MCP_TASK_QUEUE: taskQueue, DURABLE_MCP_ENCRYPTION_KEYS: keyA };
  });

  it('a request answered through DurableMcpClient: waitForPending, pendingDetails, accept, result', async () => {
    assert.equal(suite.worker.encryption?.keyId, 'A');
    const handle = await c.startToolCall({ server: 'fx', tool: 'ask_name' });
    ids.push(handle.workflowId);
    const [request] = await c.waitForPending(handle.workflowId, { timeoutMs: 120_000 });
    assert.equal(request.prompt, 'What is your name?');
    const [details] = await c.pendingDetails(handle.workflowId);
    assert.equal(details.request.id, request.id);
    assert.equal(details.context.tool, 'ask_name');
    await c.accept(handle.workflowId, request.id, { name: names.sdk });
    assert.deepEqual(await c.result(handle.workflowId), { output: `hello ${names.sdk}`, isError: false });
  });

  it('a request answered through the CLI: pending (one workflow, and every workflow awaiting input), answer, result', async () => {
    const handle = await c.startToolCall({ server: 'fx', tool: 'ask_name' });
    ids.push(handle.workflowId);
    await c.waitForPending(handle.workflowId, { timeoutMs: 120_000 });
    const pending = await run(['pending', handle.workflowId, '--json'], cliEnv);
    assert.equal(pending.code, 0, pending.stderr);
    const [{ pending: rows }] = JSON.parse(pending.stdout);
    assert.equal(rows[0].request.prompt, 'What is your name?');
    const listed = await eventually(async () => {
      const all = await run(['pending', '--json'], cliEnv);
      return all.code === 0 && JSON.parse(all.stdout).find((r: { workflowId: string }) => r.workflowId === handle.workflowId);
    }, 'the call listed by `pending`');
    assert.equal(listed.pending[0].request.prompt, 'What is your name?');
    const answer = await run(['answer', handle.workflowId, rows[0].request.id, '--data', JSON.stringify({ name: names.cli })], cliEnv);
    assert.equal(answer.code, 0, answer.stderr);
    const result = await run(['result', handle.workflowId, '--json'], cliEnv);
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(JSON.parse(result.stdout), { output: `hello ${names.cli}`, isError: false });
  });

  it('the CLI without the keys says the payloads are encrypted and which variable to set (one line, exit 2)', async () => {
    const handle = await c.startToolCall({ server: 'fx', tool: 'echo', arguments: { text: 'x' } });
    ids.push(handle.workflowId);
    await c.result(handle.workflowId);
    const noKeys = { ...cliEnv, DURABLE_MCP_ENCRYPTION_KEYS: '' };
    const text = await run(['result', handle.workflowId], noKeys);
    assert.equal(text.code, 2, text.stderr);
    // One error line (after `result`'s own "waiting for the result" line), with the fix.
    assert.deepEqual(
      text.stderr
        .trim()
        .split('\n')
        .filter((l) => l.startsWith('durable-mcp:')),
      ["durable-mcp: the workflow's payloads are encrypted: set DURABLE_MCP_ENCRYPTION_KEYS (or DURABLE_MCP_ENCRYPTION_KEYS_FILE) to the keys that wrote them"],
    );
    assert.ok(!text.stderr.includes('Unknown encoding'), "not the SDK's bare message");
    const json = await run(['result', handle.workflowId, '--json'], noKeys);
    assert.equal(json.code, 2);
    assert.equal(JSON.parse(json.stdout).error, 'EncryptionKeysMissing');
  });

  it('a request answered with `answer --signal`: the signal payload goes through the codec too', async () => {
    const handle = await c.startToolCall({ server: 'fx', tool: 'ask_name' });
    ids.push(handle.workflowId);
    const [request] = await c.waitForPending(handle.workflowId, { timeoutMs: 120_000 });
    const answer = await run(['answer', handle.workflowId, request.id, '--signal', '--data', JSON.stringify({ name: names.signal })], cliEnv);
    assert.equal(answer.code, 0, answer.stderr);
    assert.equal((await c.result(handle.workflowId)).output, `hello ${names.signal}`);
    // The signal as recorded: ciphertext under key A.
    const signaled = ((await raw.workflow.getHandle(handle.workflowId).fetchHistory()).events ?? []).find(
      (e) => e.workflowExecutionSignaledEventAttributes,
    )?.workflowExecutionSignaledEventAttributes;
    assert.equal(signaled?.signalName, 'answer');
    assert.equal(metadataOf(signaled?.input?.payloads?.[0], 'encoding'), ENCRYPTED_ENCODING);
    assert.equal(metadataOf(signaled?.input?.payloads?.[0], KEY_ID_METADATA), 'A');
  });

  it('a modern-era (2026-07-28) call of two rounds, the second carrying requestState', async () => {
    const handle = await c.startToolCall({ server: 'm', tool: 'two_rounds' });
    ids.push(handle.workflowId);
    const [first] = await c.waitForPending(handle.workflowId, { timeoutMs: 120_000 });
    await c.accept(handle.workflowId, first.id, { name: names.modern });
    const [second] = await c.waitForPending(handle.workflowId, { seen: [first.id], timeoutMs: 120_000 });
    assert.equal(second.prompt, `How old are you, ${names.modern}?`);
    await c.accept(handle.workflowId, second.id, { age: 42 });
    assert.equal((await c.result(handle.workflowId)).output, `${names.modern} is 42`);
    requestState = JSON.stringify({ name: names.modern });
  });

  it('a pipeline that continues-as-new, answered through the pipeline id', async () => {
    const handle = await suite.env.client.workflow.start(mcpPipeline, {
      taskQueue,
      workflowId: `enc-pipeline-${tag}`,
      args: [
        {
          maxHistoryEvents: 8,
          steps: [
            { name: 'a', server: 'fx', tool: 'ask_name' },
            { name: 'b', server: 'fx', tool: 'echo', arguments: { text: 'B' } },
            { name: 'c', server: 'fx', tool: 'echo', arguments: { text: '{{steps.a.output}}' } },
          ],
        },
      ],
    });
    ids.push(handle.workflowId);
    const [request] = await c.waitForPending(handle.workflowId, { timeoutMs: 120_000 });
    await c.accept(handle.workflowId, request.id, { name: names.pipeline });
    const result = await handle.result();
    assert.equal(result.status, 'completed');
    assert.ok(result.runs >= 2, `continued as new (${result.runs} runs)`);
    assert.equal(result.steps.c.result?.output, `echo: hello ${names.pipeline}`);
  });

  it("failures are encrypted too: a failing tool's message and a workflow's own failure are not in the raw history; `result` shows them", async () => {
    // The activity's failure names the tool it did not find; the workflow's own (InvalidInput) shows the wrong value.
    // Explicit workflow ids: the default one would name the tool.
    const tool = `no_such_tool_${tag}_secret`;
    const badValue = `not-a-duration-${tag}-secret`;
    const toolCall = await c.startToolCall({ server: 'fx', tool, workflowId: `enc-fails-tool-${tag}` });
    const badInput = await suite.env.client.workflow.start('mcpToolCall', {
      taskQueue,
      workflowId: `enc-fails-input-${tag}`,
      args: [{ server: 'fx', tool: 'echo', toolTimeout: badValue }],
    });
    ids.push(toolCall.workflowId, badInput.workflowId);
    const toolResult = await run(['result', toolCall.workflowId], cliEnv);
    assert.equal(toolResult.code, 1, toolResult.stderr);
    assert.match(toolResult.stderr, new RegExp(`failed: UnknownTool: server "fx" has no tool "${tool}"`));
    const inputResult = await run(['result', badInput.workflowId, '--json'], cliEnv);
    assert.equal(inputResult.code, 1, inputResult.stderr);
    assert.equal(JSON.parse(inputResult.stdout).error, 'InvalidInput');
    assert.ok(JSON.parse(inputResult.stdout).message.includes(badValue), inputResult.stdout);
    const histories = await rawHistories(raw, [toolCall.workflowId, badInput.workflowId]);
    for (const id of [toolCall.workflowId, badInput.workflowId]) {
      const { history } = histories.find((h) => h.workflowId === id)!;
      for (const secret of [tool, badValue]) assert.deepEqual(leaks(history, secret), [], `${id}: ${secret} is in the raw history`);
      // The failure as recorded: Temporal's "Encoded failure", its message and stack trace ciphertext of key A.
      const failed = history.events?.find((e) => e.workflowExecutionFailedEventAttributes)?.workflowExecutionFailedEventAttributes?.failure;
      const innermost = (f: typeof failed): typeof failed => (f?.cause ? innermost(f.cause) : f);
      assert.equal(innermost(failed)?.message, 'Encoded failure', `${id}: ${JSON.stringify(failed).slice(0, 300)}`);
      assert.equal(metadataOf(innermost(failed)?.encodedAttributes ?? undefined, 'encoding'), ENCRYPTED_ENCODING);
      assert.equal(innermost(failed)?.stackTrace ?? '', '');
    }
  });

  it('the raw history holds none of the prompts, answers, tool results or requestState (bytes, JSON, base64); every payload is ciphertext of key A', async () => {
    assert.ok(requestState, 'the modern call ran');
    const histories = await rawHistories(raw, ids);
    const secrets = [
      'What is your name?',
      `How old are you, ${names.modern}?`,
      requestState!,
      ...Object.values(names),
      ...Object.values(names).map((n) => `hello ${n}`),
    ];
    let payloads = 0;
    for (const { workflowId, runId, history } of histories) {
      for (const secret of secrets) assert.deepEqual(leaks(history, secret), [], `${workflowId}/${runId}: ${JSON.stringify(secret)} is in the raw history`);
      // Every payload of the history (inputs, results, signals, updates, markers, memo) is ciphertext of key A.
      const walk = (v: unknown): void => {
        if (!v || typeof v !== 'object') return;
        if (Array.isArray(v)) return v.forEach(walk);
        const o = v as Record<string, unknown>;
        // A patch marker (`patched()`) is written by Temporal Core, not through the codec: it holds only the patch id.
        if (o.markerName === 'core_patch') return;
        if (o.metadata && typeof o.metadata === 'object' && 'encoding' in (o.metadata as object)) {
          payloads++;
          assert.equal(metadataOf(o as never, 'encoding'), ENCRYPTED_ENCODING, `${workflowId}: a payload in plaintext: ${JSON.stringify(o).slice(0, 200)}`);
          assert.equal(metadataOf(o as never, KEY_ID_METADATA), 'A');
          return;
        }
        if (o instanceof Uint8Array) return;
        // Search attributes are never encoded (the server indexes them): durable-mcp's is one Bool.
        for (const [k, value] of Object.entries(o)) if (k !== 'searchAttributes') walk(value);
      };
      walk(history);
    }
    assert.ok(histories.length >= ids.length + 1, 'the pipeline has more than one run');
    assert.ok(payloads > 20, `payloads checked: ${payloads}`);
  });

  it('an encrypted history replays with the key (replayHistories), and names the key without it', async () => {
    const history = await raw.workflow.getHandle(ids[0]).fetchHistory();
    const [ok] = await replayHistories(workflowsPath, [{ workflowId: ids[0], history }], { encryption: codecOf(keyA) });
    assert.equal(ok.error, undefined);
    const [bad] = await replayHistories(workflowsPath, [{ workflowId: ids[0], history }], { encryption: codecOf(keyB), throwOnFailure: false });
    assert.match(String(bad.error?.message), /a payload is encrypted with key \\*"A\\*", which is not among the keys of DURABLE_MCP_ENCRYPTION_KEYS/);
  });
});

describe('key rotation, end to end', () => {
  let raw: Client;
  const taskQueue = uniqueTaskQueue('rotation');
  const dir = tempDir('rotation-');
  const mcpConfig = { mcpServers: { m: { command: [process.execPath, modernServerPath], env: { FIXTURE_LOG: join(dir, 'm.jsonl') } } } };
  const clientWith = (keys: string) =>
    new DurableMcpClient(new Client({ connection: suite.env.connection, namespace: 'default', dataConverter: dataConverterOf(codecOf(keys)) }), { taskQueue });
  const started: Array<{ worker: DurableMcpWorker; running: Promise<void> }> = [];
  const startWith = async (keys: string) => {
    const worker = await startWorker(suite.env, { taskQueue, mcpConfig, encryption: codecOf(keys) });
    const w = { worker, running: worker.run() };
    started.push(w);
    return w;
  };
  const stop = async (w: { worker: DurableMcpWorker; running: Promise<void> }) => {
    w.worker.shutdown();
    await w.running;
  };

  after(async () => {
    for (const w of started) if (w.worker.worker.getState() === 'RUNNING') await stop(w);
  });
  // Workers with their own keys, started by the tests: the environment starts none, and its client has no codec.
  const suite = suiteEnvironment({ name: 'rotation', searchAttributes: true, encryption: false, startWorker: false });
  before(() => {
    raw = new Client({ connection: suite.env.connection, namespace: 'default' });
  });

  it('a workflow waiting with payloads of key A: a worker with only B fails its workflow task naming key "A" (the workflow goes on waiting); workers and clients with B,A answer it', async () => {
    const name = `Grace-${tag}`;
    const workerA = await startWith(keyA);
    const clientA = clientWith(keyA);
    const handle = await clientA.startToolCall({ server: 'm', tool: 'ask_name' });
    const [request] = await clientA.waitForPending(handle.workflowId, { timeoutMs: 120_000 });
    await stop(workerA);

    // Key A removed too early: only B. The answer (a signal, encrypted with B) is kept; the worker cannot read the history.
    const workerB = await startWith(keyB);
    const clientBA = clientWith(`${keyB},${keyA}`);
    await clientBA.signalAnswer(handle.workflowId, { id: request.id, ok: true, data: { name } });
    const failure = await eventually(
      async () => {
        const events = (await raw.workflow.getHandle(handle.workflowId).fetchHistory()).events ?? [];
        return events.find((e) => e.workflowTaskFailedEventAttributes)?.workflowTaskFailedEventAttributes?.failure ?? undefined;
      },
      'a failed workflow task',
      120_000,
    );
    // Encoded as every failure is (with key B, the worker's); what a person sees through the codec (the Temporal UI with
    // the codec server, `temporal workflow show --codec-endpoint`): the key to put back.
    assert.equal(failure!.message, 'Encoded failure');
    assert.equal(metadataOf(failure!.encodedAttributes ?? undefined, KEY_ID_METADATA), 'B');
    const readerBA = new Client({ connection: suite.env.connection, namespace: 'default', dataConverter: dataConverterOf(codecOf(`${keyB},${keyA}`)) });
    const decoded = await decodeOptionalFailureToOptionalError(readerBA.options.loadedDataConverter, failure);
    assert.match(String(decoded?.message), /a payload is encrypted with key "A", which is not among the keys of DURABLE_MCP_ENCRYPTION_KEYS/);
    const described = await raw.workflowService.describeWorkflowExecution({ namespace: 'default', execution: { workflowId: handle.workflowId } });
    assert.equal(described.workflowExecutionInfo?.status, temporal.api.enums.v1.WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING, 'not failed');
    // `pending`: the worker cannot answer the query while the task fails; the CLI says why, with the key to put back.
    const pendingB = await run(['pending', handle.workflowId], {
      TEMPORAL_ADDRESS: suite.env.address,
      DURABLE_MCP_TASK_QUEUE: taskQueue,
      DURABLE_MCP_ENCRYPTION_KEYS: keyB,
    });
    assert.equal(pendingB.code, 4, pendingB.stderr);
    assert.match(
      pendingB.stderr,
      /could not list its pending requests: its workflow task fails \(attempt \d+\): a payload is encrypted with key "A", which is not among the keys of DURABLE_MCP_ENCRYPTION_KEYS .*the workflow waits \(it has not failed\)/,
    );
    await stop(workerB);

    // The rotation done right: B encrypts, A still decrypts.
    await startWith(`${keyB},${keyA}`);
    assert.equal((await clientBA.result(handle.workflowId)).output, `Hello ${name}`);
    const events = (await raw.workflow.getHandle(handle.workflowId).fetchHistory()).events ?? [];
    const input = events[0].workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
    const result = events.find((e) => e.workflowExecutionCompletedEventAttributes)?.workflowExecutionCompletedEventAttributes?.result?.payloads?.[0];
    assert.equal(metadataOf(input, KEY_ID_METADATA), 'A', 'written before the rotation');
    assert.equal(metadataOf(result, KEY_ID_METADATA), 'B', 'written after it');

    // A client that still has only A cannot read what B wrote, and says so.
    await assert.rejects(clientA.result(handle.workflowId), (err: unknown) => isCodecError(err, 'UnknownEncryptionKey') && err.keyId === 'B');
    const resultA = await run(['result', handle.workflowId], {
      TEMPORAL_ADDRESS: suite.env.address,
      DURABLE_MCP_TASK_QUEUE: taskQueue,
      DURABLE_MCP_ENCRYPTION_KEYS: keyA,
    });
    assert.notEqual(resultA.code, 0);
    assert.match(resultA.stderr, /a payload is encrypted with key "B", which is not among the keys of DURABLE_MCP_ENCRYPTION_KEYS/);
  });
});

describe('the leak search finds plaintext', () => {
  it('in the history of a call started by a client without the codec (its input is plaintext: it passes through the worker)', async () => {
    // The worker has the key, the environment's client has none.
    await using t = await testEnvironment({ name: 'plain', encryption: false, startWorker: false });
    const { env, taskQueue } = t;
    const worker = await startWorker(env, { taskQueue, mcpConfig: fixtureConfig(t.logPath), encryption: codecOf(keyA) });
    const text = `plain-${tag}`;
    const handle = await t.durable.startToolCall({ server: 'fx', tool: 'echo', arguments: { text } });
    // This client has no key: it cannot read the result the worker encrypted (the SDK's own message).
    const err = await worker.runUntil(() =>
      handle.result().then(
        () => undefined,
        (e: unknown) => e,
      ),
    );
    assert.match(String((err as Error)?.message), /Unknown encoding: binary\/encrypted/);
    const [{ history }] = await rawHistories(env.client, [handle.workflowId]);
    assert.deepEqual(leaks(history, text), ['bytes', 'base64'], 'the argument is found, as bytes and in the JSON as base64');
    assert.deepEqual(leaks(history, `echo: ${text}`), [], 'the result the worker wrote is not');
  });
});

describe('bad key material stops a process at start', () => {
  const material = Buffer.alloc(32, 7).toString('base64');
  const cases: Array<[string, string]> = [
    ['a 16-byte key', `k1:${Buffer.alloc(16, 7).toString('base64')}`],
    ['an entry written the wrong way round', `${material}:k1`],
    ['a second key that is not base64', `k1:${material},k2:${material.slice(0, 20)}!!`],
  ];
  // Nothing listens there: a process that connected first would say it cannot reach Temporal.
  const unreachable = { TEMPORAL_ADDRESS: '127.0.0.1:1', DURABLE_MCP_TASK_QUEUE: 'nobody' };

  for (const [what, value] of cases) {
    for (const args of [['worker'], ['pending'], ['pending', 'some-workflow', '--json']]) {
      it(`${what}: \`durable-mcp ${args.join(' ')}\` exits at once with one line naming the variable, and never the key`, async () => {
        // The worker's config is valid: it gets as far as its keys.
        const argv = args[0] === 'worker' ? ['worker', '--mcp-config', fixtureMcpJson(tempDir('badkey-'))] : args;
        const r = await run(argv, { ...unreachable, DURABLE_MCP_ENCRYPTION_KEYS: value });
        assert.equal(r.code, 2, `${r.stdout}\n${r.stderr}`);
        const lines = r.stderr.trim().split('\n');
        assert.equal(lines.length, 1, r.stderr);
        assert.match(lines[0], /^durable-mcp: DURABLE_MCP_ENCRYPTION_KEYS: entry \d/);
        assert.doesNotMatch(r.stderr + r.stdout, /cannot reach Temporal/);
        if (args.includes('--json')) assert.equal(JSON.parse(r.stdout).error, 'EncryptionConfig');
        for (const secret of [material, material.slice(0, 20), Buffer.alloc(16, 7).toString('base64')]) {
          assert.ok(!(r.stdout + r.stderr).includes(secret), 'the key material is in the output');
        }
      });
    }
  }
});

function fixtureMcpJson(dir: string): string {
  const path = join(dir, 'mcp.json');
  writeFileSync(path, JSON.stringify(fixtureConfig(join(dir, 'fx.jsonl'))));
  return path;
}
