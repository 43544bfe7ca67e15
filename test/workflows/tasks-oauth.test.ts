/**
 * An MCP task (2026-07-28 extension) on a server behind OAuth, with real parts (docs/tasks.md, docs/oauth.md): the
 * project's task server (test/fixtures/task-server.ts, counting its tools/calls) behind the OAuth fixture's bearer gate
 * (test/fixtures/oauth-server.ts: oidc-provider issues and checks the tokens; /tasks forwards what passes), a dev
 * server, the worker, the inbox's callback and Chromium signing in. A token that expires or is revoked while the task
 * works ends the watch `login_required`: the login refreshes (or a person signs in again), and the same task is
 * watched again (one tools/call), the answers the refused watch did not deliver sent with it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { WorkflowHandle } from '@temporalio/client';
import { loginWorkflowId } from '../../src/contract/login.js';
import { answerSignal, loginStatusQuery, mcpToolCall, pendingQuery } from '../../src/workflows/index.js';
import { LOOPBACK_AUTH, oauthSuite, oneLoginEach } from '../helpers/oauth.js';
import { recordHistory, workflowTaskFailures } from '../helpers/history.js';
import { taskServerForFile } from '../helpers/task-server.js';
import { eventually } from '../helpers/temporal.js';
import { waitForPending } from '../helpers/watch.js';

// The task server itself is not in the MCP config: the OAuth fixture's /tasks forwards to it.
const tasks = taskServerForFile({});
const { log, callsOf } = tasks;

/** The activities a call's workflow ran, in order, each with its attempts (a retried one shows more than one). */
async function activities(handle: WorkflowHandle): Promise<{ types: string[]; attempts: number[] }> {
  const { events } = await handle.fetchHistory();
  return {
    types: events!.filter((e) => e.activityTaskScheduledEventAttributes).map((e) => e.activityTaskScheduledEventAttributes!.activityType!.name!),
    attempts: events!.filter((e) => e.activityTaskStartedEventAttributes).map((e) => e.activityTaskStartedEventAttributes!.attempt!),
  };
}

describe('an MCP task on a server behind OAuth (a token refused mid-task)', () => {
  const servers = oneLoginEach('task', ['expiry', 'asks', 'revoked', 'cancelled', 'recorded']);
  const suite = oauthSuite({
    name: 'tasks-oauth',
    // The recorded call's history is plaintext (the login's secrets are sealed all the same): it replays with any key.
    plainWorker: true,
    fixtureEnv: () => ({ FIXTURE_TASKS_UPSTREAM: tasks.url }),
    mcpConfig: ({ fixture }) => ({ mcpServers: Object.fromEntries(Object.values(servers).map((n) => [n, { url: fixture.tasks, auth: LOOPBACK_AUTH }])) }),
  });
  /** Start the call; Chromium answers its first sign-in; returns once the server made the task and the worker watches it. */
  const started = async (server: string, tool: string, args?: Record<string, unknown>) => {
    const before = callsOf(tool).length;
    const handle = await suite.call(server, tool, args);
    assert.equal(await suite.signIn((await suite.pendingSignIn(server)).url!), 'Signed in');
    const taskId = await eventually(async () => callsOf(tool)[before]?.taskId as string | undefined, `the task of ${tool}`);
    await eventually(async () => log().some((e) => e.method === 'tasks/get' && e.taskId === taskId), 'the worker watching the task');
    return { handle, taskId };
  };

  it('a token expired at the authorization server mid-task: the watch ends login_required, the login refreshes, the same task is watched to its result (one tools/call)', async () => {
    // 8 s of work: the expiry below must land while the task runs, after a few round trips on a possibly busy machine.
    const { handle, taskId } = await started(servers.expiry, 'slow', { workMs: 8000 });
    const before = await suite.fixture.stats();
    const generation = (await suite.login(servers.expiry).query(loginStatusQuery)).generation;
    await suite.fixture.control('/__expire-access');
    const expiredAt = Date.now();
    assert.deepEqual(await handle.result(), { output: 'slow done after 8000 ms', isError: false });
    const after = await suite.fixture.stats();
    assert.ok(after.unauthorized > before.unauthorized, 'the server refused the expired token');
    assert.equal(after.refreshOk - before.refreshOk, 1, 'one refresh');
    assert.equal(after.codeGrants, before.codeGrants, 'no new sign-in');
    assert.equal((await suite.login(servers.expiry).query(loginStatusQuery)).generation, generation + 1);
    assert.deepEqual(await suite.login(servers.expiry).query(pendingQuery), [], 'nobody was asked');
    assert.equal(callsOf('slow').length, 1, 'the server saw one tools/call');
    assert.ok(
      log().some((e) => e.method === 'tasks/get' && e.taskId === taskId && Number(e.ts) > expiredAt),
      'the same task watched after the refresh',
    );
    const { types, attempts } = await activities(handle);
    assert.deepEqual(types, ['callMcpTool', 'requestLogin', 'callMcpTool', 'watchMcpTask', 'requestLogin', 'watchMcpTask']);
    assert.ok(
      attempts.every((a) => a === 1),
      `no attempt retried: ${attempts.join(', ')}`,
    );
  });

  it('an answer given after the token expired: the refused tasks/update goes again after the refresh, and the task asks again after the re-login', async () => {
    const { handle, taskId } = await started(servers.asks, 'ask_twice');
    const [name] = await waitForPending(handle);
    assert.equal(name.prompt, 'Your name?');
    const before = await suite.fixture.stats();
    await suite.fixture.control('/__expire-access');
    await handle.signal(answerSignal, { id: name.id, ok: true, data: { name: 'Ada' } });
    const color = await eventually(async () => (await handle.query(pendingQuery)).find((r) => r.prompt === 'Your colour?'), 'the second question');
    await handle.signal(answerSignal, { id: color.id, ok: true, data: { color: 'green' } });
    assert.deepEqual(await handle.result(), { output: 'Ada likes green', isError: false });
    const after = await suite.fixture.stats();
    assert.equal(after.refreshOk - before.refreshOk, 1, 'one refresh');
    assert.ok(after.unauthorized > before.unauthorized, 'the tasks/update with the expired token was refused');
    assert.equal(callsOf('ask_twice').length, 1, 'the server saw one tools/call');
    const updates = log().filter((e) => e.event === 'update' && e.taskId === taskId);
    assert.equal(updates.filter((u) => (u.inputResponses as any)?.name?.content?.name === 'Ada').length, 1, 'the name reached the task once');
    assert.ok(updates.some((u) => (u.inputResponses as any)?.color?.content?.color === 'green'));
    assert.ok(
      (await activities(handle)).attempts.every((a) => a === 1),
      'no attempt retried',
    );
  });

  it('a refresh token revoked mid-task: a person signs in again (Chromium), and the same task is watched to its result', async () => {
    const { handle } = await started(servers.revoked, 'ask_once');
    const [question] = await waitForPending(handle);
    const first = (await suite.login(servers.revoked).query(pendingQuery))[0];
    assert.equal(first, undefined, 'signed in: no sign-in pending');
    const before = await suite.fixture.stats();
    await suite.fixture.control('/__revoke-refresh');
    await handle.signal(answerSignal, { id: question.id, ok: true, data: { reason: 'yes' } });
    const again = await suite.pendingSignIn(servers.revoked);
    assert.match(again.prompt, /the saved sign-in was refused/);
    assert.equal(await suite.signIn(again.url!), 'Signed in');
    assert.deepEqual(await handle.result(), { output: 'answered: accept', isError: false });
    assert.equal((await suite.fixture.stats()).codeGrants - before.codeGrants, 1, 'one new sign-in');
    assert.equal(callsOf('ask_once').length, 1, 'the server saw one tools/call');
  });

  it('cancelled while its watch waits for a sign-in: tasks/cancel with the refused token is a failed cancel (one attempt), the call ends cancelled', async () => {
    const { handle, taskId } = await started(servers.cancelled, 'forever');
    await suite.fixture.control('/__revoke-refresh');
    // The refresh is refused: the login asks a person, and the call waits for that sign-in.
    await suite.pendingSignIn(servers.cancelled);
    await handle.cancel();
    await assert.rejects(handle.result());
    const { events } = await handle.fetchHistory();
    const scheduled = events!.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'cancelMcpTask');
    assert.equal(scheduled.length, 1);
    const id = String(scheduled[0].eventId);
    const tried = events!.filter((e) => String(e.activityTaskStartedEventAttributes?.scheduledEventId ?? '') === id);
    assert.deepEqual(
      tried.map((e) => e.activityTaskStartedEventAttributes!.attempt),
      [1],
      'not retried',
    );
    const failed = events!.find((e) => String(e.activityTaskFailedEventAttributes?.scheduledEventId ?? '') === id);
    assert.equal(failed?.activityTaskFailedEventAttributes?.failure?.applicationFailureInfo?.type, 'AuthorizationRequired');
    assert.ok(!log().some((e) => e.event === 'cancel' && e.taskId === taskId), 'the refused tasks/cancel never reached the task');
  });

  it('a task whose watch needed the login replays from its history (recorded without a codec: test/histories/task-oauth-login.json)', async () => {
    const { plain } = suite;
    const before = callsOf('slow').length;
    const handle = await plain.client.workflow.start(mcpToolCall, {
      taskQueue: plain.taskQueue,
      workflowId: `task-oauth-login-${Date.now()}`,
      args: [{ server: servers.recorded, tool: 'slow', arguments: { workMs: 3000 } }],
    });
    const request = await eventually(
      async () => (await plain.client.workflow.getHandle(loginWorkflowId(servers.recorded)).query(pendingQuery))[0],
      'the sign-in request',
    );
    assert.equal(await suite.signIn(request.url!), 'Signed in');
    const taskId = await eventually(async () => callsOf('slow')[before]?.taskId as string | undefined, 'the task');
    await eventually(async () => log().some((e) => e.method === 'tasks/get' && e.taskId === taskId), 'the worker watching the task');
    await suite.fixture.control('/__expire-access');
    assert.deepEqual(await handle.result(), { output: 'slow done after 3000 ms', isError: false });
    assert.deepEqual((await activities(handle)).types, ['callMcpTool', 'requestLogin', 'callMcpTool', 'watchMcpTask', 'requestLogin', 'watchMcpTask']);
    assert.deepEqual(await workflowTaskFailures(handle), []);
    await recordHistory(handle, 'task-oauth-login', suite.env.address);
  });
});
