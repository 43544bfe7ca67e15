import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMcpSourceError, parseMcpConfig, SessionPool, type Lease } from '../../src/mcp/index.js';
import { childProcesses, events, isAlive, stdioFixture, waitUntil } from '../helpers/mcp.js';

const dir = mkdtempSync(join(tmpdir(), 'mcp-pool-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let logCounter = 0;
const newLog = (): string => join(dir, `log-${++logCounter}.jsonl`);

function newPool(servers: Record<string, unknown> = { fx: stdioFixture(newLog()) }): SessionPool {
  return new SessionPool(parseMcpConfig({ mcpServers: servers }));
}

/** Run `fn` with a new pool of `servers` (default: the fixture server `fx`), closed after it whatever happens. */
async function withPool(...args: [(pool: SessionPool) => Promise<void>] | [Record<string, unknown>, (pool: SessionPool) => Promise<void>]): Promise<void> {
  const [servers, fn] = args.length === 1 ? [undefined, args[0]] : args;
  const pool = newPool(servers);
  try {
    await fn(pool);
  } finally {
    await pool.close();
  }
}

const tick = (ms = 50): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('SessionPool', () => {
  it('refuses an idleTimeoutMs that is negative, not an integer or past what Node timers can wait, naming the option', () => {
    for (const bad of [-1, 1.5, 2 ** 31, '300000']) {
      assert.throws(
        () => new SessionPool(parseMcpConfig({ mcpServers: {} }), { idleTimeoutMs: bad as number }),
        /pool option "idleTimeoutMs" must be an integer .* got /,
      );
    }
    assert.doesNotThrow(() => new SessionPool(parseMcpConfig({ mcpServers: {} }), { idleTimeoutMs: 0 }));
  });

  it('refuses a handoverGraceMs that is negative, not an integer or past what Node timers can wait, naming the option', () => {
    for (const bad of [-1, 1.5, 2 ** 31, '1000']) {
      assert.throws(
        () => new SessionPool(parseMcpConfig({ mcpServers: {} }), { handoverGraceMs: bad as number }),
        /pool option "handoverGraceMs" must be an integer .* got /,
      );
    }
    assert.equal(new SessionPool(parseMcpConfig({ mcpServers: {} })).handoverGraceMs, 1_000, 'the default');
    assert.equal(new SessionPool(parseMcpConfig({ mcpServers: {} }), { handoverGraceMs: 0 }).handoverGraceMs, 0);
  });

  it('reuses the session for sequential leases', async () => {
    await withPool(async (pool) => {
      const first = await pool.lease('fx');
      const pid = first.session.pid;
      assert.equal(typeof pid, 'number');
      await first.release();
      const second = await pool.lease('fx');
      assert.equal(second.session, first.session);
      assert.equal(second.session.pid, pid);
      assert.equal(pool.opened, 1);
      assert.deepEqual(await second.session.callTool('echo', { text: 'again' }, { timeoutMs: 5000 }), { output: 'echo: again', isError: false });
      await second.release();
      assert.deepEqual(pool.stats(), { fx: { idle: 1, leased: 0, waiting: 0 } });
    });
  });

  it('gives concurrent leases two different sessions', async () => {
    await withPool(async (pool) => {
      const [a, b] = await Promise.all([pool.lease('fx'), pool.lease('fx')]);
      assert.notEqual(a.session, b.session);
      assert.notEqual(a.session.pid, b.session.pid);
      assert.equal(pool.opened, 2);
      assert.deepEqual(pool.stats().fx, { idle: 0, leased: 2, waiting: 0 });
      await Promise.all([a.release(), b.release()]);
      assert.deepEqual(pool.stats().fx, { idle: 2, leased: 0, waiting: 0 });
    });
  });

  it('replaces a discarded session', async () => {
    await withPool(async (pool) => {
      const first = await pool.lease('fx');
      const pid = first.session.pid!;
      await first.release({ discard: true });
      assert.equal(first.session.closed, true);
      assert.equal(isAlive(pid), false, 'the discarded server process ended');
      const second = await pool.lease('fx');
      assert.notEqual(second.session, first.session);
      assert.notEqual(second.session.pid, pid);
      assert.equal(pool.opened, 2);
      await second.release();
    });
  });

  it('does not hand out a session whose process died', async () => {
    await withPool(async (pool) => {
      const first = await pool.lease('fx');
      const pid = first.session.pid!;
      await first.release();
      process.kill(pid, 'SIGKILL');
      await waitUntil(() => first.session.closed, 30_000, 'the session to notice its process died');
      const second = await pool.lease('fx');
      assert.notEqual(second.session, first.session);
      assert.notEqual(second.session.pid, pid);
      assert.deepEqual(await second.session.callTool('echo', { text: 'fresh' }, { timeoutMs: 5000 }), { output: 'echo: fresh', isError: false });
      await second.release();
    });
  });

  it('closes a session whose process died while leased instead of returning it', async () => {
    await withPool(async (pool) => {
      const first = await pool.lease('fx');
      const pid = first.session.pid!;
      process.kill(pid, 'SIGKILL');
      await waitUntil(() => first.session.closed, 30_000, 'the session to notice its process died');
      await first.release();
      assert.deepEqual(pool.stats().fx, { idle: 0, leased: 0, waiting: 0 });
      const second = await pool.lease('fx');
      assert.notEqual(second.session.pid, pid);
      await second.release();
    });
  });

  it('asks one holder per waiter to give its session up, and a holder that starts waiting later takes on an unserved waiter', async () => {
    await withPool({ two: stdioFixture(newLog(), { maxSessions: 2 }) }, async (pool) => {
      const a = await pool.lease('two');
      const b = await pool.lease('two');
      const asked: string[] = [];
      a.onPressure(() => {
        asked.push('a');
        return true;
      });
      b.onPressure(() => {
        asked.push('b');
        return true;
      });
      const first = pool.lease('two');
      await tick();
      assert.deepEqual(asked, ['a'], 'only one holder is asked for one waiter');
      await a.release({ discard: true });
      const c = await first;
      await b.release();
      await c.release();
    });
  });

  it('a waiter no holder would serve is taken on by the first holder that offers, once', async () => {
    await withPool({ one: stdioFixture(newLog(), { maxSessions: 1 }) }, async (pool) => {
      const holder = await pool.lease('one');
      holder.onPressure(() => false); // busy running a tool: cannot give the session up now
      const waiting = pool.lease('one');
      await tick();
      assert.equal(holder.offer(), true, 'now merely waiting for a human: takes the waiter on');
      assert.equal(holder.offer(), false, 'only once per waiter');
      await holder.release({ discard: true });
      const next = await waiting;
      await next.release();
    });
  });

  it('makes a second lease wait when maxSessions is reached, tells the holder, and hands the session over on release', async () => {
    await withPool({ one: stdioFixture(newLog(), { maxSessions: 1 }) }, async (pool) => {
      const holder = await pool.lease('one');
      let pressure = 0;
      holder.onPressure(() => {
        pressure++;
        return true;
      });
      let waiterLease: Lease | undefined;
      const waiting = pool.lease('one').then((l) => (waiterLease = l));
      await tick();
      assert.equal(pressure, 1, 'the holder heard about the waiter');
      assert.equal(waiterLease, undefined, 'the second lease waits');
      assert.deepEqual(pool.stats().one, { idle: 0, leased: 1, waiting: 1 });
      await holder.release();
      const second = await waiting;
      assert.equal(second.session, holder.session);
      assert.equal(pool.opened, 1);
      assert.deepEqual(pool.stats().one, { idle: 0, leased: 1, waiting: 0 });
      await second.release();
    });
  });

  it('opens a fresh session for the waiter when the holder discards', async () => {
    await withPool({ one: stdioFixture(newLog(), { maxSessions: 1 }) }, async (pool) => {
      const holder = await pool.lease('one');
      const waiting = pool.lease('one');
      await tick();
      await holder.release({ discard: true });
      const second = await waiting;
      assert.notEqual(second.session, holder.session);
      assert.equal(pool.opened, 2);
      await second.release();
    });
  });

  it('keeps the freed slot for the waiter while the discarded session closes: a later caller does not jump the queue', async () => {
    await withPool({ one: stdioFixture(newLog(), { maxSessions: 1 }) }, async (pool) => {
      const holder = await pool.lease('one');
      const order: string[] = [];
      const waiting = pool.lease('one').then((l) => (order.push('waiter'), l));
      await tick();
      const released = holder.release({ discard: true });
      const later = pool.lease('one').then((l) => (order.push('later'), l));
      await Promise.race([waiting, later]);
      assert.deepEqual(order, ['waiter'], 'the caller that waited is served first');
      const first = await waiting;
      assert.deepEqual(pool.stats().one, { idle: 0, leased: 1, waiting: 1 }, 'the later caller waits; maxSessions holds');
      await released;
      await first.release();
      await (await later).release();
      assert.deepEqual(order, ['waiter', 'later']);
    });
  });

  it('stops waiting when the lease signal aborts', async () => {
    await withPool({ one: stdioFixture(newLog(), { maxSessions: 1 }) }, async (pool) => {
      const holder = await pool.lease('one');
      const controller = new AbortController();
      const waiting = pool.lease('one', controller.signal);
      await tick();
      controller.abort(new Error('no longer needed'));
      await assert.rejects(waiting, /no longer needed/);
      assert.equal(pool.stats().one.waiting, 0);
      await holder.release();
      assert.deepEqual(pool.stats().one, { idle: 1, leased: 0, waiting: 0 });
    });
  });

  it("advertises elicitation and routes it to the call that runs: a released lease's call never answers the next one's", async () => {
    const log = newLog();
    await withPool({ fx: stdioFixture(log) }, async (pool) => {
      const lease = await pool.lease('fx');
      const onElicit = async () => ({ action: 'accept' as const, content: { name: 'Pooled' } });
      assert.deepEqual(await lease.session.callTool('ask_name', {}, { timeoutMs: 10_000, onElicit }), { output: 'hello Pooled', isError: false });
      await lease.release();
      const again = await pool.lease('fx');
      // Nobody owns the elicitation after release: the session answers cancel.
      assert.deepEqual(await again.session.callTool('ask_name', {}, { timeoutMs: 10_000 }), { output: 'cancelled', isError: false });
      await again.release();
      assert.deepEqual(
        events(log, 'received', 'ask_name').map((e) => e.result),
        [{ action: 'accept', content: { name: 'Pooled' } }, { action: 'cancel' }],
      );
    });
  });

  it('rejects an unknown server with UnknownServer naming the configured servers', async () => {
    await withPool({ alpha: stdioFixture(newLog()), beta: stdioFixture(newLog(), { enabled: false }) }, async (pool) => {
      await assert.rejects(pool.lease('gamma'), (err: unknown) => {
        assert.ok(isMcpSourceError(err, 'UnknownServer'));
        assert.equal(err.disabled, undefined);
        assert.match(err.message, /"gamma"/);
        assert.match(err.message, /alpha, beta/);
        return true;
      });
      assert.equal(pool.opened, 0);
    });
  });

  it('rejects a disabled server with UnknownServer, disabled', async () => {
    await withPool({ off: stdioFixture(newLog(), { disabled: true }) }, async (pool) => {
      await assert.rejects(pool.lease('off'), (err: unknown) => {
        assert.ok(isMcpSourceError(err, 'UnknownServer'));
        assert.equal(err.disabled, true);
        assert.match(err.message, /"off"/);
        return true;
      });
      assert.equal(pool.opened, 0);
    });
  });

  it('close() leaves no child process, idle or leased, and rejects waiters and later leases', async () => {
    const before = childProcesses();
    const pool = newPool({ fx: stdioFixture(newLog()), one: stdioFixture(newLog(), { maxSessions: 1 }) });
    const idle = await pool.lease('fx');
    const leased = await pool.lease('fx');
    const holder = await pool.lease('one');
    const waiting = pool.lease('one');
    waiting.catch(() => undefined);
    await idle.release();
    assert.equal(childProcesses().length, before.length + 3);
    const pids = [idle.session.pid!, leased.session.pid!, holder.session.pid!];

    await pool.close();
    await assert.rejects(waiting, (err: unknown) => isMcpSourceError(err, 'WorkerShuttingDown'));
    assert.deepEqual(childProcesses(), before);
    for (const pid of pids) assert.equal(isAlive(pid), false, `server process ${pid} ended`);
    await assert.rejects(pool.lease('fx'), (err: unknown) => isMcpSourceError(err, 'WorkerShuttingDown'));
    await leased.release(); // releasing after close is harmless
    await holder.release();
  });

  it('eras per tool: a legacy lease gets a legacy-era session, the other tools keep the era the server negotiates, within maxSessions', async () => {
    const shapes = fileURLToPath(new URL('../fixtures/shapes-server.js', import.meta.url));
    await withPool({ both: { command: [process.execPath, shapes], maxSessions: 1 } }, async (pool) => {
      const modern = await pool.lease('both');
      assert.equal(modern.session.era, 'modern', 'the server offers 2026-07-28: negotiated');
      await modern.release();
      assert.equal(pool.rememberOldWay('both', 'own_words'), true, 'news');
      assert.equal(pool.rememberOldWay('both', 'own_words'), false, 'known');
      assert.equal(pool.asksTheOldWay('both', 'own_words'), true);
      assert.equal(pool.asksTheOldWay('both', 'untyped_round'), false, 'per tool, not per server');
      const legacy = await pool.lease('both', undefined, { era: 'legacy' });
      assert.equal(legacy.session.era, 'legacy');
      assert.notEqual(legacy.session, modern.session, 'the idle modern session is not taken for a legacy lease');
      assert.equal(modern.session.closed, true, 'and it made room: never more than maxSessions');
      await legacy.release();
      const again = await pool.lease('both');
      assert.equal(again.session.era, 'modern', 'a legacy session opened for one tool is not taken by the others');
      await again.release();
      assert.equal(pool.opened, 3);
    });
  });
});
