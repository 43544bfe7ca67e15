/** `durable-mcp dev` as a command: start everything (src/cli/dev.ts), stop it on SIGINT/SIGTERM (a second signal kills), say what happens. */
import { startDev, type DevHandle } from './dev.js';
import { NEXUS_SERVICE } from '../contract/nexus.js';
import { jsonLine } from './commands/common.js';

/** The options of `durable-mcp dev`. */
export interface DevCommandOptions {
  dataDir: string;
  mcpConfig?: string;
  port: number;
  uiPort: number;
  inboxPort: number;
  codecPort: number;
  json?: boolean;
  /** `--no-agent`: false. */
  agent?: boolean;
  /** `--nexus`: offer the Nexus service durable-mcp too. */
  nexus?: boolean;
}

/** Run `dev` until it is stopped; with `json`, one JSON object a line on stdout. */
export async function runDevCommand(opts: DevCommandOptions): Promise<void> {
  const json = !!opts.json;
  const say = (text: string, event: Record<string, unknown>) => (json ? jsonLine(event) : console.log(text));
  // Signal handlers first: a signal during start-up stops the dev server too (nothing is left running).
  const starting = new AbortController();
  let dev: DevHandle | undefined;
  let signals = 0;
  const onSignal = () => {
    if (++signals === 1) {
      say('\nstopping…', { event: 'stopping' });
      starting.abort();
      void dev?.stop();
    } else {
      say('stopping now', { event: 'stopping', now: true });
      dev?.kill();
      process.exit(130);
    }
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    dev = await startDev({
      dataDir: opts.dataDir,
      mcpConfigPath: opts.mcpConfig,
      port: opts.port,
      uiPort: opts.uiPort,
      inboxPort: opts.inboxPort,
      codecPort: opts.codecPort,
      ...(opts.agent === false ? { agent: false } : {}),
      ...(opts.nexus ? { nexus: true } : {}),
      taskQueue: process.env.DURABLE_MCP_TASK_QUEUE,
      signal: starting.signal,
      // With --json the human text (addresses, the commands to try) gives way to one "ready" line.
      ...(json
        ? {
            log: () => undefined,
            warn: (message: string) => jsonLine({ event: 'warning', message }),
            note: (message: string) => jsonLine({ event: 'note', message }),
          }
        : {}),
    });
  } catch (err) {
    if (starting.signal.aborted) {
      say('stopped', { event: 'stopped' });
      return;
    }
    throw err;
  }
  if (json) {
    jsonLine({
      event: 'ready',
      temporal: { address: dev.address, namespace: dev.namespace, external: dev.external, uiUrl: dev.uiAddress ?? null, database: dev.database ?? null },
      inboxUrl: dev.inboxUrl ?? null,
      codecUrl: dev.codecUrl ?? null,
      taskQueue: dev.taskQueue,
      mcpServers: dev.mcpServers,
      mcpConfig: dev.mcpConfig ?? null,
      model: dev.model ?? null,
      // --nexus: the Nexus service the worker offers on its task queue (as `worker --nexus --json` says it).
      ...(opts.nexus ? { nexusService: NEXUS_SERVICE } : {}),
    });
  }
  await dev.done;
  say('stopped', { event: 'stopped' });
}
