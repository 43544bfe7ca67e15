/**
 * What each call waits on between two runs of its activity, by call id: the gates' state in a workflow, beside the
 * host's requests (the host composes it, and its snapshot carries the gates' shares across continue-as-new):
 * - the release and round gates: the request a released call waits for (no activity runs meanwhile);
 * - the round gate: the round a call waits in (`rounds`), so the next run resumes it at that round;
 * - the task gate: the task a call follows (`tasks`), so the next run goes on watching it;
 * - the question gate: the requests whose inline wait ended because the activity gave up (released).
 * Pure state: no workflow API, so it is tested without a server (test/workflows/registry.test.ts).
 */
import type { RoundWait } from './round/messages.js';
import type { TaskWait } from './task/messages.js';

/** The gates' share of the host's snapshot (keys as recorded in histories: they never change). */
export interface CallWaitsSnapshot {
  /** Calls waiting in a modern-era round, with the round's state (the next run resumes them at that round). */
  rounds?: Array<{ callId: string } & RoundWait>;
  /** Calls following an MCP task, with the task's state (the next run goes on watching it). */
  tasks?: Array<{ callId: string } & TaskWait>;
}

export class CallWaits {
  /** Calls released and waiting for an answer (no activity running), by call id → request id. */
  private readonly waiting = new Map<string, string>();
  /** Calls of `waiting` that wait in a modern-era (MRTR) round, with the round's state. */
  private readonly rounds = new Map<string, RoundWait>();
  /** Calls following an MCP task, between two watches or waiting for its questions' answers. */
  private readonly tasks = new Map<string, TaskWait>();
  /** Requests whose activity gave up waiting inline (its `elicit` update returns `released`). */
  private readonly released = new Set<string>();
  /** The question gate: how many `elicit` updates wait inline now (not carried: no update outlives its run). */
  inline = 0;

  /**
   * Mark a call as released and waiting for `requestId` (no activity runs for it meanwhile), or no longer waiting
   * (undefined). `round`: it waits in a modern-era (MRTR) round, whose state is carried across continue-as-new.
   */
  setWaiting(callId: string, requestId: string | undefined, { round }: { round?: RoundWait } = {}): void {
    if (requestId === undefined) {
      this.waiting.delete(callId);
      this.rounds.delete(callId);
    } else {
      this.waiting.set(callId, requestId);
      if (round) this.rounds.set(callId, round);
      else this.rounds.delete(callId);
    }
  }

  /** The request a released call waits for, if it waits. */
  waitingFor(callId: string): string | undefined {
    return this.waiting.get(callId);
  }

  /** The modern-era round a call waits in (restored after continue-as-new: the call resumes at it). */
  roundWaitOf(callId: string): RoundWait | undefined {
    return this.rounds.get(callId);
  }

  /**
   * Mark a call that follows an MCP task as waiting (between two watches, or for its questions' answers: no activity
   * runs for it), with the task's state, carried across continue-as-new; or no longer waiting (undefined).
   */
  setTaskWaiting(callId: string, wait: TaskWait | undefined): void {
    if (wait) this.tasks.set(callId, wait);
    else this.tasks.delete(callId);
  }

  /** The task a call follows, while it waits (restored after continue-as-new: the call goes on watching it). */
  taskWaitOf(callId: string): TaskWait | undefined {
    return this.tasks.get(callId);
  }

  /** Whether a call waits with no activity running: released for a request, or between the watches of its task. */
  isWaiting(callId: string): boolean {
    return this.waiting.has(callId) || this.tasks.has(callId);
  }

  /** The activity gave up waiting inline for the request (its `elicit` update returns `released`). */
  markReleased(id: string): void {
    this.released.add(id);
  }

  isReleased(id: string): boolean {
    return this.released.has(id);
  }

  /** A call ended: forget its waits, and the releases of its requests (`requestIds`). */
  forget(callId: string, requestIds: string[]): void {
    this.waiting.delete(callId);
    this.rounds.delete(callId);
    this.tasks.delete(callId);
    for (const id of requestIds) this.released.delete(id);
  }

  /** The gates' share of the snapshot (a key is left out when no call waits so). */
  snapshot(): CallWaitsSnapshot {
    const rounds = entries(this.rounds);
    const tasks = entries(this.tasks);
    return { ...(rounds ? { rounds } : {}), ...(tasks ? { tasks } : {}) };
  }

  /** Restore a snapshot (into new waits). */
  restore(s: CallWaitsSnapshot): void {
    for (const { callId, ...w } of s.rounds ?? []) this.rounds.set(callId, w);
    for (const { callId, ...w } of s.tasks ?? []) this.tasks.set(callId, w);
  }
}

function entries<T extends object>(waits: Map<string, T>): Array<{ callId: string } & T> | undefined {
  return waits.size > 0 ? [...waits].map(([callId, w]) => ({ callId, ...w })) : undefined;
}
