/**
 * No bidirectional or other control character of a server's or a model's text reaches the inbox's HTML (issue 40): a
 * U+202E in a message, a title, a description, an enum label or a tool's description would reorder what a person reads
 * and approves. Prose loses them (a space each); an approval's arguments show them as JSON `\uXXXX` escapes, so the
 * person sees every character that will run. Real parts: a dev server, a worker, the hostile stdio server
 * (test/fixtures/inbox-hostile-server.ts), the inbox over HTTP, its page, its fragment and its live stream.
 */
import assert from 'node:assert/strict';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { escapeJsonControlChars, stripControlChars } from '../../src/contract/control-chars.js';
import { startInbox, type InboxHandle } from '../../src/inbox/index.js';
import { mcpToolCall } from '../../src/workflows/index.js';
import { closeAll, eventually, suiteEnvironment } from '../helpers/temporal.js';

const here = dirname(fileURLToPath(import.meta.url));
const hostileServer = resolve(here, '..', 'fixtures', 'inbox-hostile-server.js');
/** Every character the page must not carry: C0 but tab and newlines, DEL, C1, bidi marks/embeddings/overrides/isolates, separators, BOM. */
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2028\u2029\u2066-\u2069\ufeff]/u;

function unsafeIn(text: string): string | undefined {
  const m = UNSAFE.exec(text);
  return m
    ? `U+${m[0].charCodeAt(0).toString(16).padStart(4, '0')} at ${m.index}: …${JSON.stringify(text.slice(Math.max(0, m.index - 60), m.index + 20))}`
    : undefined;
}

describe("the inbox's HTML carries no bidi or control character of a server or a model", () => {
  const suite = suiteEnvironment({
    name: 'inbox-bidi',
    searchAttributes: true,
    extraServers: { hostile: { command: [process.execPath, hostileServer] } },
  });
  let inbox: InboxHandle;
  before(async () => {
    inbox = await startInbox({ client: suite.env.client, host: '127.0.0.1', port: 0, refreshMs: 300 });
  });
  after(() => closeAll(inbox));

  it('an approval with U+202E in its arguments, then the question it asks: page, fragment and live stream clean', async () => {
    const to = 'bob\u202e\u2066lapyap\u2069';
    const handle = await suite.env.client.workflow.start(mcpToolCall, {
      taskQueue: suite.taskQueue,
      workflowId: `bidi-${Date.now()}`,
      args: [{ server: 'hostile', tool: 'bidi_form', arguments: { to }, approval: 'always' }],
    });
    try {
      const approval = await eventually(async () => (await suite.durable.pendingDetails(handle.workflowId))[0], 'the approval');
      const page = await (await fetch(inbox.url)).text();
      assert.ok(page.includes(`data-workflow-id="${handle.workflowId}"`), 'the approval is listed');
      assert.equal(unsafeIn(page), undefined, 'the page with the approval');
      // The arguments are shown whole: the hidden characters as escapes a person can read, the same JSON once parsed.
      assert.ok(page.includes('bob\\u202e\\u2066lapyap\\u2069'), 'the arguments show each hidden character as \\uXXXX');
      assert.equal(unsafeIn(await (await fetch(`${inbox.url}fragment`)).text()), undefined, 'the fragment');

      // The live stream pushes the rows' HTML: read its first event.
      const abort = new AbortController();
      const events = await fetch(`${inbox.url}events`, { signal: abort.signal });
      const reader = events.body!.getReader();
      let pushed = '';
      while (!pushed.includes('\n\n')) pushed += new TextDecoder().decode((await reader.read()).value);
      abort.abort();
      assert.ok(pushed.includes(handle.workflowId), 'the live stream pushed the rows');
      assert.equal(unsafeIn(pushed), undefined, 'the live stream');

      await suite.durable.accept(handle.workflowId, approval.request.id);
      const question = await eventually(
        async () => (await suite.durable.pendingDetails(handle.workflowId)).find((p) => p.request.id !== approval.request.id),
        'the question the tool asks',
      );
      assert.match(question.request.prompt, /\u202e/, "the server's message holds U+202E (the fixture is hostile)");
      const asked = await eventually(async () => {
        const text = await (await fetch(inbox.url)).text();
        return text.includes('Pay bob') && text.includes('Say why') ? text : undefined;
      }, 'the question on the page');
      assert.equal(unsafeIn(asked), undefined, 'the page with the question: message, title, description, enum label');
      assert.ok(asked.includes('Label  evil x'), 'the enum label, its controls each a space');
      const history = await (await fetch(`${inbox.url}history`)).text();
      assert.equal(unsafeIn(history), undefined, 'the history');
    } finally {
      await handle.terminate().catch(() => undefined);
    }
  });

  it('strips prose and escapes JSON (pure)', () => {
    assert.equal(stripControlChars('a\u202eb\u2066c\u0007d\ne', '\n'), 'a b c d\ne');
    const json = JSON.stringify({ to: 'bob\u202e\u2028x' }, null, 2);
    const shown = escapeJsonControlChars(json);
    assert.equal(unsafeIn(shown), undefined);
    assert.deepEqual(JSON.parse(shown), JSON.parse(json), 'the same JSON value');
  });
});
