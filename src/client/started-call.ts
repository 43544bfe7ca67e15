/** The server and tool a tool-call workflow was started with, and its workflow type, read from its first history event. */
import type { Client } from '@temporalio/client';

/**
 * The server and tool of `workflowId`'s start input (decoded by the client's payload codecs) and its workflow type
 * (`mcpToolCall`, `mcpAgent`, …); empty when it cannot be read.
 */
export async function startedCall(client: Client, workflowId: string): Promise<{ server?: string; tool?: string; workflowType?: string }> {
  try {
    const res = await client.workflowService.getWorkflowExecutionHistory({
      namespace: client.options.namespace,
      execution: { workflowId },
      maximumPageSize: 1,
    });
    const started = res.history?.events?.[0]?.workflowExecutionStartedEventAttributes;
    const workflowType = started?.workflowType?.name ?? undefined;
    let payload = started?.input?.payloads?.[0];
    // Raw history: the client's payload codecs (encryption) decode it first, the last codec first.
    const { payloadCodecs, payloadConverter } = client.options.loadedDataConverter;
    for (const codec of [...payloadCodecs].reverse()) if (payload) [payload] = await codec.decode([payload]);
    const input = payload ? (payloadConverter.fromPayload(payload) as { server?: unknown; tool?: unknown; steps?: unknown }) : undefined;
    return {
      ...(typeof input?.server === 'string' ? { server: input.server } : {}),
      ...(typeof input?.tool === 'string' ? { tool: input.tool } : {}),
      ...(workflowType ? { workflowType } : {}),
    };
  } catch {
    return {};
  }
}
