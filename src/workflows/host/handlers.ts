/**
 * The wiring of the host's messages: the handlers of the `answer` and `progress` signals, the `submitAnswer`,
 * `waitForPending` and internal `elicit` updates, the `pending`, `pendingDetails` and `progress` queries, and
 * the signals of child workflows. Each handler hands its message to a public method of the host (or of its parts).
 * install.ts sets them when it installs the host.
 * Deterministic: workflow APIs only.
 */
import { ApplicationFailure, log, setHandler, workflowInfo } from '@temporalio/workflow';
import type { AnswerCheck } from '../../contract/answer.js';
import type { Answer } from '../../contract/index.js';
import type { ElicitationHost } from './index.js';
import { answerToElicitResult } from '../../contract/mapping.js';
import { watchInputProblem } from '../input.js';
import { answerId } from './registry.js';
import { senderOf } from './sender.js';
import {
  answerSignal,
  pendingDetailsQuery,
  pendingQuery,
  progressQuery,
  submitAnswerUpdate,
  waitForPendingUpdate,
  type SubmitAnswerResult,
  type WaitForPendingInput,
} from '../messages.js';
import { childPendingSignal, childResolvedSignal, elicitUpdate, progressSignal } from '../internal-messages.js';
import { type Resolution } from '../visibility.js';
import type { ElicitInput } from '../../contract/activities.js';
import { elicit } from '../../gates/question/workflow.js';
import { MAX_PENDING_WATCHERS } from './watch.js';

/** Set the host's handlers (once per workflow, when the host is installed): each hands its message to a public method of the host. */
export function installHandlers(host: ElicitationHost): void {
  // Handlers stay synchronous for this workflow's own requests (the order of commands is part of the
  // history: committed histories must replay); only answers forwarded to a child wait for the signal, and those
  // whose sender's proof the worker checks first (./sender.ts: a local activity, then the answer is checked again).
  const dropped = (raw: unknown, check: AnswerCheck & { ok: false }) => {
    // The reason may quote the answer's values (a check's message shows what it got): the log gets the id and
    // the failure type only, never the content (docs/encryption.md: logs never carry an answer).
    const id = answerId(raw);
    log.warn('answer signal dropped', { type: check.type, ...(typeof id === 'string' ? { id: id.slice(0, 200) } : {}) });
  };
  setHandler(answerSignal, (raw: unknown, sender?: unknown) => {
    const check = linkRunProblem(sender) ?? host.check(raw);
    if (!check.ok) return dropped(raw, check);
    const by = senderOf(sender);
    // A forward to a child that has closed must not fail this workflow: log it, the request is gone.
    const accept = (answer: Answer, proved: boolean) =>
      host
        .accept(answer, { sender: by, via: 'signal', proved })
        ?.catch((err) => log.warn('could not forward the answer to the child workflow', { id: answer.id, error: String(err) }));
    const proving = host.proved(raw, by);
    if (!proving) return accept(check.answer, false);
    return proving.then((ok) => {
      const again = linkRunProblem(sender) ?? host.check(raw);
      return again.ok ? accept(again.answer, ok) : dropped(raw, again);
    });
  });
  setHandler(
    submitAnswerUpdate,
    (raw: unknown, sender?: unknown): SubmitAnswerResult | Promise<SubmitAnswerResult> => {
      host.updatesHandled++;
      const by = senderOf(sender);
      const submit = (proved: boolean): SubmitAnswerResult | Promise<SubmitAnswerResult> => {
        const check = linkRunProblem(sender) ?? host.check(raw);
        if (!check.ok) throw ApplicationFailure.nonRetryable(check.reason, check.type);
        const result: SubmitAnswerResult = { id: check.answer.id, action: answerToElicitResult(check.answer).action };
        const entryOf = () => host.requests.pendingRecords().find((e) => e.request.id === check.answer.id);
        const before = entryOf()?.accepts?.by.length ?? 0;
        const forwarding = host.accept(check.answer, { sender: by, via: 'update', proved });
        // N of M: counted, not yet taken (and whether this person had accepted already).
        const entry = entryOf();
        if (!forwarding && entry) {
          const accepted = entry.accepts?.by ?? [];
          result.required = host.requests.requiredAccepts(entry);
          result.awaiting = result.required - accepted.length;
          result.acceptedBy = [...accepted];
          if (check.answer.ok && accepted.length === before) result.repeated = true;
        }
        return forwarding ? forwarding.then(() => result) : result;
      };
      // A sender's proof is checked before the answer counts (and the answer is checked again then).
      const proving = host.proved(raw, by);
      return proving ? proving.then(submit) : submit(false);
    },
    {
      validator: (raw: unknown, sender?: unknown) => {
        const check = linkRunProblem(sender) ?? host.check(raw);
        if (!check.ok) throw ApplicationFailure.nonRetryable(check.reason, check.type);
      },
    },
  );
  setHandler(pendingQuery, () => host.pendingRequests());
  setHandler(pendingDetailsQuery, () => host.pendingDetails());
  setHandler(progressQuery, () => host.progress.list());
  setHandler(progressSignal, (p) => host.progress.record(host.requests.call(p.callId), p));
  setHandler(childPendingSignal, (p) => host.children.childPending(p));
  setHandler(childResolvedSignal, ({ id, resolution }: { child: string; id: string; resolution?: Resolution }) => host.children.childResolved(id, resolution));
  setHandler(
    waitForPendingUpdate,
    (input?: WaitForPendingInput) => {
      host.updatesHandled++;
      return host.watch.wait(input);
    },
    {
      validator: (input?: WaitForPendingInput) => {
        const problem = watchInputProblem(input);
        if (problem) throw new Error(`waitForPending: ${problem}`);
        if (host.watch.full) {
          throw new Error(
            `waitForPending: ${MAX_PENDING_WATCHERS} callers already wait on this workflow (Temporal limits updates in flight); poll the pending query instead`,
          );
        }
      },
      // A user's workflow that calls tools may return while a watcher waits: the watcher then learns that the
      // workflow completed (as from any closed workflow), and the SDK need not warn about an unfinished handler.
      unfinishedPolicy: 'ABANDON',
    },
  );
  setHandler(
    elicitUpdate,
    (input: ElicitInput) => {
      host.updatesHandled++;
      host.useWorkerFeatures(input);
      return elicit(host, input.callId, input.request);
    },
    {
      validator: (input: ElicitInput) => {
        if (!input || typeof input.callId !== 'string' || !input.request || typeof input.request.id !== 'string') {
          throw new Error('elicit: input must be { callId, request }');
        }
      },
    },
  );
}

/**
 * An answer link used on a run it was not made for (docs/people.md): refused, whichever inbox replica sends it. A link
 * names the first run of its workflow's chain (continue-as-new keeps it), or the run of a pipeline that made it.
 */
export function linkRunProblem(sender: unknown): AnswerCheck | undefined {
  const run = senderOf(sender)?.link?.run;
  if (run === undefined) return undefined;
  const info = workflowInfo();
  // A pipeline's child step: its links name the pipeline's run (the host's notifyPending), which forwards their answers.
  if (run === info.firstExecutionRunId || run === info.runId || run === info.parent?.runId) return undefined;
  const reason = `this answer link was made for another run of workflow "${info.workflowId}" (run ${run}): it answers only the run it was sent for`;
  return { ok: false, reason, type: 'UnknownRequest' };
}
