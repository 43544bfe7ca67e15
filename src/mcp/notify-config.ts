/** The `notify` key of the MCP config (./config.ts parses the rest). */
import { z } from 'zod';
import { describe } from './config-values.js';
import { McpSourceError, McpSourceErrorCodes } from './errors.js';

const configError = (message: string, field: string) => new McpSourceError(McpSourceErrorCodes.McpConfigInvalid, message, { field });

/**
 * The `notify` key of the config: a webhook told of every new pending request. `headers` values may
 * contain `${ENV_VAR}` (expanded when sending, never logged); `inboxUrl` (the inbox's address) puts a link
 * in each notification. A notification names the request (workflow id, request id, kind, server/tool, expiry)
 * and never carries an answer or a `requestState`; the request's prompt (its message, `requestedSchema` and
 * URL-mode link) only with `includePrompt: true`.
 */
export const NotifyConfigSchema = z
  .object({
    url: z.url({ protocol: /^https?$/, error: 'must be an http or https URL' }),
    headers: z.record(z.string(), z.string(), { error: 'must map header names to string values' }).optional(),
    format: z.enum(['json', 'slack'], { error: 'must be "json" or "slack"' }).optional(),
    inboxUrl: z.url({ protocol: /^https?$/, error: 'must be an http or https URL' }).optional(),
    /** Send the request's prompt, schema and link too (default false: the receiver learns only that something waits). */
    includePrompt: z.boolean({ error: 'must be true or false' }).optional(),
    /**
     * The key of the signed answer links (docs/people.md), usually "${DURABLE_MCP_ANSWER_LINK_KEY}": with `inboxUrl`, each
     * notification carries a single-use link per assignee that answers that one request in the inbox without its token.
     */
    linkKey: z.string({ error: 'must be a string (e.g. "${DURABLE_MCP_ANSWER_LINK_KEY}")' }).optional(),
    /**
     * Each assignee's own channel (docs/people.md): a webhook per user (`"ana@example.com"`), role (`"role:finance"`) or
     * `"*"` (an unaddressed request). An answer link goes only to its assignee's channel; the shared `url` never
     * carries one (whoever reads it could answer as anyone): it gets the request and "answer it in the inbox".
     */
    assigneeWebhooks: z
      .record(
        z.string().min(1, { error: 'must name a user, "role:<name>" or "*"' }),
        z
          .object({
            url: z.url({ protocol: /^https?$/, error: 'must be an http or https URL' }),
            headers: z.record(z.string(), z.string(), { error: 'must map header names to string values' }).optional(),
            format: z.enum(['json', 'slack'], { error: 'must be "json" or "slack"' }).optional(),
          })
          .strict(),
        { error: 'must map assignees ("ana@example.com", "role:finance", "*") to {"url":"https://…"}' },
      )
      .optional(),
  })
  .strict();
/** One assignee's own webhook (`notify.assigneeWebhooks`). */
export type AssigneeWebhook = { url: string; headers?: Record<string, string>; format?: 'json' | 'slack' };
export type NotifyConfig = z.infer<typeof NotifyConfigSchema>;

export function parseNotify(raw: unknown, source: string): NotifyConfig {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw configError(`${source}: "notify" must be an object like {"url":"https://…","format":"json"}, got ${describe(raw)}`, 'notify');
  }
  const parsed = NotifyConfigSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const key = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.map((k) => `"${k}"`).join(', ');
    if (key !== '') throw configError(`${source}: field "notify.${key}" has unknown key(s) ${keys}; it takes url, headers, format`, `notify.${key}`);
    throw configError(
      `${source}: "notify" has unknown key(s) ${keys}; it takes url, headers, format, inboxUrl, includePrompt, linkKey, assigneeWebhooks`,
      'notify',
    );
  }
  const top = String(issue.path[0] ?? '');
  const value = (raw as Record<string, unknown>)[top];
  throw configError(`${source}: field "notify.${key}" ${issue.message}, got ${describe(value, top === 'headers')}`, `notify.${key}`);
}
