/**
 * A per-worker pool of MCP sessions, keyed by server. A session serves one tool call at a time
 * (exclusive lease), because neither stdio nor HTTP tells the client which `tools/call` an
 * elicitation belongs to. Sessions are reused; a broken one is discarded and replaced. When every
 * session of a server is leased and someone waits, the holders are told (`pressure`), so that a
 * lease that only waits for a human can be released.
 */
import { MAX_TIMER_MS, type McpConfig, type ServerConfig } from './config.js';
import { McpSourceError, McpSourceErrorCodes } from './errors.js';
import type { AuthProvider } from '@modelcontextprotocol/client';
import { McpSession } from './session.js';

export interface Lease {
  readonly session: McpSession;
  /** Return the session to the pool, or close it (`discard`) when its state is unknown. */
  release(options?: { discard?: boolean }): Promise<void>;
  /**
   * Called when another caller waits for a session of this server and none is free. The listener returns
   * true when it gives its session up (it then releases the lease); the pool asks one holder per waiter.
   */
  onPressure(listener: () => boolean): void;
  /**
   * The holder now merely waits (for a human): if a caller waits for a session that no holder has yet
   * promised to give up, this holder takes that on (returns true) and must release its lease.
   */
  offer(): boolean;
  /** How long a holder that starts waiting for a human keeps its session under pressure (PoolOptions.handoverGraceMs). */
  readonly handoverGraceMs: number;
}

/** Default PoolOptions.handoverGraceMs. */
export const DEFAULT_HANDOVER_GRACE_MS = 1_000;

interface Waiter {
  resolve(lease: Lease): void;
  reject(err: Error): void;
  /** The lease it waits for asks for a legacy-era session (a tool that asks the old way). */
  legacy: boolean;
}

/** What a lease asks for besides the server. */
export interface LeaseOptions {
  /** Servers behind OAuth: whose token the session sends (sessions of different principals are never shared). */
  principal?: string;
  /** `legacy`: a legacy-era session, for a tool that asks the old way; absent: the era the server negotiates. */
  era?: 'legacy';
}

interface ServerState {
  idle: McpSession[];
  leased: Set<LeaseImpl>;
  connecting: number;
  waiters: Waiter[];
  /** Waiters for which no holder has promised to give its session up yet. */
  unserved: number;
}

class LeaseImpl implements Lease {
  private released = false;
  private readonly listeners: Array<() => boolean> = [];
  constructor(
    readonly session: McpSession,
    private readonly pool: SessionPool,
    /** The pool's key: the server, and the principal whose token its session sends (servers behind OAuth). */
    readonly key: string,
  ) {}
  release(options: { discard?: boolean } = {}): Promise<void> {
    if (this.released) return Promise.resolve();
    this.released = true;
    return this.pool.giveBack(this, options.discard === true);
  }
  onPressure(listener: () => boolean): void {
    this.listeners.push(listener);
  }
  offer(): boolean {
    return !this.released && this.pool.takeUnserved(this.key);
  }
  get handoverGraceMs(): number {
    return this.pool.handoverGraceMs;
  }
  /** Ask this holder to give its session up; true when it will. */
  pressure(): boolean {
    if (this.released) return false;
    return this.listeners.some((l) => l());
  }
}

export interface PoolOptions {
  /** Close sessions idle this long (default 5 minutes). */
  idleTimeoutMs?: number;
  /**
   * How long a call that starts waiting for a person keeps its session when another call needs one (every session of
   * the server leased), default 1 s: an answer within it (a bot, an auto-approval, a person already at the inbox)
   * finishes the call on its session, where giving the session up closes it and re-runs the tool once answered. After
   * it, the holder gives its session up at once. It delays the call that waits for a session by at most this much.
   */
  handoverGraceMs?: number;
  onStderr?: (server: string, line: string) => void;
  /**
   * The bearer token a session of a server behind OAuth sends (`auth` in its config), for the lease's principal:
   * sessions of different principals are never shared.
   */
  authProvider?: (server: ServerConfig, principal: string | undefined) => AuthProvider | undefined;
}

export class SessionPool {
  private readonly states = new Map<string, ServerState>();
  private readonly idleTimers = new Map<McpSession, NodeJS.Timeout>();
  /**
   * The era each server negotiated on its last connect: later connects reuse it instead of probing again
   * (`server/discover` costs a round trip, and on stdio a process of its own). Forgotten when a connect fails.
   */
  private readonly verdicts = new Map<string, McpSession['verdict']>();
  /**
   * Per server, its tools that ask the old way (refused in 2026-07-28, then asking in the legacy era): they lease legacy
   * sessions; its other tools keep its era and their rounds (docs/protocol.md). Forgotten when a legacy connect fails.
   */
  private readonly oldWayTools = new Map<string, Set<string>>();
  /** Sessions opened in the legacy era for a tool that asks the old way (not the era the server negotiates). */
  private readonly forcedLegacy = new WeakSet<McpSession>();
  private closedFlag = false;
  /** Sessions being opened or closed: `close()` waits for them, so no server process outlives the pool. */
  private readonly inFlight = new Set<Promise<unknown>>();
  /** Sessions opened since the pool started (for tests and benchmarks). */
  opened = 0;

  constructor(
    readonly config: McpConfig,
    private readonly options: PoolOptions = {},
  ) {
    for (const key of ['idleTimeoutMs', 'handoverGraceMs'] as const) {
      const ms = options[key];
      if (ms !== undefined && !(typeof ms === 'number' && Number.isInteger(ms) && ms >= 0 && ms <= MAX_TIMER_MS)) {
        throw new RangeError(
          `pool option "${key}" must be an integer number of milliseconds from 0 to ${MAX_TIMER_MS}` +
            ` (about 24.8 days), got ${JSON.stringify(ms) ?? String(ms)}`,
        );
      }
    }
  }

  /** PoolOptions.handoverGraceMs, or its default. */
  get handoverGraceMs(): number {
    return this.options.handoverGraceMs ?? DEFAULT_HANDOVER_GRACE_MS;
  }

  serverConfig(name: string): ServerConfig {
    const server = this.config.servers[name];
    if (!server) {
      throw new McpSourceError(
        McpSourceErrorCodes.UnknownServer,
        `unknown MCP server "${name}"; configured servers: ${Object.keys(this.config.servers).join(', ') || '(none)'}`,
        { server: name },
      );
    }
    if (!server.enabled)
      throw new McpSourceError(McpSourceErrorCodes.UnknownServer, `MCP server "${name}" is disabled in the MCP config`, { server: name, disabled: true });
    return server;
  }

  private state(name: string): ServerState {
    let s = this.states.get(name);
    if (!s) {
      s = { idle: [], leased: new Set(), connecting: 0, waiters: [], unserved: 0 };
      this.states.set(name, s);
    }
    return s;
  }

  /**
   * Lease a session of `server` exclusively. Waits when the server's `maxSessions` are all leased. `principal`: a server
   * behind OAuth with per-call principals keeps one set of sessions per principal.
   */
  async lease(name: string, signal?: AbortSignal, options: LeaseOptions = {}): Promise<Lease> {
    if (this.closedFlag) throw poolClosed();
    const { principal } = options;
    const legacy = options.era === 'legacy';
    const server = this.serverConfig(name);
    const key = principal === undefined ? name : `${name}\u0000${principal}`;
    const state = this.state(key);
    for (let i = state.idle.length - 1; i >= 0; i--) {
      const session = state.idle[i]!;
      if (!session.closed && !this.fits(session, legacy)) continue;
      state.idle.splice(i, 1);
      this.clearIdle(session);
      if (session.closed) continue;
      return this.grant(state, session, key);
    }
    if (state.leased.size + state.connecting < server.maxSessions) {
      // An idle session of the other era makes room (never more live sessions than maxSessions).
      const other = state.idle.shift();
      if (other) {
        this.clearIdle(other);
        void this.track(other.close());
      }
      state.connecting++;
      try {
        const prior = legacy ? ({ kind: 'legacy' } as const) : this.verdicts.get(name);
        const authProvider = this.options.authProvider?.(server, principal);
        const connecting = McpSession.connect(server, {
          elicitation: true,
          ...(authProvider ? { authProvider } : {}),
          onStderr: this.options.onStderr ? (line) => this.options.onStderr!(name, line) : undefined,
          ...(prior ? { prior } : {}),
        }).then(async (session) => {
          this.opened++;
          // A legacy session asked for a tool says nothing of the era the server negotiates.
          if (legacy) this.forcedLegacy.add(session);
          else this.verdicts.set(name, session.verdict);
          if (this.closedFlag) {
            await session.close();
            throw poolClosed();
          }
          return session;
        });
        this.track(connecting);
        const session = await connecting;
        return this.grant(state, session, key);
      } catch (err) {
        // The server may have changed eras: the next connect probes again.
        this.verdicts.delete(name);
        if (legacy) this.oldWayTools.delete(name);
        // Callers that queued behind this connect must not wait for a session that never comes: let the
        // next one try (and fail with the error, if the server is still down).
        state.connecting--;
        const waiter = state.waiters.shift();
        if (waiter) queueMicrotask(() => this.lease(name, undefined, waiterLease(principal, waiter)).then(waiter.resolve, waiter.reject));
        state.connecting++;
        throw err;
      } finally {
        state.connecting--;
      }
    }
    // Full: wait for a session, and tell the holders someone is waiting.
    return new Promise<Lease>((resolve, reject) => {
      let settled = false;
      const waiter: Waiter = {
        resolve: (lease) => {
          signal?.removeEventListener('abort', onAbort);
          // The caller gave up meanwhile: the session must not stay leased to nobody.
          if (settled) void lease.release();
          settled = true;
          resolve(lease);
        },
        reject: (err) => {
          signal?.removeEventListener('abort', onAbort);
          settled = true;
          reject(err);
        },
        legacy,
      };
      const onAbort = () => {
        const i = state.waiters.indexOf(waiter);
        if (i >= 0) state.waiters.splice(i, 1);
        settled = true;
        reject(signal?.reason instanceof Error ? signal.reason : new Error('lease aborted'));
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      state.waiters.push(waiter);
      // Ask the holders, oldest first, until one gives its session up (one per waiter: no thrashing).
      let served = false;
      for (const lease of state.leased) {
        if (lease.pressure()) {
          served = true;
          break;
        }
      }
      if (!served) state.unserved++;
    });
  }

  /** `tool` of `server` asks the old way: its calls lease legacy-era sessions from now on. `true` when this is news. */
  rememberOldWay(name: string, tool: string): boolean {
    const tools = this.oldWayTools.get(name) ?? new Set<string>();
    if (tools.has(tool)) return false;
    tools.add(tool);
    this.oldWayTools.set(name, tools);
    return true;
  }

  /** Whether the worker runs `tool` of `server` in the legacy era because it asks the old way (`rememberOldWay`). */
  asksTheOldWay(name: string, tool: string): boolean {
    return this.oldWayTools.get(name)?.has(tool) === true;
  }

  /** Whether a session serves a lease: a legacy lease takes a legacy one; others never one opened for a legacy lease. */
  private fits(session: McpSession, legacy: boolean): boolean {
    return legacy ? session.era === 'legacy' : !this.forcedLegacy.has(session);
  }

  private grant(state: ServerState, session: McpSession, key: string): Lease {
    const lease = new LeaseImpl(session, this, key);
    state.leased.add(lease);
    return lease;
  }

  /** @internal */
  async giveBack(lease: LeaseImpl, discard: boolean): Promise<void> {
    const name = lease.session.server.name;
    const key = lease.key;
    const principal = key === name ? undefined : key.slice(name.length + 1);
    const state = this.state(key);
    state.leased.delete(lease);
    const session = lease.session;
    // A session of the other era than the first waiter wants is closed, and that waiter connects anew in the slot.
    const misfit = state.waiters.length > 0 && !this.fits(session, state.waiters[0]!.legacy);
    if (discard || misfit || session.closed || this.closedFlag) {
      // The slot goes to the first waiter, which opens a fresh session once the old server process has
      // closed (seconds, for stdio): never more live processes than maxSessions (a server may hold a lock).
      // Meanwhile the slot counts as connecting, so a caller arriving now cannot jump the queue.
      const waiter = state.waiters.shift();
      state.unserved = Math.min(state.unserved, state.waiters.length);
      if (waiter) state.connecting++;
      try {
        await this.track(session.close());
      } finally {
        if (waiter) state.connecting--;
      }
      // lease() takes the slot synchronously (before its first await): nobody can take it in between.
      if (waiter) this.lease(name, undefined, waiterLease(principal, waiter)).then(waiter.resolve, waiter.reject);
      return;
    }
    const waiter = state.waiters.shift();
    if (waiter) {
      state.unserved = Math.min(state.unserved, state.waiters.length);
      waiter.resolve(this.grant(state, session, key));
      return;
    }
    state.idle.push(session);
    const idleMs = this.options.idleTimeoutMs ?? 300_000;
    const timer = setTimeout(() => {
      const i = state.idle.indexOf(session);
      if (i >= 0) state.idle.splice(i, 1);
      this.idleTimers.delete(session);
      void session.close();
    }, idleMs);
    timer.unref();
    this.idleTimers.set(session, timer);
  }

  private track<T>(p: Promise<T>): Promise<T> {
    const settled = p.then(
      () => undefined,
      () => undefined,
    );
    this.inFlight.add(settled);
    void settled.then(() => this.inFlight.delete(settled));
    return p;
  }

  private clearIdle(session: McpSession): void {
    const t = this.idleTimers.get(session);
    if (t) clearTimeout(t);
    this.idleTimers.delete(session);
  }

  /** @internal A holder offers its session to a waiter nobody promised one to yet. */
  takeUnserved(name: string): boolean {
    const state = this.states.get(name);
    if (!state) return false;
    state.unserved = Math.min(state.unserved, state.waiters.length);
    if (state.unserved <= 0) return false;
    state.unserved--;
    return true;
  }

  stats(): Record<string, { idle: number; leased: number; waiting: number }> {
    return Object.fromEntries([...this.states].map(([k, s]) => [k, { idle: s.idle.length, leased: s.leased.size, waiting: s.waiters.length }]));
  }

  /** Close every session, idle and leased. No server process is left behind. */
  async close(): Promise<void> {
    this.closedFlag = true;
    const all: Promise<void>[] = [];
    for (const state of this.states.values()) {
      for (const w of state.waiters.splice(0)) w.reject(poolClosed());
      for (const s of state.idle.splice(0)) {
        this.clearIdle(s);
        all.push(s.close());
      }
      for (const l of state.leased) all.push(l.session.close());
    }
    await Promise.all(all);
    // Sessions still connecting close themselves once connected (the pool is closed); wait for that too.
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }
}

/** The lease a waiter asked for, taken again in its turn. */
function waiterLease(principal: string | undefined, waiter: Waiter): LeaseOptions {
  return { ...(principal !== undefined ? { principal } : {}), ...(waiter.legacy ? { era: 'legacy' as const } : {}) };
}

/** The pool is closing (the worker shuts down): no new lease. */
function poolClosed(): McpSourceError {
  return new McpSourceError(McpSourceErrorCodes.WorkerShuttingDown, 'the session pool is closed');
}
