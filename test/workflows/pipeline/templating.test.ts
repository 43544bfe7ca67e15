// The templating of pipeline step arguments (src/workflows/pipeline/templating.ts), on its own: pure, no server.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApplicationFailure } from '@temporalio/common';
import { referencedSteps, resolveArguments } from '../../../src/workflows/pipeline/templating.js';
import type { PipelineStage, StepOutcome } from '../../../src/workflows/pipeline/types.js';

const completed = (output: string, isError = false): StepOutcome => ({ status: 'completed', result: { output, isError }, attempts: 1 });
const outcomes: Record<string, StepOutcome> = {
  fetch: completed('hello'),
  data: completed(
    JSON.stringify({
      items: [
        { name: 'a', n: 1 },
        { name: 'b', n: 2 },
      ],
      flag: false,
      nothing: null,
    }),
  ),
  broken: { status: 'failed', error: 'boom', attempts: 2 },
  flagged: completed('warn', true),
};

/** How every failure of step "use" begins. */
const REF = 'mcpPipeline: step "use": reference';

/** The InvalidInput failure that resolving `value` for step "use" throws (it must throw one): its message. */
function failure(value: unknown): string {
  try {
    resolveArguments(value, outcomes, 'use');
  } catch (err) {
    assert.ok(err instanceof ApplicationFailure, `an ApplicationFailure, got ${String(err)}`);
    assert.equal(err.type, 'InvalidInput');
    assert.equal(err.nonRetryable, true);
    return err.message;
  }
  assert.fail('no failure was thrown');
}

describe('pipeline templating: resolveArguments', () => {
  it('replaces a whole-string reference by the value itself, not its text', () => {
    assert.equal(resolveArguments('{{steps.fetch.output}}', outcomes, 'use'), 'hello');
    assert.equal(resolveArguments('{{ steps.fetch.output }}', outcomes, 'use'), 'hello');
    assert.equal(resolveArguments('{{steps.flagged.isError}}', outcomes, 'use'), true);
    assert.deepEqual(resolveArguments('{{steps.data.json.items.1}}', outcomes, 'use'), { name: 'b', n: 2 });
    assert.equal(resolveArguments('{{steps.data.json.items.0.n}}', outcomes, 'use'), 1);
    assert.equal(resolveArguments('{{steps.data.json.flag}}', outcomes, 'use'), false);
    assert.equal(resolveArguments('{{steps.data.json.nothing}}', outcomes, 'use'), null);
  });

  it('inside a string, puts a string as it is and any other value as JSON, every occurrence', () => {
    assert.equal(resolveArguments('say {{steps.fetch.output}}!', outcomes, 'use'), 'say hello!');
    assert.equal(resolveArguments('{{steps.fetch.output}} and {{ steps.fetch.output }}', outcomes, 'use'), 'hello and hello');
    assert.equal(resolveArguments('n={{steps.data.json.items.1.n}}', outcomes, 'use'), 'n=2');
    assert.equal(resolveArguments('first: {{steps.data.json.items.0}}', outcomes, 'use'), 'first: {"name":"a","n":1}');
    assert.equal(resolveArguments('error: {{steps.flagged.isError}}', outcomes, 'use'), 'error: true');
  });

  it('replaces an object whose only key is $ref by the value it names', () => {
    assert.deepEqual(resolveArguments({ $ref: 'steps.data.json.items' }, outcomes, 'use'), [
      { name: 'a', n: 1 },
      { name: 'b', n: 2 },
    ]);
    assert.equal(resolveArguments({ $ref: 'steps.fetch.output' }, outcomes, 'use'), 'hello');
    assert.equal(resolveArguments({ $ref: ' steps.fetch.output ' }, outcomes, 'use'), 'hello');
  });

  it('leaves an object with $ref beside other keys an object (its values are resolved), and a non-string $ref alone', () => {
    assert.deepEqual(resolveArguments({ $ref: 'steps.fetch.output', other: '{{steps.fetch.output}}' }, outcomes, 'use'), {
      $ref: 'steps.fetch.output',
      other: 'hello',
    });
    assert.deepEqual(resolveArguments({ $ref: 42 }, outcomes, 'use'), { $ref: 42 });
  });

  it('walks arrays and nested objects, and leaves everything else as it is', () => {
    const input = { a: ['{{steps.fetch.output}}', { b: { $ref: 'steps.data.json.items.0.name' } }], n: 3, t: true, z: null, s: 'plain', e: '' };
    const copy = structuredClone(input);
    assert.deepEqual(resolveArguments(input, outcomes, 'use'), { a: ['hello', { b: 'a' }], n: 3, t: true, z: null, s: 'plain', e: '' });
    assert.deepEqual(input, copy, 'the input is not changed');
    assert.equal(resolveArguments(7, outcomes, 'use'), 7);
    assert.equal(resolveArguments(undefined, outcomes, 'use'), undefined);
    assert.deepEqual(resolveArguments({}, outcomes, 'use'), {});
  });

  it('has no escape: text that is not a {{...}} reference stays, and braces without a reference are not templates', () => {
    assert.equal(resolveArguments('{ steps.fetch.output }', outcomes, 'use'), '{ steps.fetch.output }');
    assert.equal(resolveArguments('steps.fetch.output', outcomes, 'use'), 'steps.fetch.output');
    assert.equal(resolveArguments('{{}}', outcomes, 'use'), '{{}}');
    assert.equal(resolveArguments('{"json": true}', outcomes, 'use'), '{"json": true}');
  });

  it('fails a reference that is not steps.<name>.<what>', () => {
    assert.equal(failure('{{fetch.output}}'), `${REF} "fetch.output" must look like steps.<name>.output or steps.<name>.json.<path>`);
    assert.equal(failure({ $ref: 'steps.fetch' }), `${REF} "steps.fetch" must look like steps.<name>.output or steps.<name>.json.<path>`);
  });

  it('fails a reference to a step that has not run, or that failed', () => {
    assert.equal(failure('{{steps.later.output}}'), `${REF} "steps.later.output" names step "later", which has not run before it`);
    assert.equal(failure('x {{steps.broken.output}}'), `${REF} "steps.broken.output" names step "broken", which failed`);
  });

  it('fails what follows the step name unless it is output, isError or json', () => {
    assert.equal(failure('{{steps.fetch.result}}'), `${REF} "steps.fetch.result": after the step name use "output", "isError" or "json"`);
    assert.equal(failure('{{steps.fetch.output.length}}'), `${REF} "steps.fetch.output.length": after the step name use "output", "isError" or "json"`);
  });

  it('fails a json reference to output that is not JSON, or to a path that is not there', () => {
    assert.equal(failure('{{steps.fetch.json}}'), `${REF} "steps.fetch.json": the output of step "fetch" is not JSON`);
    assert.equal(failure({ $ref: 'steps.data.json.missing' }), `${REF} "steps.data.json.missing": no "missing" in the output of step "data"`);
    assert.equal(failure('{{steps.data.json.items.5}}'), `${REF} "steps.data.json.items.5": no "5" in the output of step "data"`);
    assert.equal(failure('{{steps.data.json.nothing.x}}'), `${REF} "steps.data.json.nothing.x": no "x" in the output of step "data"`);
    assert.equal(failure('{{steps.data.json.items.0.name.x}}'), `${REF} "steps.data.json.items.0.name.x": no "x" in the output of step "data"`);
  });

  it('resolves the whole JSON output with steps.<name>.json', () => {
    assert.deepEqual(resolveArguments('{{steps.data.json}}', outcomes, 'use'), JSON.parse(outcomes.data.result!.output));
  });
});

describe('pipeline templating: referencedSteps', () => {
  const step = (name: string, args?: Record<string, unknown>) => ({ name, server: 's', tool: 't', ...(args ? { arguments: args } : {}) });

  it('names the steps that the stages refer to, in {{...}} and in $ref, in parallel groups too', () => {
    const stages: PipelineStage[] = [
      step('a'),
      step('b', { text: 'x {{steps.a.output}} y', deep: [{ v: { $ref: 'steps.c.json.items.0' } }] }),
      { parallel: [step('d', { t: '{{ steps.e.isError }}' }), step('f')] },
    ];
    assert.deepEqual([...referencedSteps(stages)].sort(), ['a', 'c', 'e']);
  });

  it('names nothing for steps without references or arguments', () => {
    assert.deepEqual([...referencedSteps([step('a'), step('b', { n: 1, s: 'steps' })])], []);
    assert.deepEqual([...referencedSteps([])], []);
  });

  it('may name more than it needs (a superset is harmless): any steps.<name> text counts', () => {
    assert.deepEqual([...referencedSteps([step('b', { note: 'see steps.a for details' })])], ['a']);
  });
});
