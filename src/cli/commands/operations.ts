/** `health` (does a worker poll the task queue: a container health check) and `temporal` (the Temporal CLI this package uses). */
import { spawn } from 'node:child_process';
import type { Command } from 'commander';
import { DEFAULT_TASK_QUEUE } from '../../client/index.js';
import { findTemporalBinary } from '../temporal-binaries.js';
import { client, EXIT, print } from './common.js';

export function operationCommands(program: Command): void {
  program
    .command('health')
    .description(
      'Exit 0 when a worker polls the task queue ($DURABLE_MCP_TASK_QUEUE or durable-mcp), 4 when none has within 70 s' +
        " (Temporal's minute of a poll, and 10 s), 3 when Temporal is unreachable (a container health check)",
    )
    .option('--task-queue <name>', 'the task queue (default: $DURABLE_MCP_TASK_QUEUE or durable-mcp)')
    .option('--json', 'machine-readable output')
    .action(async (opts: { taskQueue?: string; json?: boolean }) => {
      const c = await client();
      const taskQueue = opts.taskQueue ?? process.env.DURABLE_MCP_TASK_QUEUE ?? DEFAULT_TASK_QUEUE;
      const polls = await c.workerPolls(taskQueue);
      print(!!opts.json, { taskQueue, workerPolls: polls === true }, () =>
        polls ? `a worker polls task queue "${taskQueue}"` : `no worker polls task queue "${taskQueue}"`,
      );
      if (!polls) process.exitCode = EXIT.NO_WORKER;
    });

  program
    .command('temporal')
    .description('Run the Temporal CLI this package uses (the one `dev` runs), e.g. `durable-mcp temporal workflow list`')
    .helpOption(false)
    .passThroughOptions()
    .allowUnknownOption()
    .allowExcessArguments()
    .argument('[args...]', 'arguments for `temporal`')
    .action(async (args: string[]) => {
      const bin = findTemporalBinary('cli', { allowDownload: false, log: (line) => console.error(line) });
      const code = await new Promise<number>((resolve, reject) => {
        const child = spawn(bin.path!, args, { stdio: 'inherit' });
        child.on('error', reject);
        child.on('exit', (c, signal) => resolve(c ?? (signal ? 128 : 1)));
      });
      process.exitCode = code;
    });
}
