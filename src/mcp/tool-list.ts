/**
 * `tools/list` as the server sent it, in both eras: every page (the cursor followed to the end, at most
 * MAX_TOOL_PAGES), each tool the JSON object of the wire. The SDK's own result schema would rebuild each tool (its
 * `inputSchema` with `type`, `properties` and `required` moved first, fields it does not know dropped): the
 * listing is checked here only for what a listing needs, and handed on untouched.
 */
import { SdkError, SdkErrorCode, type Client, type StandardSchemaV1 } from '@modelcontextprotocol/client';
import type { McpToolInfo } from '../contract/activities.js';
import { isPlainObject, preview } from '../contract/json.js';
import { isMcpSourceError, McpSourceError, McpSourceErrorCodes } from './errors.js';

export type { McpToolInfo } from '../contract/activities.js';

/** Most pages of one listing: a server whose cursor never ends fails the listing instead of looping. */
export const MAX_TOOL_PAGES = 100;

/** The listing itself is wrong (a bad page, a pagination that does not end): asking again cannot help. */
function wrongListing(message: string): McpSourceError {
  return new McpSourceError(McpSourceErrorCodes.ProtocolViolation, message);
}

/** The listing itself is wrong (a page of the wrong shape, a pagination that does not end), not the way to it. */
export function isWrongListing(err: unknown): boolean {
  return isMcpSourceError(err, McpSourceErrorCodes.ProtocolViolation) || (err instanceof SdkError && err.code === SdkErrorCode.InvalidResult);
}

interface ToolsPage {
  tools: McpToolInfo[];
  nextCursor?: string | null;
}

/** What is wrong with a `tools/list` page, if anything. */
function pageProblem(page: unknown): string | undefined {
  if (!isPlainObject(page)) return 'the result is not an object';
  if (!Array.isArray(page.tools)) return `"tools" must be an array, got ${preview(page.tools)}`;
  for (const [i, tool] of page.tools.entries()) {
    if (!isPlainObject(tool)) return `tools[${i}] must be an object, got ${preview(tool)}`;
    if (typeof tool.name !== 'string') return `tools[${i}].name must be a string, got ${preview(tool.name)}`;
    if (!isPlainObject(tool.inputSchema)) return `tools[${i}] ("${tool.name}"): inputSchema must be an object, got ${preview(tool.inputSchema)}`;
  }
  const cursor = page.nextCursor;
  if (cursor !== undefined && cursor !== null && typeof cursor !== 'string') return `"nextCursor" must be a string, got ${preview(cursor)}`;
  return undefined;
}

/** The page's value itself (the same object, never a copy) once its shape is right. */
const RAW_TOOLS_PAGE: StandardSchemaV1<unknown, ToolsPage> = {
  '~standard': {
    version: 1,
    vendor: 'durable-mcp',
    validate: (value: unknown) => {
      const problem = pageProblem(value);
      return problem ? { issues: [{ message: problem }] } : { value: value as ToolsPage };
    },
  },
};

/** Every tool the server lists, page after page, as sent (a server without the `tools` capability lists none). */
export async function listAllTools(client: Client, timeoutMs: number): Promise<McpToolInfo[]> {
  if (!client.getServerCapabilities()?.tools) return [];
  const tools: McpToolInfo[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 1; ; page++) {
    const result = await client.request({ method: 'tools/list', ...(cursor !== undefined ? { params: { cursor } } : {}) }, RAW_TOOLS_PAGE, {
      timeout: timeoutMs,
    });
    tools.push(...result.tools);
    const next = result.nextCursor;
    if (next === undefined || next === null) return tools;
    if (seen.has(next))
      throw wrongListing(`the server sent the cursor ${preview(next)} again after ${page} page${page === 1 ? '' : 's'}: its pagination loops`);
    if (page >= MAX_TOOL_PAGES) throw wrongListing(`the server's tool list goes on past ${MAX_TOOL_PAGES} pages (${tools.length} tools so far)`);
    seen.add(next);
    cursor = next;
  }
}
