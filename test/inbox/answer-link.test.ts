/**
 * Answering from a notification (docs/people.md): the webhook gets a Slack-formatted body with one signed link per
 * assignee; the link answers its request in a fresh browser with no inbox token; a second use is refused; a link for
 * another request or another person, a tampered one, and a link for an assignee the request no longer has are refused.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser } from 'playwright-core';
import { openAnswerLink, signAnswerLink } from '../../src/codec/answer-link.js';
import { startInbox, type InboxHandle } from '../../src/inbox/index.js';
import { CHROMIUM, CHROMIUM_ARGS } from '../../scripts/browser.js';
import { closeAll, eventually, fixtureConfig, suiteEnvironment, tempDir, uniqueTaskQueue } from '../helpers/temporal.js';
import { freePort } from '../helpers/ports.js';
import { receiver } from '../helpers/webhook.js';
import { waitForPending } from '../helpers/watch.js';
import { pendingDetailsQuery } from '../../src/workflows/messages.js';

const KEY = 'answer-link-key-for-tests-0123456789abcdef';

/** The webhook's receiver: every body it got. */
const hook = await receiver();
const bodies = () => hook.received.map((r) => r.body as { text: string });
const hookUrl = hook.url;
const inboxPort = await freePort();
const inboxUrl = `http://127.0.0.1:${inboxPort}/`;

describe('answer links in notifications', () => {
  let inbox: InboxHandle;
  let browser: Browser;
  const dir = tempDir();
  after(() => closeAll(browser, inbox, hook));
  const suite = suiteEnvironment({
    taskQueue: uniqueTaskQueue('answer-link'),
    searchAttributes: true,
    logPath: join(dir, 'fx.jsonl'),
    mcpConfig: {
      ...fixtureConfig(join(dir, 'fx.jsonl')),
      notify: {
        url: hookUrl,
        format: 'slack',
        inboxUrl,
        linkKey: KEY,
        // Each assignee's own channel (one receiver standing for all, told apart by the query).
        assigneeWebhooks: Object.fromEntries(['ana', 'bob', 'carl', 'dana'].map((n) => [`${n}@example.com`, { url: `${hookUrl}?to=${n}` }])),
      },
    },
  });
  before(async () => {
    // A token the browser never gets: the link is all it has.
    inbox = await startInbox({ client: suite.env.client, host: '127.0.0.1', port: inboxPort, token: 'inbox-token-never-shown', answerLinkKey: KEY });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });

  const linksOf = (workflowId: string) =>
    bodies()
      .filter((b) => b.text.includes(workflowId))
      .flatMap((b) => [...b.text.matchAll(/<(http[^|>]+)\|answer as ([^>]+)>/g)].map((m) => ({ url: m[1]!, to: m[2]! })));

  it('a Slack body with a link per assignee; the link answers once in a fresh browser; other links are refused', async () => {
    const prefix = `link-${process.pid}-${Date.now()}`;
    const a = await suite.durable.startToolCall({
      server: 'fx',
      tool: 'ask_name',
      workflowId: `${prefix}-a`,
      elicitation: { holdFor: 1 },
      assignees: { users: ['ana@example.com', 'bob@example.com'] },
    });
    const b = await suite.durable.startToolCall({
      server: 'fx',
      tool: 'ask_name',
      workflowId: `${prefix}-b`,
      elicitation: { holdFor: 1 },
      assignees: { users: ['carl@example.com'] },
    });
    await waitForPending(suite.env.client.workflow.getHandle(a.workflowId), 1, 300_000);
    await waitForPending(suite.env.client.workflow.getHandle(b.workflowId), 1, 300_000);
    const links = await eventually(() => (linksOf(a.workflowId).length === 2 ? linksOf(a.workflowId) : undefined), 'the notification of a', 120_000, 200);
    // The shared channel: the request and the inbox, no answer link; each assignee's channel: their own link only.
    const shared = hook.received.find((r) => r.path === '/hook' && (r.body as { text: string }).text.includes(a.workflowId))!;
    assert.doesNotMatch((shared.body as { text: string }).text, /\/a\//, 'the shared channel carries no answer link');
    for (const n of ['ana', 'bob']) {
      const theirs = hook.received.filter((r) => r.path === `/hook?to=${n}` && (r.body as { text: string }).text.includes(a.workflowId));
      assert.equal(theirs.length, 1, `${n}'s channel got one notification`);
      assert.deepEqual(
        [...(theirs[0]!.body as { text: string }).text.matchAll(/\|answer as ([^>]+)>/g)].map((m) => m[1]),
        [`${n}@example.com`],
        `${n}'s channel: their link only`,
      );
    }
    // The Slack body: mrkdwn text naming the call and the workflow, the inbox, and the links.
    const body = bodies().find((x) => x.text.includes(a.workflowId))!;
    assert.deepEqual(Object.keys(body), ['text']);
    assert.match(body.text, /^\*durable-mcp: input requested\* by fx\/ask_name in workflow `/);
    assert.match(body.text, new RegExp(`answer it in the inbox: ${inboxUrl.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    assert.deepEqual(
      links.map((l) => l.to),
      ['ana@example.com', 'bob@example.com'],
    );
    const ana = links[0]!.url;
    assert.ok(ana.startsWith(`${inboxUrl}a/`));
    const opened = openAnswerLink(KEY, ana.slice(`${inboxUrl}a/`.length));
    assert.ok(typeof opened === 'object' && opened.workflowId === a.workflowId && opened.to === 'ana@example.com');

    // A fresh browser, no token, no session: the link opens the one form and answers it.
    const context = await browser.newContext();
    const page = await context.newPage();
    const res = await page.goto(ana);
    assert.equal(res?.status(), 200);
    assert.match(await page.locator('h1').innerText(), /A request for ana@example\.com/);
    await page.locator('[name=name]').fill('Ana by link');
    await Promise.all([page.waitForLoadState('load'), page.locator('button[value=accept]').click()]);
    await page.waitForSelector('.notice');
    assert.match(await page.locator('.notice').innerText(), /your answer \(accept\) was taken/);
    assert.equal((await suite.durable.result(a.workflowId)).output, 'hello Ana by link');
    // The worker checked the inbox's proof (the link key is the key they share): recorded as a link, with its assurance.
    const record = await eventually(async () => {
      const { rows } = await suite.durable.listResolved({ since: new Date(Date.now() - 10 * 60_000), workflowId: a.workflowId });
      return rows[0];
    }, 'the link answer listed');
    assert.deepEqual([record.by, record.source, record.claimed, record.assurance], ['ana@example.com (link)', 'link', undefined, 'signed-link']);
    // The token's page itself stays closed to this browser.
    assert.equal((await page.goto(inboxUrl))?.status(), 401);

    // A second use: refused.
    const again = await fetch(ana);
    assert.equal(again.status, 410);
    // Bob's link of the same (answered) request: no longer pending.
    assert.equal((await fetch(links[1]!.url)).status, 409);
    // A tampered link (Ana's token, another request's id): refused before Temporal.
    const token = ana.slice(`${inboxUrl}a/`.length);
    const [bodyPart, mac] = token.split('.');
    const tampered = JSON.parse(Buffer.from(bodyPart!, 'base64url').toString());
    tampered.w = b.workflowId;
    assert.equal((await fetch(`${inboxUrl}a/${Buffer.from(JSON.stringify(tampered)).toString('base64url')}.${mac}`)).status, 403);
    // A genuine link for a person the request is not addressed to: refused.
    const requestB = (await suite.durable.pendingDetails(b.workflowId))[0]!.request;
    const wrongPerson = signAnswerLink(KEY, { workflowId: b.workflowId, run: 'r', requestId: requestB.id, to: 'ana@example.com', exp: Date.now() + 60_000 });
    assert.equal((await fetch(`${inboxUrl}a/${wrongPerson}`)).status, 403);
    const post = await fetch(`${inboxUrl}a/${wrongPerson}`, {
      method: 'POST',
      headers: { origin: inboxUrl.slice(0, -1), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ name: 'x', __action: 'accept' }),
    });
    assert.equal(post.status, 403);
    // An expired one: refused.
    const expired = signAnswerLink(KEY, { workflowId: b.workflowId, run: 'r', requestId: requestB.id, to: 'carl@example.com', exp: Date.now() - 1 });
    assert.equal((await fetch(`${inboxUrl}a/${expired}`)).status, 410);
    // Carl's own link opens his.
    const carl = await eventually(() => linksOf(b.workflowId)[0], 'the notification of b', 120_000, 200);
    assert.equal((await fetch(carl.url)).status, 200);
    await context.close();
  });
  it('a request that needs several people (N of M) is not answered by a link: it says to sign in', async () => {
    const call = await suite.durable.startToolCall({
      server: 'fx',
      tool: 'ask_name',
      workflowId: `link-n-of-m-${process.pid}-${Date.now()}`,
      elicitation: { holdFor: 1 },
      assignees: { users: ['ana@example.com', 'bob@example.com'] },
      approvals: 2,
    });
    const [request] = await waitForPending(suite.env.client.workflow.getHandle(call.workflowId), 1, 300_000);
    // A genuine link, signed with the inbox's key (the worker sends none for such a request).
    const link = signAnswerLink(KEY, { workflowId: call.workflowId, run: 'r', requestId: request!.id, to: 'ana@example.com', exp: Date.now() + 60_000 });
    const page = await fetch(`${inboxUrl}a/${link}`);
    assert.equal(page.status, 403);
    assert.match(await page.text(), /needs 2 people to accept: sign in to the inbox/);
    const post = await fetch(`${inboxUrl}a/${link}`, {
      method: 'POST',
      headers: { origin: inboxUrl.slice(0, -1), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ name: 'x', __action: 'accept' }),
    });
    assert.equal(post.status, 403);
    assert.deepEqual(
      (await suite.env.client.workflow.getHandle(call.workflowId).query(pendingDetailsQuery))[0]!.context.approvals,
      { required: 2, accepted: [] },
      'nothing was counted',
    );
    const note = await eventually(() => bodies().find((b) => b.text.includes(call.workflowId)), 'its notification', 120_000, 200);
    assert.doesNotMatch(note.text, /\/a\//, 'its notification carries no link');
  });

  it('a link answers once, for its own run: used for run 1, it is refused on run 2 (same id, same request) by another replica', async () => {
    const workflowId = `link-run-${process.pid}-${Date.now()}`;
    const startRun = () =>
      suite.durable.startToolCall({ server: 'fx', tool: 'ask_name', workflowId, elicitation: { holdFor: 1 }, assignees: { users: ['dana@example.com'] } });
    await startRun();
    const [request] = await waitForPending(suite.env.client.workflow.getHandle(workflowId), 1, 300_000);
    const [link] = await eventually(() => (linksOf(workflowId).length === 1 ? linksOf(workflowId) : undefined), 'the notification of run 1', 120_000, 200);
    const token = link!.url.slice(`${inboxUrl}a/`.length);
    const opened = openAnswerLink(KEY, token);
    assert.ok(typeof opened === 'object' && opened.run.length > 0, 'the link names its run');
    const answerBy = (base: string) =>
      fetch(`${base}a/${token}`, {
        method: 'POST',
        headers: { origin: base.slice(0, -1), 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ name: 'run one', __action: 'accept' }),
      });
    assert.equal((await answerBy(inboxUrl)).status, 200, 'replica A takes it for run 1');
    assert.equal((await suite.durable.result(workflowId)).output, 'hello run one');

    // Run 2: the same workflow id and arguments, so the same request id, on a replica that never saw the link.
    const second = await startRun();
    assert.notEqual((await second.describe()).runId, opened.run, 'a new run');
    const [again] = await waitForPending(suite.env.client.workflow.getHandle(workflowId), 1, 300_000);
    assert.equal(again!.id, request!.id, 'the same request id in the new run');
    const replica = await startInbox({ client: suite.env.client, host: '127.0.0.1', port: 0, token: 'another-token', answerLinkKey: KEY });
    try {
      const refused = await answerBy(replica.url);
      assert.notEqual(refused.status, 200);
      assert.match(await refused.text(), /made for another run of workflow/);
      assert.deepEqual(
        (await suite.durable.pendingDetails(workflowId)).map((p) => p.request.id),
        [request!.id],
        'run 2 still waits for its person',
      );
    } finally {
      await replica.close();
      await suite.env.client.workflow.getHandle(workflowId).terminate();
    }
  });
});
