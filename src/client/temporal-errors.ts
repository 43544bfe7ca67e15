/**
 * The errors of Temporal's service that a person can meet, each as the ClientError that names what to do (docs/cli.md
 * gives each code its exit code): a server that cannot be reached, does not answer or cancelled the request, one that
 * refuses this client (an unknown namespace, no permission, no credentials), no such workflow, a run already closed, no
 * worker (Temporal's own "no poller seen"), a workflow task in a failed state, a workflow id already running, a workflow
 * without durable-mcp's query, a rate limit, a request Temporal finds invalid (a payload over its size limit).
 */
import { QueryNotRegisteredError } from '@temporalio/client';
import { NamespaceNotFoundError, WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/common';
import { causeChain, causeMessages } from '../contract/causes.js';
import { ClientError, ClientErrorCodes, unknownWorkflow, updateLimit } from './errors.js';

/** gRPC status codes (https://grpc.io/docs/guides/status-codes/). */
const GRPC = {
  CANCELLED: 1,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;

const START_SERVER = 'Is a server running there? Set TEMPORAL_ADDRESS, or start one: `npm start` in a clone, or `npx durable-mcp dev`';
const CREDENTIALS =
  'Check the credentials for it: TEMPORAL_API_KEY, or the TLS client certificate (TEMPORAL_TLS_CLIENT_CERT_PATH, TEMPORAL_TLS_CLIENT_KEY_PATH), ' +
  'and TEMPORAL_NAMESPACE (or a profile of the Temporal config file, TEMPORAL_PROFILE)';

/** The workflow id an error of the chain names (WorkflowNotFoundError, WorkflowExecutionAlreadyStartedError). */
function idIn(chain: unknown[], Cls: typeof WorkflowNotFoundError | typeof WorkflowExecutionAlreadyStartedError): string | undefined {
  return (chain.find((e) => e instanceof Cls) as { workflowId?: string } | undefined)?.workflowId;
}

/** Whether `err` (or a cause) is Temporal's "no poller seen for task queue recently": no worker polls the task queue. */
export function isNoPoller(err: unknown): boolean {
  return causeChain(err, 10).some((e) => e.code === GRPC.FAILED_PRECONDITION && /no poller/i.test(String(e.message)));
}

/**
 * Whether `err` (or a cause) is Temporal's refusal of a query (or an update) while the workflow's task is failing:
 * "9 FAILED_PRECONDITION: Unable to query workflow due to Workflow Task in failed state".
 */
export function isWorkflowTaskFailedState(err: unknown): boolean {
  return causeChain(err, 10).some((e) => e.code === GRPC.FAILED_PRECONDITION && /workflow task in failed state/i.test(String(e.message)));
}

/** Whether `err` (or a cause) is Temporal's "workflow execution already completed": a signal or update to a closed run. */
function isClosedRun(text: string): boolean {
  return /workflow execution already completed|workflow (execution )?(has )?already (been )?(completed|finished|closed)/i.test(text);
}

/**
 * The ClientError a Temporal error stands for, else undefined. `at` names what the client knows of the call: the
 * address and namespace it connected to, the workflow it asked about.
 */
export function fromTemporalError(err: unknown, at: { address?: string; namespace?: string; workflowId?: string } = {}): ClientError | undefined {
  if (err instanceof ClientError) return err;
  const chain = causeChain(err, 10);
  const code = chain.map((e) => e.code).find((c) => typeof c === 'number');
  const text = causeMessages(err) || String(err);
  const has = (c: number, name: string) => code === c || new RegExp(`\\b${c} ${name}\\b`).test(text);
  const namespace = at.namespace ? `namespace "${at.namespace}"` : 'the namespace';
  const where = at.address ? ` at ${at.address}` : '';
  if (has(GRPC.UNAVAILABLE, 'UNAVAILABLE'))
    return new ClientError(
      ClientErrorCodes.TemporalUnreachable,
      `cannot reach Temporal${where}: ${text}. ${START_SERVER}.`,
      { address: at.address },
      { cause: err },
    );
  if (has(GRPC.DEADLINE_EXCEEDED, 'DEADLINE_EXCEEDED'))
    return new ClientError(
      ClientErrorCodes.TemporalUnreachable,
      `Temporal${where} did not answer in time: ${text}. Is it overloaded, or the network slow? Try again. ${START_SERVER}.`,
      { address: at.address },
      { cause: err },
    );
  if (has(GRPC.UNAUTHENTICATED, 'UNAUTHENTICATED') || has(GRPC.PERMISSION_DENIED, 'PERMISSION_DENIED'))
    return new ClientError(
      ClientErrorCodes.TemporalRefused,
      `Temporal${where} refused this client for ${namespace}: ${text}. ${CREDENTIALS}.`,
      { address: at.address, namespace: at.namespace },
      { cause: err },
    );
  if (chain.some((e) => e instanceof NamespaceNotFoundError) || (has(GRPC.NOT_FOUND, 'NOT_FOUND') && /namespace/i.test(text)))
    return new ClientError(
      ClientErrorCodes.TemporalRefused,
      `Temporal${where} has no ${namespace}: ${text}. ` +
        'Set TEMPORAL_NAMESPACE to one it has (`npx durable-mcp temporal operator namespace list`), or create it.',
      { address: at.address, namespace: at.namespace },
      { cause: err },
    );
  // A signal or an update that reached a run after it closed: Temporal says NOT_FOUND "workflow execution already completed".
  // (The SDK turns it into a WorkflowNotFoundError with that message.)
  if ((has(GRPC.NOT_FOUND, 'NOT_FOUND') || chain.some((e) => e instanceof WorkflowNotFoundError)) && isClosedRun(text)) {
    const id = at.workflowId ?? idIn(chain, WorkflowNotFoundError);
    return new ClientError(
      ClientErrorCodes.WorkflowClosed,
      `workflow "${id ?? '?'}" has closed (Temporal: ${text}): it takes no answer or signal any more. ` +
        `See how it ended: \`npx durable-mcp result ${id ?? '<workflowId>'}\``,
      { workflowId: id },
      { cause: err },
    );
  }
  if (chain.some((e) => e instanceof WorkflowNotFoundError) || has(GRPC.NOT_FOUND, 'NOT_FOUND'))
    return unknownWorkflow(at.workflowId ?? (idIn(chain, WorkflowNotFoundError) || '?'), err);
  if (isNoPoller(err))
    return new ClientError(
      ClientErrorCodes.NoWorker,
      `${at.workflowId ? `workflow "${at.workflowId}": ` : ''}no worker polls the workflow's task queue (Temporal: ${text}). ` +
        'Start one: `npm start` in a clone, or `npx durable-mcp worker`',
      { workflowId: at.workflowId },
      { cause: err },
    );
  if (isWorkflowTaskFailedState(err))
    return new ClientError(
      ClientErrorCodes.WorkflowTaskFailing,
      `${at.workflowId ? `workflow "${at.workflowId}": ` : ''}its workflow task fails, so Temporal refuses to query it (${text}). ` +
        `A worker picks the workflow up but cannot run it: its log says why (a workflow type its workflows module does not export, ` +
        `a key it lacks, a bug). The workflow waits (it has not failed) until that is fixed; ` +
        `\`npx durable-mcp temporal workflow describe -w ${at.workflowId ?? '<workflowId>'}\` shows the failure`,
      { workflowId: at.workflowId },
      { cause: err },
    );
  if (chain.some((e) => e instanceof WorkflowExecutionAlreadyStartedError) || has(GRPC.ALREADY_EXISTS, 'ALREADY_EXISTS')) {
    const id = at.workflowId ?? idIn(chain, WorkflowExecutionAlreadyStartedError);
    return new ClientError(
      ClientErrorCodes.WorkflowAlreadyStarted,
      `a workflow with id "${id ?? '?'}" is already running: give another --workflow-id, ` +
        `or follow that one (\`npx durable-mcp pending ${id ?? '<id>'}\`, \`npx durable-mcp result ${id ?? '<id>'}\`)`,
      { workflowId: id },
      { cause: err },
    );
  }
  if (chain.some((e) => e instanceof QueryNotRegisteredError))
    return new ClientError(
      ClientErrorCodes.NotDurableMcp,
      `workflow "${at.workflowId ?? '?'}" does not answer durable-mcp's queries (${text}): it is not a durable-mcp workflow ` +
        '(mcpToolCall, mcpPipeline, mcpListTools, mcpLogin, or a workflow that uses executeMcpTool)',
      { workflowId: at.workflowId },
      { cause: err },
    );
  if (has(GRPC.RESOURCE_EXHAUSTED, 'RESOURCE_EXHAUSTED'))
    return (
      updateLimit(err, at.workflowId ?? '?') ??
      new ClientError(
        ClientErrorCodes.TemporalBusy,
        `Temporal${where} refused the request for now (${text}): a rate limit or a quota of ${namespace}. ` +
          'Try again in a moment; if it lasts, ask its operator about the namespace limits (frontend.namespaceRPS and the like)',
        { address: at.address, namespace: at.namespace },
        { cause: err },
      )
    );
  if (has(GRPC.INVALID_ARGUMENT, 'INVALID_ARGUMENT')) {
    const size = /blob|size|too large|exceeds? limit/i.test(text)
      ? ': a payload is larger than Temporal takes (2 MB a payload by default, `limit.blobSize.error`): send less (smaller --args or --data)'
      : '';
    return new ClientError(
      ClientErrorCodes.TemporalRejected,
      `Temporal${where} refused the request as invalid (${text})${size}`,
      { address: at.address, namespace: at.namespace, ...(at.workflowId ? { workflowId: at.workflowId } : {}) },
      { cause: err },
    );
  }
  if (has(GRPC.CANCELLED, 'CANCELLED'))
    return new ClientError(
      ClientErrorCodes.TemporalUnreachable,
      `the request to Temporal${where} was cancelled before it answered (${text}): the connection closed, or the wait ran out. Try again. ${START_SERVER}.`,
      { address: at.address },
      { cause: err },
    );
  return undefined;
}
