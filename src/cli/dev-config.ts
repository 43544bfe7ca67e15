/**
 * What `durable-mcp dev` runs, and what its banner says about it (docs/configuration.md "dev"):
 *
 * - the MCP config: `--mcp-config`, else `MCP_CONFIG`, else `./mcp.json` when there is one (as `worker` reads it),
 *   else the built-in demo config (written to the data folder as demo-mcp.json). The built-in `demo` server is added to
 *   a file that has no server named `demo` (a `"demo": { …, "enabled": false }` keeps it out), so `--server demo` and
 *   the README's walkthrough work in any folder; the banner says so.
 * - each server's approval policy, and the demo server's path;
 * - the agents' model provider (src/worker/model-provider.ts), never a key.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ApprovalPolicy } from '../contract/approval.js';
import { loadMcpConfigFile, parseMcpConfig, type McpConfig, type ServerConfig } from '../mcp/index.js';

const here = dirname(fileURLToPath(import.meta.url));
/** The demo MCP server (src/cli/demo-server.ts, compiled): `node <this path>` serves it over stdio. */
export const demoServerPath = join(here, 'demo-server.js');

export function demoMcpConfig(): Record<string, unknown> {
  return { mcpServers: { demo: { command: [process.execPath, demoServerPath] } } };
}

/** dev's MCP config, where it came from, and whether dev added the built-in demo server to it. */
export interface DevMcpConfig {
  config: McpConfig;
  /** The file read (absolute), or undefined: the built-in demo config. */
  path?: string;
  /** How the file was found: the flag, the variable, the working folder's mcp.json, or none (built in). */
  from: '--mcp-config' | 'MCP_CONFIG' | './mcp.json' | 'built in';
  /** The built-in demo server was added (the file has no server named "demo"). */
  demoAdded: boolean;
}

/** Which MCP config file `dev` reads: the flag, else MCP_CONFIG, else ./mcp.json when it exists (relative to `cwd`). */
export function devMcpConfigPath(
  flag: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  cwd = process.cwd(),
): { path?: string; from: DevMcpConfig['from'] } {
  if (flag) return { path: resolve(cwd, flag), from: '--mcp-config' };
  if (env.MCP_CONFIG?.trim()) return { path: resolve(cwd, env.MCP_CONFIG.trim()), from: 'MCP_CONFIG' };
  const local = resolve(cwd, 'mcp.json');
  return existsSync(local) ? { path: local, from: './mcp.json' } : { from: 'built in' };
}

/** Load dev's MCP config (./dev-config.ts header); the built-in one is written to `dataDir` for people to copy. */
export function loadDevMcpConfig(flag: string | undefined, dataDir: string, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): DevMcpConfig {
  const { path, from } = devMcpConfigPath(flag, env, cwd);
  const demo = parseMcpConfig(demoMcpConfig(), 'the built-in demo MCP config');
  if (!path) {
    writeFileSync(join(dataDir, 'demo-mcp.json'), `${JSON.stringify(demoMcpConfig(), null, 2)}\n`);
    return { config: demo, from, demoAdded: false };
  }
  const config = loadMcpConfigFile(path);
  if (config.servers.demo) return { config, path, from, demoAdded: false };
  // The file's top-level approval policy applies to the demo server too, as to any server without its own.
  const added: ServerConfig = { ...demo.servers.demo!, ...(config.approval ? { approval: config.approval } : {}) };
  return { config: { ...config, servers: { ...config.servers, demo: added } }, path, from, demoAdded: true };
}

/** An approval policy in a few words: `never`, `always`, `destructive`, with its tools, exceptions and N of M. */
export function policyText(p: ApprovalPolicy | undefined): string {
  if (!p) return 'never';
  const parts: string[] = [p.gate];
  if (p.gate !== 'never') {
    if (p.tools) parts.push(`tools ${p.tools.join(', ')}`);
    if (p.except) parts.push(`except ${p.except.join(', ')}`);
    if (p.annotations === 'trust') parts.push('read-only tools trusted');
    if (p.approvals && p.approvals > 1) parts.push(`${p.approvals} approvals`);
  }
  return parts.join('; ');
}

/** The banner's lines about the MCP config: where it came from, then each server with its approval policy. */
export function mcpConfigLines(dev: DevMcpConfig): string[] {
  const lines = [
    dev.path
      ? `MCP config:          ${dev.path} (${dev.from})${dev.demoAdded ? ', with the built-in demo server added' : ''}`
      : 'MCP config:          the built-in demo server (no --mcp-config, MCP_CONFIG or ./mcp.json)',
  ];
  for (const [name, srv] of Object.entries(dev.config.servers)) {
    // Commands and URLs may hold secrets: only the demo server's path is shown.
    const builtIn = srv.transport === 'stdio' && srv.args.includes(demoServerPath) ? `, built in: ${demoServerPath}` : `, ${srv.transport}`;
    lines.push(`  ${name}: approval ${policyText(srv.approval)}${srv.enabled ? '' : ', disabled'}${builtIn}`);
  }
  return lines;
}

/** Whether the config's server "demo" is the built-in demo server, enabled: the commands dev suggests work against it. */
export function builtInDemoRuns(dev: DevMcpConfig): boolean {
  const srv = dev.config.servers.demo;
  return !!srv && srv.enabled && srv.transport === 'stdio' && srv.args.includes(demoServerPath);
}

/**
 * What `dev` prints once everything runs: commands to try (`cli` runs the CLI). Against the built-in demo server when it
 * runs; otherwise (a config whose own "demo" is another server, or disabled) against the config's first enabled server,
 * with placeholders for what only that server knows. Nothing when no server is enabled (dev warns about that).
 */
export function tryItLines(dev: DevMcpConfig, cli: string, agents: boolean): string[] {
  const head = 'Try it (in another terminal, in this folder; put in the workflow id that call prints and the request id that pending prints):';
  if (builtInDemoRuns(dev)) {
    return [
      head,
      `  ${cli} call demo book_table --args '{"restaurant":"Chez Temporal"}'`,
      `  ${cli} pending`,
      `  ${cli} answer WORKFLOW_ID REQUEST_ID --data '{"name":"Ada","guests":2,"date":"2026-12-24"}'`,
      `  ${cli} result WORKFLOW_ID`,
      `The demo server speaks MCP 2026-07-28: each question is a round (input_required); nothing is held while you think.`,
      `  ${cli} call demo plan_trip         # two rounds: the second question carries the first answer`,
      `  ${cli} call demo connect_account   # a link to visit (URL mode): answer it with no --data`,
      ...(agents ? [`  ${cli} agent demo --server demo --prompt 'Add 2 and 40' --needs-approval   # an agent asks to run a tool (docs/agents.md)`] : []),
    ];
  }
  const first = Object.entries(dev.config.servers).find(([, srv]) => srv.enabled)?.[0];
  if (!first) return [];
  return [
    `Try it (in another terminal, in this folder; your MCP config has its own server "demo", so these name "${first}"):`,
    `  ${cli} tools ${first}`,
    `  ${cli} call ${first} TOOL --args '{...}'`,
    `  ${cli} pending`,
    `  ${cli} answer WORKFLOW_ID REQUEST_ID --data '{...}'   # a form's fields; an approval or a link takes no --data`,
    `  ${cli} result WORKFLOW_ID`,
  ];
}
