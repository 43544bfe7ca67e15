import { isJSONRPCRequest, isJSONRPCResultResponse, type RequestId, type Transport } from '@modelcontextprotocol/client';
import type { ToolResult } from '../contract/index.js';
import { interceptMessages } from './transports.js';

interface ContentPart {
  type: string;
  text?: string;
  annotations?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}
interface RawCallToolResult {
  content?: ContentPart[];
  structuredContent?: unknown;
  isError?: boolean;
  _meta?: Record<string, unknown>;
  toolResult?: unknown;
}

function joinedText(content: ContentPart[] | undefined): string {
  return (content ?? [])
    .filter((p) => p && p.type === 'text' && typeof p.text === 'string')
    .map((p) => p.text as string)
    .join('\n');
}

/**
 * MCP CallToolResult → `{ output, isError, metadata? }`.
 * isError ⇒ joined text parts; else structuredContent ⇒ JSON.stringify; else joined text parts.
 * `metadata`: `_meta` of the result, `content` (the parts that are not text: images, audio, resources),
 * `text` (annotations and `_meta` of the text parts, with their index among the text parts).
 */
export function toToolResult(raw: RawCallToolResult): ToolResult {
  // Legacy (2024-10-07) shape: { toolResult }.
  if (raw.content === undefined && 'toolResult' in raw) {
    return { output: typeof raw.toolResult === 'string' ? raw.toolResult : JSON.stringify(raw.toolResult), isError: false };
  }
  const isError = raw.isError === true;
  let output: string;
  if (isError) output = joinedText(raw.content);
  else if (raw.structuredContent !== undefined && raw.structuredContent !== null) output = JSON.stringify(raw.structuredContent);
  else output = joinedText(raw.content);
  const result: ToolResult = { output, isError };
  const other = (raw.content ?? []).filter((p) => p && p.type !== 'text');
  const metadata: Record<string, unknown> = {};
  if (raw._meta && Object.keys(raw._meta).length > 0) metadata._meta = raw._meta;
  if (other.length > 0) metadata.content = other;
  // Text parts become `output`; what they carry besides their text (annotations, _meta) is kept, by position.
  const textParts = (raw.content ?? []).filter((p) => p && p.type === 'text');
  const textMeta = textParts
    .map((p, index) => ({ index, ...(p.annotations ? { annotations: p.annotations } : {}), ...(p._meta ? { _meta: p._meta } : {}) }))
    .filter((t) => 'annotations' in t || '_meta' in t);
  if (textMeta.length > 0) metadata.text = textMeta;
  if (Object.keys(metadata).length > 0) result.metadata = metadata;
  return result;
}

/**
 * Watches a session's `tools/call` results as they come off the wire, before the SDK parses them: whether the last one
 * had no content at all (no `content` list, no `structuredContent`, no 2024-10-07 `toolResult`, and not a round or a
 * task, of either era: a 2025-11-25 `CreateTaskResult` is `{ task }`). The SDK fills a missing `content` with an
 * empty list, so a result that said nothing would pass for a result that said "" (a successful call with empty
 * output): the session names it instead. A session serves one call at a
 * time, so the last result is the call's.
 */
export function watchBareResults(transport: Transport): { take(): boolean } {
  const calls = new Set<RequestId>();
  let bare = false;
  interceptMessages(transport, {
    outgoing: (message) => {
      if (isJSONRPCRequest(message) && message.method === 'tools/call') {
        bare = false;
        calls.add(message.id);
        if (calls.size > 64) calls.delete(calls.values().next().value as RequestId);
      }
      return message;
    },
    incoming: (message) => {
      if (!isJSONRPCResultResponse(message) || !calls.delete(message.id)) return message;
      const r = message.result as Record<string, unknown> | undefined;
      const said =
        !r ||
        typeof r !== 'object' ||
        Array.isArray(r.content) ||
        (r.structuredContent !== undefined && r.structuredContent !== null) ||
        'toolResult' in r ||
        'task' in r ||
        r.resultType === 'input_required' ||
        r.resultType === 'task' ||
        r.inputRequests !== undefined ||
        r.requestState !== undefined;
      bare = !said;
      return message;
    },
  });
  return {
    take() {
      const was = bare;
      bare = false;
      return was;
    },
  };
}
