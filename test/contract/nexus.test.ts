/**
 * The contract of the Nexus service `durable-mcp` (src/contract/nexus.ts, docs/nexus.md): the committed JSON Schemas are
 * the ones the zod schemas generate; the schemas' types are the TypeScript types of the workflows behind the operations
 * (checked by the compiler, below); an input with an internal or unknown field, or a bad value, names the field; and who
 * asked is read from hostile links within bounds. Pure: no server.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Duration } from '@temporalio/common';
import {
  callerOfLinks,
  NEXUS_SCHEMAS,
  NexusCallToolInputSchema,
  NexusListToolsInputSchema,
  NexusPipelineInputSchema,
  nexusJsonSchemas,
  parseNexusInput,
  type NexusCallToolInput,
  type NexusCallToolOutput,
  type NexusListToolsInput,
  type NexusListToolsOutput,
  type NexusPipelineInput,
  type NexusPipelineOutput,
} from '../../src/contract/nexus.js';
import type { ToolResult } from '../../src/contract/index.js';
import type { McpToolCallInput } from '../../src/workflows/mcp-tool-call.js';
import type { McpListToolsInput, McpToolInfo } from '../../src/workflows/mcp-list-tools.js';
import type { PipelineInput, PipelineResult } from '../../src/workflows/pipeline/types.js';
import { NEXUS_SCHEMA_DIR, schemaText } from '../../scripts/nexus-schemas.js';

// ---- compile-time: the contract's types are the workflows' (a Duration is a number or a string on the wire) ----
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Wire<T> = [T] extends [Duration] ? number | string : T extends readonly (infer E)[] ? Wire<E>[] : T extends object ? { [K in keyof T]: Wire<T[K]> } : T;
type Expect<T extends true> = T;
/** The named fields of a type (without an index signature). */
type Named<T> = { [K in keyof T as string extends K ? never : K]: T[K] };
/** Everything `mcpToolCall` takes but what only durable-mcp sets (a pipeline's `reportTo`, continue-as-new's `continued`, the Nexus `caller`). */
type CallerFields = Omit<McpToolCallInput, 'reportTo' | 'continued' | 'caller'>;
/** Everything `mcpPipeline` takes but what only durable-mcp sets (continue-as-new's `state`, the Nexus `caller`). */
type PipelineFields = Omit<PipelineInput, 'state' | 'caller'>;
export type Checks = [
  Expect<Equal<Wire<CallerFields>, Wire<NexusCallToolInput>>>,
  Expect<Equal<keyof NexusCallToolInput, keyof CallerFields>>,
  Expect<Equal<Wire<McpListToolsInput>, Wire<NexusListToolsInput>>>,
  Expect<Equal<NexusCallToolOutput, ToolResult>>,
  Expect<Equal<Wire<PipelineFields>, Wire<NexusPipelineInput>>>,
  Expect<Equal<keyof NexusPipelineInput, keyof PipelineFields>>,
  Expect<Equal<NexusPipelineOutput, PipelineResult>>,
  // A listed tool passes other fields through as the server sent them: its named fields are McpToolInfo's.
  Expect<Equal<Named<NexusListToolsOutput[number]>, Named<McpToolInfo>>>,
];

describe('the Nexus contract', () => {
  it('the committed JSON Schemas (docs/nexus/) are the generated ones, one file per input and output', () => {
    const generated = nexusJsonSchemas();
    assert.deepEqual(Object.keys(generated).sort(), Object.keys(NEXUS_SCHEMAS).sort());
    const committed = readdirSync(NEXUS_SCHEMA_DIR).filter((f) => f.endsWith('.schema.json'));
    assert.deepEqual(committed.sort(), Object.keys(generated).sort(), 'run `node dist/scripts/nexus-schemas.js`');
    for (const [file, schema] of Object.entries(generated))
      assert.equal(readFileSync(join(NEXUS_SCHEMA_DIR, file), 'utf8'), schemaText(schema), `${file} is stale: run \`node dist/scripts/nexus-schemas.js\``);
  });

  it('a call as a Python or Go caller builds it parses; the internal fields and unknown ones are refused, naming the field', () => {
    const call = {
      server: 'demo',
      tool: 'echo',
      arguments: { text: 'hi' },
      elicitation: { expiresIn: '1h' },
      approval: 'always',
      assignees: { users: ['a@x'] },
    };
    assert.deepEqual(parseNexusInput(NexusCallToolInputSchema, call), { input: call });
    for (const field of ['reportTo', 'continued', 'caller']) {
      const r = parseNexusInput(NexusCallToolInputSchema, { ...call, [field]: { workflowId: 'x' } });
      assert.equal((r as { field: string }).field, field);
      assert.match((r as { problem: string }).problem, /is not a field of the input/);
    }
    assert.deepEqual(parseNexusInput(NexusCallToolInputSchema, { ...call, elicitation: { expiresIn: '1h', sneaky: 1 } }), {
      field: 'elicitation.sneaky',
      problem: 'is not a field of the input (unknown: "sneaky")',
    });
    assert.deepEqual(parseNexusInput(NexusCallToolInputSchema, { tool: 'echo' }), { field: 'server', problem: 'must be string' });
    assert.deepEqual(parseNexusInput(NexusCallToolInputSchema, { ...call, arguments: [1] }), { field: 'arguments', problem: 'must be object' });
    assert.equal((parseNexusInput(NexusCallToolInputSchema, { ...call, approval: 'never' }) as { field: string }).field, 'approval');
    assert.deepEqual(parseNexusInput(NexusCallToolInputSchema, 'echo'), { field: '(input)', problem: 'must be object' });
    // A field name from outside is shown cut.
    const long = 'k'.repeat(10_000);
    const r = parseNexusInput(NexusCallToolInputSchema, { ...call, [long]: 1 }) as { field: string; problem: string };
    assert.equal(r.field, 'k'.repeat(100));
    assert.ok(r.problem.length < 200);
    assert.deepEqual(parseNexusInput(NexusListToolsInputSchema, { server: 'demo', auth: { principal: 'ann' } }), {
      input: { server: 'demo', auth: { principal: 'ann' } },
    });
  });

  it('a pipeline as a caller builds it parses; its internal fields are refused, and a bad step is named by its path', () => {
    const step = { name: 'fetch', server: 'demo', tool: 'echo', arguments: { text: 'hi' }, onFailure: 'retry', retries: 1 };
    const pipeline = {
      steps: [
        step,
        {
          parallel: [
            { ...step, name: 'a' },
            { ...step, name: 'b', child: true },
          ],
        },
      ],
      onFailure: 'continue',
    };
    assert.deepEqual(parseNexusInput(NexusPipelineInputSchema, pipeline), { input: pipeline });
    for (const field of ['state', 'caller']) {
      const r = parseNexusInput(NexusPipelineInputSchema, { ...pipeline, [field]: { stage: 0 } }) as { field: string; problem: string };
      assert.equal(r.field, field);
      assert.match(r.problem, /is not a field of the input/);
    }
    // A step's internal or unknown field, and a bad value in a parallel group: the path to it.
    assert.deepEqual(parseNexusInput(NexusPipelineInputSchema, { steps: [{ ...step, reportTo: { workflowId: 'x' } }] }), {
      field: 'steps.0.reportTo',
      problem: 'is not a field of the input (unknown: "reportTo")',
    });
    assert.deepEqual(parseNexusInput(NexusPipelineInputSchema, { steps: [step, { parallel: [{ ...step, name: 'a', maxAttempts: 'x' }] }] }), {
      field: 'steps.1.parallel.0.maxAttempts',
      problem: 'must be number',
    });
    assert.deepEqual(parseNexusInput(NexusPipelineInputSchema, { steps: 'fetch' }), { field: 'steps', problem: 'must be array' });
  });

  it('who asked: the namespace and workflow of a workflow caller, from its link; hostile links are skipped within bounds', () => {
    const type = 'temporal.api.common.v1.Link.WorkflowEvent';
    const url =
      'temporal:///namespaces/caller-py/workflows/order%2F42/0193-run/history?referenceType=EventReference&eventID=5&eventType=NexusOperationScheduled';
    assert.deepEqual(callerOfLinks([{ url: new URL(url), type }]), { namespace: 'caller-py', workflowId: 'order/42', runId: '0193-run' });
    // A standalone operation names its namespace alone.
    assert.deepEqual(
      callerOfLinks([{ url: 'temporal:///namespaces/ops/nexus-operations/op-1/r/details', type: 'temporal.api.common.v1.Link.NexusOperation' }]),
      {
        namespace: 'ops',
      },
    );
    assert.equal(callerOfLinks(undefined), undefined);
    assert.equal(callerOfLinks([]), undefined);
    const hostile = [
      { url: 'https://evil.example/namespaces/x/workflows/y/z', type },
      { url: 'temporal:///namespaces/%E0%A4%A/workflows/y', type }, // undecodable
      { url: `temporal:///namespaces/${'n'.repeat(300)}/workflows/y`, type }, // longer than a namespace may be
      { url: 'temporal:///namespaces/a%0Ab/workflows/y', type }, // a control character
      { url: `temporal:///namespaces/ns/workflows/${'%2F'.repeat(5000)}`, type }, // longer than a link may be
      { url: 'temporal:///other/ns', type },
      { url: 42 as unknown as string, type },
    ];
    assert.equal(callerOfLinks(hostile), undefined);
    // Only the first 8 links are read.
    const many = [...Array.from({ length: 8 }, () => hostile[0]!), { url, type }];
    assert.equal(callerOfLinks(many), undefined);
    assert.deepEqual(callerOfLinks([...hostile, { url, type }]), { namespace: 'caller-py', workflowId: 'order/42', runId: '0193-run' });
  });
});
