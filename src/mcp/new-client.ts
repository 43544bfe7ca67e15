/** The MCP client of one session, as the server's config says (./session.ts connects it). */
import { Client } from '@modelcontextprotocol/client';
import type { ServerConfig } from './config.js';
import { MODERN_CLIENT_OPTIONS, MODERN_PROTOCOL_VERSION } from './modern.js';
import { TASKS_EXTENSION } from './tasks-modern.js';

export const CLIENT_INFO = { name: 'durable-mcp', version: '0.1.0' };

/**
 * The client for `server`, negotiating as its config says (docs/eras.md): `auto` asks `server/discover` and speaks
 * 2026-07-28 when the server offers it, else `initialize`; `legacy` only `initialize` (offering `protocolVersion`
 * when one is pinned); `modern` only 2026-07-28 (or the pinned modern `protocolVersion`), never falling back.
 */
export function newMcpClient(server: ServerConfig, elicitation: boolean | undefined): Client {
  const pinned = server.protocolVersion;
  const negotiation =
    server.era === 'legacy'
      ? { versionNegotiation: { mode: 'legacy' as const }, ...(pinned ? { supportedProtocolVersions: [pinned] } : {}) }
      : server.era === 'modern'
        ? { versionNegotiation: { mode: { pin: pinned ?? MODERN_PROTOCOL_VERSION } } }
        : { versionNegotiation: { mode: 'auto' as const } };
  // The tasks extension (2026-07-28, ./tasks-modern.ts) rides the per-request capabilities unless the config says `tasks: "off"`.
  const extensions = server.tasks === 'off' ? {} : { extensions: { [TASKS_EXTENSION]: {} } };
  return new Client(CLIENT_INFO, {
    capabilities: { ...(elicitation ? { elicitation: { form: {}, url: {} } } : {}), ...extensions },
    ...negotiation,
    ...MODERN_CLIENT_OPTIONS,
  });
}
