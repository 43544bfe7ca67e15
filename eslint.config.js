// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const nodeBuiltins = [
  'assert', 'async_hooks', 'buffer', 'child_process', 'cluster', 'crypto', 'dgram', 'dns', 'events', 'fs',
  'fs/promises', 'http', 'http2', 'https', 'net', 'os', 'path', 'perf_hooks', 'process', 'readline', 'stream',
  'timers', 'tls', 'url', 'util', 'v8', 'vm', 'worker_threads', 'zlib',
];

export default tseslint.config(
  // examples/testing and examples/testing-vitest are user projects of their own (own package.json, dependencies and tests).
  { ignores: ['dist/**', 'node_modules/**', '.tools/**', '.data/**', 'scratch/**', 'examples/testing/**', 'examples/testing-vitest/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // The workflow plane is deterministic: no Node builtins, no MCP SDK, no activity code (types only).
    // The workflow side of telemetry (metric names, the workflow metric meter and sinks) is bundled with it.
    files: ['src/workflows/**/*.ts', 'src/telemetry/workflow-metrics.ts', 'src/telemetry/metric-names.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', {
        paths: nodeBuiltins.map((name) => ({ name, message: 'Workflow code must not import Node builtins.' })),
        patterns: [
          { group: ['node:*'], message: 'Workflow code must not import Node builtins.' },
          { group: ['@modelcontextprotocol/*'], message: 'Workflow code must not import the MCP SDK.' },
          { group: ['**/activities', '**/activities/*', '**/mcp', '**/mcp/*'], allowTypeImports: true, message: 'Workflow code may only `import type` from activities and mcp.' },
          { group: ['@temporalio/activity', '@temporalio/worker', '@temporalio/client'], message: 'Workflow code may only use @temporalio/workflow.' },
          // The reusable V8 context evaluates workflow modules once per cached workflow: zod there cost ~0.7 MB each.
          { group: ['zod', 'zod/*'], message: 'Workflow code must not load zod (it is evaluated again for every cached workflow).' },
          {
            group: ['**/contract/index.js', '**/contract/schemas.js'],
            allowTypeImports: true,
            message: 'Workflow code imports values from the zod-free contract modules (all but index and schemas), types from anywhere.',
          },
        ],
      }],
    },
  },
  {
    // Activities talk to their workflow by message name (contract), never through workflow code.
    files: ['src/activities/**/*.ts', 'src/mcp/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', {
        patterns: [
          { group: ['**/workflows', '**/workflows/*'], allowTypeImports: true, message: 'Activities and mcp may only `import type` from workflows.' },
          { group: ['@temporalio/workflow'], message: 'Activities and mcp must not import the workflow SDK.' },
        ],
      }],
    },
  },
  {
    // The contract plane is pure: zod only.
    files: ['src/contract/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', {
        paths: nodeBuiltins.map((name) => ({ name, message: 'The contract is pure: zod only.' })),
        patterns: [
          { group: ['node:*', '@modelcontextprotocol/*', '@temporalio/*'], message: 'The contract is pure: zod only.' },
          { group: ['../*'], message: 'The contract imports nothing from other planes.' },
        ],
      }],
    },
  },
);
