import assert from 'node:assert/strict';

import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { sh } from '../helpers/pack.js';
import { tempDir } from '../helpers/temporal.js';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '..', '..', '..');

describe('the npm package', () => {
  it('packs without tests, histories or benchmarks, installs into an empty project, imports its three entries (no internals, one FailureTypes) and bundles a user workflow that calls executeMcpTool', async () => {
    const out = tempDir('durable-mcp-pack-');
    const pack = await sh('npm', ['pack', '--json', '--pack-destination', out], repo);
    assert.equal(pack.code, 0, pack.stderr);
    const [info] = JSON.parse(pack.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
    const paths = info.files.map((f) => f.path);
    for (const p of paths)
      assert.doesNotMatch(p, /^(test|bench|scripts|src)\/|^dist\/(test|bench|scripts)\/|histories|\.tools|\.data/, `not in the package: ${p}`);
    for (const p of [
      'package.json',
      'README.md',
      'dist/src/index.js',
      'dist/src/cli/main.js',
      'dist/src/workflows/index.js',
      'dist/src/client/index.js',
      'dist/workflow-bundle.js',
    ]) {
      assert.ok(paths.includes(p), `${p} is in the package`);
    }

    const project = join(out, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'user-project', version: '1.0.0', private: true, type: 'module' }));
    const install = await sh('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', join(out, info.filename)], project);
    assert.equal(install.code, 0, install.stderr);

    writeFileSync(
      join(project, 'workflows.js'),
      [
        "import { executeMcpTool, useElicitationHost } from 'durable-mcp/workflows';",
        'export async function bookDinner(restaurant) {',
        '  useElicitationHost();',
        "  const r = await executeMcpTool({ server: 'demo', tool: 'book_table', arguments: { restaurant }, elicitation: { expiresIn: '1h' } });",
        '  return r.output;',
        '}',
        "export * from 'durable-mcp/workflows';",
        '',
      ].join('\n'),
    );
    writeFileSync(
      join(project, 'check.js'),
      [
        "import * as root from 'durable-mcp';",
        "import * as workflows from 'durable-mcp/workflows';",
        "import * as client from 'durable-mcp/client';",
        "import { bundleWorkflowCode } from '@temporalio/worker';",
        "const { code } = await bundleWorkflowCode({ workflowsPath: new URL('./workflows.js', import.meta.url).pathname, logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error: console.error } });",
        'console.log(JSON.stringify({',
        "  root: ['McpSource', 'parseMcpConfig', 'DEFAULT_TASK_QUEUE', 'FAILURES', 'createActivities', 'DurableMcpClient'].filter((k) => k in root),",
        "  workflows: ['mcpToolCall', 'executeMcpTool', 'mcpPipeline', 'answerSignal'].filter((k) => k in workflows),",
        "  client: ['DurableMcpClient', 'ToolCallFailure', 'isToolCallFailure', 'ToolCallFailedError', 'UnknownServerFailure'].filter((k) => k in client),",
        "  internal: ['elicitUpdate', 'childPendingSignal', 'childDoneSignal', 'progressSignal', 'callMcpTool', 'resolveArguments', 'ElicitationHost'].filter((k) => k in workflows),",
        "  rootInternal: ['notificationBody', 'sanitize', 'rootFailure', 'toolCallFailure', 'PoolClosedError', 'ServerDisabledError', 'UnknownServerError', 'SessionPool', 'deriveRequestId', 'checkAnswer', 'findTemporalBinary'].filter((k) => k in root),",
        "  clientInternal: ['rootFailure', 'toolCallFailure', 'answerRejection', 'CALL_FAILURE_CLASSES', 'WORKER_WAIT_MS', 'FAILURES', 'SIGNAL_HINT'].filter((k) => k in client),",
        '  failureTypes: root.FailureTypes === client.FailureTypes && client.FailureTypes === workflows.FailureTypes,',
        '  taskQueue: root.DEFAULT_TASK_QUEUE,',
        '  bundled: code.includes("bookDinner") && code.includes("executeMcpTool"),',
        '}));',
        '',
      ].join('\n'),
    );
    const check = await sh(process.execPath, ['check.js'], project);
    assert.equal(check.code, 0, check.stderr);
    const result = JSON.parse(check.stdout.trim().split('\n').at(-1)!);
    assert.deepEqual(result, {
      root: ['McpSource', 'parseMcpConfig', 'DEFAULT_TASK_QUEUE', 'FAILURES'],
      workflows: ['mcpToolCall', 'executeMcpTool', 'mcpPipeline', 'answerSignal'],
      client: ['DurableMcpClient', 'ToolCallFailure', 'isToolCallFailure'],
      internal: [],
      rootInternal: [],
      clientInternal: [],
      failureTypes: true,
      taskQueue: 'durable-mcp',
      bundled: true,
    });

    // Test-only dependencies are not installed for a user.
    const ls = await sh('npm', ['ls', '--omit=dev', '--all', '--parseable'], project);
    assert.doesNotMatch(ls.stdout, /@temporalio\/testing/);
  });
});
