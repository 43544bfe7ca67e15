// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const nodeBuiltins = [
  'assert',
  'async_hooks',
  'buffer',
  'child_process',
  'cluster',
  'crypto',
  'dgram',
  'dns',
  'events',
  'fs',
  'fs/promises',
  'http',
  'http2',
  'https',
  'net',
  'os',
  'path',
  'perf_hooks',
  'process',
  'readline',
  'stream',
  'timers',
  'tls',
  'url',
  'util',
  'v8',
  'vm',
  'worker_threads',
  'zlib',
];

export default tseslint.config(
  // examples/testing, examples/testing-vitest and examples/agent are user projects of their own (own package.json, dependencies and tests).
  { ignores: ['dist/**', 'node_modules/**', '.tools/**', '.data/**', 'scratch/**', 'examples/testing/**', 'examples/testing-vitest/**', 'examples/agent/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // Prettier formats (printWidth 160, `npm run lint` checks it); this catches what it leaves long (comments, strings).
    files: ['src/**/*.ts'],
    rules: { 'max-len': ['error', { code: 160, ignoreUrls: true }] },
  },
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // The workflow plane is deterministic: no Node builtins, no MCP SDK, no activity code (not even types).
    // The workflow side of telemetry (metric names, the workflow metric meter and sinks) is bundled with it.
    // src/gates: each gate's workflow.ts and messages.ts, the table and the steps, are workflow code; its activity.ts is not (below).
    files: ['src/workflows/**/*.ts', 'src/gates/**/*.ts', 'src/ai-sdk/**/*.ts', 'src/telemetry/workflow-metrics.ts', 'src/telemetry/metric-names.ts'],
    ignores: ['src/gates/*/activity.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins.map((name) => ({ name, message: 'Workflow code must not import Node builtins.' })),
          patterns: [
            { group: ['node:*'], message: 'Workflow code must not import Node builtins.' },
            { group: ['@modelcontextprotocol/*'], message: 'Workflow code must not import the MCP SDK.' },
            {
              regex: '^(\\.\\.?/)+activities(/|\\.js$|$)',
              message: 'Workflow code never imports activities, not even a type: what they exchange is in contract/activities.ts.',
            },
            {
              regex: '(^|/)activity\\.js$',
              message: "Workflow code never imports a gate's activity.ts, not even a type: its messages are in the gate's messages.ts.",
            },
            {
              regex: '^(\\.\\.?/)+mcp(/|\\.js$|$)',
              allowTypeImports: true,
              message: 'Workflow code may only `import type` from mcp.',
            },
            { group: ['@temporalio/activity', '@temporalio/worker', '@temporalio/client'], message: 'Workflow code may only use @temporalio/workflow.' },
            {
              regex: '^@temporalio/ai-sdk$',
              message: "Workflow code takes Temporal's AI pieces from @temporalio/ai-sdk/workflow: the package root also loads its activities.",
            },
            {
              regex: '^(\\.\\.?/)+(client|inbox|cli|testing|worker)(/|\\.js$|$)',
              allowTypeImports: true,
              message: 'Workflow code may only `import type` from the client, inbox, cli, testing and worker planes.',
            },
            {
              regex: '^(\\.\\.?/)+telemetry/(?!workflow-metrics\\.js$|metric-names\\.js$)',
              allowTypeImports: true,
              message: 'Workflow code uses only the workflow side of telemetry (workflow-metrics, metric-names).',
            },
            // The reusable V8 context evaluates workflow modules once per cached workflow: zod there cost ~0.7 MB each.
            { group: ['zod', 'zod/*'], message: 'Workflow code must not load zod (it is evaluated again for every cached workflow).' },
            {
              group: ['**/contract/index.js', '**/contract/schemas.js'],
              allowTypeImports: true,
              message: 'Workflow code imports values from the zod-free contract modules (all but index and schemas), types from anywhere.',
            },
          ],
        },
      ],
    },
  },
  {
    // The MCP plane: config, sessions, both eras' wire formats. It knows nothing of Temporal's workflow side or of its callers.
    files: ['src/mcp/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/workflows', '**/workflows/*'], allowTypeImports: true, message: 'mcp may only `import type` from workflows.' },
            {
              regex: '^(\\.\\.?/)+(activities|client|inbox|cli|testing|worker|telemetry)(/|\\.js$|$)',
              message: 'mcp imports only the contract (docs/architecture.md); its callers import it.',
            },
            {
              group: ['@temporalio/workflow', '@temporalio/activity', '@temporalio/client', '@temporalio/worker'],
              message: 'mcp does not use Temporal: activities wrap it.',
            },
          ],
        },
      ],
    },
  },
  {
    // Activities talk to their workflow by message name (contract), never through workflow code.
    files: ['src/activities/**/*.ts', 'src/gates/*/activity.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\.?/)+workflows(/|\\.js$|$)',
              message: 'Activities never import workflow code, not even a type: what they exchange is in contract/activities.ts.',
            },
            {
              regex: '(^|/)(workflow|waits|step)\\.js$',
              message: "Activities never import a gate's workflow code, not even a type: its messages are in the gate's messages.ts.",
            },
            { group: ['@temporalio/workflow', '@temporalio/worker'], message: 'Activities must not import the workflow SDK or the worker.' },
            {
              regex: '^(\\.\\.?/)+(client|inbox|cli|testing|worker)(/|\\.js$|$)',
              message: 'Activities import contract, mcp and telemetry only (docs/architecture.md).',
            },
          ],
        },
      ],
    },
  },
  {
    // The one path from a Temporal client to durable-mcp: contract and the workflows' message definitions (and their pure input checks).
    files: ['src/client/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                '**/workflows/*',
                '**/workflows/**/*',
                '!**/workflows/messages.js',
                '!**/workflows/visibility.js',
                '!**/workflows/duration.js',
                '!**/workflows/input.js',
              ],
              allowTypeImports: true,
              message: 'The client imports values only from workflows/messages, visibility, duration and input (types from anywhere).',
            },
            {
              regex: '^(\\.\\.?/)+(mcp|activities|inbox|cli|testing|worker|telemetry)(/|\\.js$|$)',
              message: 'The client imports contract and workflow messages only (docs/architecture.md).',
            },
            {
              group: ['@modelcontextprotocol/*', '@temporalio/worker', '@temporalio/activity', '@temporalio/workflow'],
              message: 'The client is a Temporal client: no MCP SDK, worker, activity or workflow SDK.',
            },
          ],
        },
      ],
    },
  },
  {
    // The inbox is a Temporal client with a web page: it goes through src/client.
    files: ['src/inbox/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/workflows/*', '**/workflows/**/*', '!**/workflows/messages.js'],
              allowTypeImports: true,
              message: 'The inbox imports values only from workflows/messages (types from anywhere).',
            },
            {
              regex: '^(\\.\\.?/)+(mcp|activities|cli|testing|worker|telemetry)(/|\\.js$|$)',
              message: 'The inbox imports client and contract only (docs/architecture.md).',
            },
            {
              group: ['@modelcontextprotocol/*', '@temporalio/worker', '@temporalio/activity', '@temporalio/workflow'],
              message: 'The inbox is a Temporal client: no MCP SDK, worker, activity or workflow SDK.',
            },
          ],
        },
      ],
    },
  },
  {
    // The payload codec, its data converter and the codec server: contract and Temporal's packages only (docs/architecture.md).
    files: ['src/codec/**/*.ts', 'src/codec/**/*.cts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\.?/)+(mcp|activities|workflows|client|inbox|cli|testing|worker|telemetry)(/|\\.js$|$)',
              message: 'The codec imports contract and @temporalio/* only (docs/architecture.md); the client, inbox and worker import it.',
            },
            {
              group: ['@modelcontextprotocol/*', '@temporalio/worker', '@temporalio/activity', '@temporalio/workflow'],
              message: 'The codec is used by clients and workers alike: no MCP SDK, worker, activity or workflow SDK.',
            },
          ],
        },
      ],
    },
  },
  {
    // Telemetry observes every plane through its types; the workflow side of it is checked with the workflow plane above.
    files: ['src/telemetry/**/*.ts'],
    ignores: ['src/telemetry/workflow-metrics.ts', 'src/telemetry/metric-names.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\.?/)+(mcp|activities|client|inbox|workflows)(/|\\.js$|$)',
              allowTypeImports: true,
              message: 'Telemetry may only `import type` from other planes.',
            },
            { regex: '^(\\.\\.?/)+(cli|testing|worker)(/|\\.js$|$)', message: 'Telemetry is used by the worker and the CLI, not the other way round.' },
          ],
        },
      ],
    },
  },
  {
    // The contract plane is pure: zod only. Its list of the workflow↔activity messages (activities.ts) names each
    // gate's, which are pure types in the gate's folder (src/gates/<kind>/messages.ts).
    files: ['src/contract/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins.map((name) => ({ name, message: 'The contract is pure: zod only.' })),
          patterns: [
            { group: ['node:*', '@modelcontextprotocol/*', '@temporalio/*'], message: 'The contract is pure: zod only.' },
            {
              regex: '^\\.\\./(?!gates/[a-z]+/messages\\.js$)',
              message: "The contract imports nothing from other planes (but a gate's messages.ts, in contract/activities.ts).",
            },
          ],
        },
      ],
    },
  },
);
