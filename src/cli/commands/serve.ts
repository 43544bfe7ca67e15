/** The commands that run until stopped: `dev`, `inbox`, `codec-server` and `worker` (with `--json`, one JSON object a line). */
import type { Command } from 'commander';
import { runCodecServerCommand } from '../codec-command.js';
import { runDevCommand, type DevCommandOptions } from '../dev-command.js';
import { runInboxCommand } from '../inbox-command.js';
import { mcpConfigPathFrom, runWorkerProcess } from '../worker-command.js';
import { jsonLine, positiveInt } from './common.js';

export function serveCommands(program: Command): void {
  program
    .command('dev')
    .description('Start an embedded Temporal dev server (SQLite under --data-dir), the worker (agents too) and a demo MCP server')
    .option('--data-dir <dir>', 'where the dev server keeps its SQLite file', '.data')
    .option('--mcp-config <path>', 'MCP config file (default: $MCP_CONFIG, else ./mcp.json, else the built-in demo server; demo is added when missing)')
    .option('--port <port>', 'Temporal gRPC port', positiveInt('--port'), 7233)
    .option('--ui-port <port>', 'Temporal UI port', positiveInt('--ui-port'), 8233)
    .option('--inbox-port <port>', 'inbox web page port (0: any free port)', (v: string) => (v === '0' ? 0 : positiveInt('--inbox-port')(v)), 8787)
    .option(
      '--codec-port <port>',
      'codec server port, when DURABLE_MCP_ENCRYPTION_KEYS is set (0: any free port)',
      (v: string) => (v === '0' ? 0 : positiveInt('--codec-port')(v)),
      8081,
    )
    .option(
      '--json',
      'one JSON object a line on stdout: "ready" (addresses, task queue, database, codec server, MCP config, model), "warning", "note", "stopping",' +
        ' "stopped", "error"',
    )
    .option('--no-agent', 'do not run agents (mcpAgent and the model provider)')
    .option('--nexus', 'also offer the Nexus service durable-mcp (callTool, listTools, runPipeline) on the task queue, for a Nexus endpoint (docs/nexus.md)')
    .action((opts: DevCommandOptions) => runDevCommand(opts));

  program
    .command('inbox')
    .description('Serve the inbox web page, where a person answers pending requests (a Temporal client, envconfig)')
    .option('--host <address>', 'bind address; anything but loopback needs DURABLE_MCP_INBOX_TOKEN', '127.0.0.1')
    .option('--port <port>', 'port', (v: string) => (v === '0' ? 0 : positiveInt('--port')(v)), 8787)
    .option('--temporal-ui <url>', 'Temporal UI address, for links to workflows (default: $TEMPORAL_UI_URL)')
    .option(
      '--public-url <url>',
      'where browsers and authorization servers reach this inbox (default: $DURABLE_MCP_INBOX_PUBLIC_URL); an https one serves the Client ID' +
        ' Metadata Document and makes the session cookie Secure (behind a TLS proxy)',
    )
    .option('--json', 'one JSON object a line on stdout: "ready" (url, Temporal address), "warning", "stopped", "error"')
    .action((opts: { host: string; port: number; temporalUi?: string; publicUrl?: string; json?: boolean }) => runInboxCommand(opts));

  program
    .command('codec-server')
    .description(
      'Serve the codec server (Temporal remote codec protocol: POST /encode, /decode) with the keys of DURABLE_MCP_ENCRYPTION_KEYS,' +
        ' so the Temporal UI and CLI show decoded payloads',
    )
    .option('--host <address>', 'bind address; anything but loopback needs DURABLE_MCP_CODEC_TOKEN', '127.0.0.1')
    .option('--port <port>', 'port', (v: string) => (v === '0' ? 0 : positiveInt('--port')(v)), 8081)
    .option(
      '--ui-origin <origin>',
      'an origin of the Temporal UI allowed to call it from a browser (repeatable;' +
        ' default: $DURABLE_MCP_CODEC_UI_ORIGINS, the origin of $TEMPORAL_UI_URL, else the UI of `dev`)',
      (v: string, prev: string[] = []) => [...prev, v],
    )
    .option('--namespace <name>', 'serve only this namespace (the X-Namespace header; repeatable; default: any)', (v: string, prev: string[] = []) => [
      ...prev,
      v,
    ])
    .option(
      '--public-url <url>',
      'where browsers reach it behind a TLS proxy (default: $DURABLE_MCP_CODEC_PUBLIC_URL); an https one makes the session cookie Secure',
    )
    .option('--json', 'one JSON object a line on stdout: "ready" (url, key id, whether a token is required, UI origins), "stopped", "error"')
    .action((opts: { host: string; port: number; uiOrigin?: string[]; namespace?: string[]; publicUrl?: string; json?: boolean }) =>
      runCodecServerCommand(opts),
    );

  program
    .command('worker')
    .description('Run the worker against TEMPORAL_ADDRESS (envconfig), with the MCP config')
    .option('--mcp-config <path>', 'MCP config file (default: $MCP_CONFIG or mcp.json)')
    .option('--nexus', 'also offer the Nexus service durable-mcp (callTool, listTools, runPipeline) on the task queue, for a Nexus endpoint (docs/nexus.md)')
    .option(
      '--agent',
      'run agents too: the workflow mcpAgent, with the model provider of the environment (DURABLE_MCP_MODEL_PROVIDER, OPENAI_API_KEY, ANTHROPIC_API_KEY,' +
        ' DURABLE_MCP_MODEL_BASE_URL; none: the scripted demo model)',
    )
    .option(
      '--json',
      'one JSON object a line on stdout: "ready" (Temporal address, namespace, task queue, MCP servers, model), "warning", "note", "stopping",' +
        ' "stopped", "error"',
    )
    .action(async (opts: { mcpConfig?: string; agent?: boolean; nexus?: boolean; json?: boolean }) => {
      await runWorkerProcess({
        mcpConfigPath: mcpConfigPathFrom(opts.mcpConfig ? ['--mcp-config', opts.mcpConfig] : []),
        ...(opts.agent ? { agent: true } : {}),
        ...(opts.nexus ? { nexus: true } : {}),
        ...(opts.json ? { event: (e) => jsonLine(e) } : {}),
      });
    });
}
