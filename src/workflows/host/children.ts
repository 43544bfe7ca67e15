/**
 * The link between a pipeline and the tool calls it runs as child workflows (one inbox): the pipeline lists
 * its children's pending requests and forwards their answers to them; a child reports its requests to the
 * pipeline as they become pending and resolved. Deterministic: workflow APIs only.
 */
import { ApplicationFailure, getExternalWorkflowHandle, log, workflowInfo } from '@temporalio/workflow';
import { checkAnswer, type AnswerCheck } from '../../contract/answer.js';
import type { Answer, Request } from '../../contract/index.js';
import { answerSignal, type AnswerBy, type PendingContext, type PendingRequest } from '../messages.js';
import { childPendingSignal, childResolvedSignal } from '../internal-messages.js';
import { type Resolution } from '../visibility.js';
import { answerId, type PendingRecord } from './registry.js';

/** What the child link carries across continue-as-new (part of the host's snapshot). */
export interface ChildLinkSnapshot {
  /** Requests of child workflows, listed here and answered through here. */
  remote?: Array<PendingRequest & { child: string }>;
  /** Ids of child requests this workflow already forwarded an answer for. */
  forwarded?: string[];
}

export class ChildLink {
  /** Pending requests of child tool calls, by request id. */
  private readonly remote = new Map<string, PendingRequest & { child: string }>();
  private readonly forwarded = new Set<string>();
  /** Where this (child) workflow reports its requests: the parent's workflow id and the step. */
  reportTo: { parent: string; step?: string } | undefined;

  /**
   * `changed`: the children's pending requests changed (the host updates its search attribute), with how one ended when a child says.
   * `contextOf`: the context of one of this workflow's own requests, as its parent lists it.
   */
  constructor(
    private readonly changed: (resolution?: Resolution) => void,
    private readonly contextOf: (entry: PendingRecord, step?: string) => PendingContext,
  ) {}

  /** A child's request is pending (`childPending` signal), unless its answer was already forwarded. */
  childPending(p: PendingRequest & { child: string }): void {
    if (!this.forwarded.has(p.request.id)) this.remote.set(p.request.id, p);
    this.changed();
  }

  /** A child's request was resolved there (`childResolved` signal). */
  childResolved(id: string, resolution?: Resolution): void {
    this.remote.delete(id);
    this.changed(resolution && resolution.id === id ? resolution : undefined);
  }

  /** A child finished: its requests are no longer pending here. */
  forgetChild(childWorkflowId: string): void {
    for (const [id, r] of [...this.remote]) if (r.child === childWorkflowId) this.remote.delete(id);
    this.changed();
  }

  /** This run can no longer route answers to its children: their requests are no longer listed here. */
  clear(): void {
    if (this.remote.size > 0) {
      this.remote.clear();
      this.changed();
    }
  }

  get size(): number {
    return this.remote.size;
  }

  /** Whether request `id` is a child's (an answer to it is forwarded, not recorded here). */
  owns(id: string): boolean {
    return this.remote.has(id);
  }

  ids(): IterableIterator<string> {
    return this.remote.keys();
  }

  requests(): Request[] {
    return [...this.remote.values()].map((r) => r.request);
  }

  details(): PendingRequest[] {
    return [...this.remote.values()].map((r) => ({ request: r.request, context: r.context }));
  }

  /** The check of an answer to a child's request (undefined: the answer is not for a child). */
  check(raw: unknown): AnswerCheck | undefined {
    const id = answerId(raw);
    if (typeof id !== 'string') return undefined;
    const remote = this.remote.get(id);
    if (remote) return checkAnswer(raw, remote.request);
    if (this.forwarded.has(id)) return { ok: false, reason: `request "${id}" is no longer pending: it was already answered`, type: 'AlreadyResolved' };
    return undefined;
  }

  /** Forward a checked answer to the child workflow whose request it is (undefined: no child's request). */
  forward(answer: Answer, by?: AnswerBy): Promise<void> | undefined {
    const remote = this.remote.get(answer.id);
    if (!remote) return undefined;
    this.remote.delete(answer.id);
    this.forwarded.add(answer.id);
    this.changed();
    return getExternalWorkflowHandle(remote.child)
      .signal(answerSignal, answer, ...(by?.by !== undefined ? [by] : []))
      .catch((err) => {
        // The child is gone: the request is not answered after all.
        this.forwarded.delete(answer.id);
        throw ApplicationFailure.nonRetryable(
          `request "${answer.id}" belongs to child workflow "${remote.child}", which could not take the answer: ${(err as Error).message}`,
          'ChildUnreachable',
        );
      });
  }

  /** Tell the parent (if this workflow reports to one) that one of this workflow's requests is pending or resolved. */
  report(kind: 'pending' | 'resolved', entry: PendingRecord, resolution?: Resolution): void {
    if (!this.reportTo) return;
    const parent = getExternalWorkflowHandle(this.reportTo.parent);
    const child = workflowInfo().workflowId;
    const sent =
      kind === 'pending'
        ? parent.signal(childPendingSignal, { child, request: entry.request, context: this.contextOf(entry, this.reportTo.step) })
        : parent.signal(childResolvedSignal, { child, id: entry.request.id, ...(resolution ? { resolution } : {}) });
    // The parent may be gone (terminated, or done): the child's own inbox still works.
    sent.catch((err) => log.warn('could not report to the parent workflow', { error: String(err) }));
  }

  snapshot(): Required<ChildLinkSnapshot> {
    return { remote: [...this.remote.values()], forwarded: [...this.forwarded] };
  }

  restore(s: ChildLinkSnapshot): void {
    for (const r of s.remote ?? []) this.remote.set(r.request.id, r);
    for (const id of s.forwarded ?? []) this.forwarded.add(id);
  }
}
