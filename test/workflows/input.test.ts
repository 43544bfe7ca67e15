import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApplicationFailure } from '@temporalio/common';
import {
  CALL_OPTION_FIELDS,
  FIELD_CHECKS,
  MAX_WATCH_MS,
  STEP_FIELDS,
  TOOL_CALL_FIELDS,
  durationOption,
  inputProblem,
  invalidInput,
  stepInputProblem,
  toolCallInputProblem,
  watchInputProblem,
} from '../../src/workflows/input.js';

const DURATION = /must be a Temporal Duration: a number of milliseconds or a string like "4s", "24h", "1 day"/;

/** The InvalidInput failure a call of `fn` throws (it must throw one). */
function failure(fn: () => unknown): ApplicationFailure {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ApplicationFailure, `an ApplicationFailure, got ${String(err)}`);
    assert.equal(err.type, 'InvalidInput');
    assert.equal(err.nonRetryable, true);
    return err;
  }
  assert.fail('no failure was thrown');
}

describe('the shared input check (src/workflows/input.ts)', () => {
  describe('a tool call (mcpToolCall, executeMcpTool)', () => {
    const ok = { server: 'fx', tool: 'echo' };
    it('accepts a call with every option in range', () => {
      assert.equal(toolCallInputProblem(ok), undefined);
      assert.equal(
        toolCallInputProblem({
          ...ok,
          arguments: {},
          toolTimeout: '1h',
          heartbeatTimeout: 30_000,
          maxAttempts: 100,
          maxRounds: 1,
          elicitation: { expiresIn: '4s' },
        }),
        undefined,
      );
    });

    it('names each bad field, what is wrong and the value given', () => {
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ tool: 'echo' }, 'mcpToolCall: field "server" must be a non-empty string, got undefined'],
        [{ server: '', tool: 'echo' }, 'mcpToolCall: field "server" must be a non-empty string, got ""'],
        [{ server: 'fx', tool: 7 }, 'mcpToolCall: field "tool" must be a non-empty string, got 7'],
        [{ ...ok, arguments: ['x'] }, 'mcpToolCall: field "arguments" must be an object, got ["x"]'],
        [{ ...ok, arguments: null }, 'mcpToolCall: field "arguments" must be an object, got null'],
        [{ ...ok, maxAttempts: 0 }, 'mcpToolCall: field "maxAttempts" must be a whole number from 1 to 100, got 0'],
        [{ ...ok, maxAttempts: 2.5 }, 'mcpToolCall: field "maxAttempts" must be a whole number from 1 to 100, got 2.5'],
        [{ ...ok, maxRounds: 101 }, 'mcpToolCall: field "maxRounds" must be a whole number from 1 to 100, got 101'],
        [{ ...ok, auth: 'ada' }, 'mcpToolCall: field "auth" must be an object, got "ada"'],
        [{ ...ok, auth: { principal: 7 } }, 'mcpToolCall: field "auth.principal" must be a non-empty string, got 7'],
        [{ ...ok, auth: { principal: '' } }, 'mcpToolCall: field "auth.principal" must be a non-empty string, got ""'],
        [{ ...ok, auth: { principal: 'a\u0007b' } }, 'mcpToolCall: field "auth.principal" must not contain control characters, got "a\\u0007b"'],
      ];
      for (const [input, message] of cases) assert.equal(toolCallInputProblem(input), message, JSON.stringify(input));
      for (const [field, value] of [
        ['toolTimeout', '0s'],
        ['heartbeatTimeout', 'soon'],
      ] as const) {
        const message = toolCallInputProblem({ ...ok, [field]: value }) ?? '';
        assert.match(message, new RegExp(`^mcpToolCall: field "${field}" `));
        assert.match(message, DURATION);
        assert.match(message, /above 0 up to \d+ ms/);
        assert.ok(message.endsWith(`, got ${JSON.stringify(value)}`), message);
      }
    });

    it('refuses an input that is not an object', () => {
      assert.equal(toolCallInputProblem(null), 'mcpToolCall: field "(input)" must be an object, got null');
      assert.equal(toolCallInputProblem('echo'), 'mcpToolCall: field "(input)" must be an object, got "echo"');
    });

    it('names the first bad field in the order the call checks them', () => {
      assert.deepEqual(
        [...TOOL_CALL_FIELDS],
        ['server', 'tool', 'arguments', 'toolTimeout', 'heartbeatTimeout', 'maxAttempts', 'maxRounds', ...CALL_OPTION_FIELDS],
      );
      // A call may ask for an approval ("always"), never waive one.
      assert.equal(toolCallInputProblem({ ...ok, approval: 'always' }), undefined);
      assert.match(toolCallInputProblem({ ...ok, approval: 'never' }) ?? '', /field "approval" must be "always" .*, got "never"$/);
      assert.match(toolCallInputProblem({ server: 'fx', tool: '', maxAttempts: 0, toolTimeout: -1 }) ?? '', /field "tool"/);
      assert.match(toolCallInputProblem({ ...ok, maxRounds: 0, toolTimeout: -1 }) ?? '', /field "toolTimeout"/);
    });

    it('leaves the elicitation options to the host (checked when the call starts)', () => {
      assert.equal(toolCallInputProblem({ ...ok, elicitation: { expiresIn: '4 parsecs' } }), undefined);
    });
  });

  describe('a pipeline step (mcpPipeline)', () => {
    const step = { name: 'a', server: 'fx', tool: 'echo' };
    it('names the step, the bad field, what is wrong and the value given', () => {
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ maxAttempts: 0 }, 'step "a": field "maxAttempts" must be a whole number from 1 to 100, got 0'],
        [{ maxRounds: 0 }, 'step "a": field "maxRounds" must be a whole number from 1 to 100, got 0'],
        [{ onFailure: 'panic' }, 'step "a": field "onFailure" must be stop, continue or retry, got "panic"'],
        [{ retries: 'x' }, 'step "a": field "retries" must be a whole number from 0 to 100, got "x"'],
        [{ retries: 101 }, 'step "a": field "retries" must be a whole number from 0 to 100, got 101'],
        [{ arguments: ['x'] }, 'step "a": field "arguments" must be an object, got ["x"]'],
      ];
      for (const [extra, message] of cases) assert.equal(stepInputProblem({ ...step, ...extra }), message, JSON.stringify(extra));
      const expiry = stepInputProblem({ ...step, elicitation: { expiresIn: -1 } }) ?? '';
      assert.match(expiry, /^step "a": field "elicitation\.expiresIn" /);
      assert.match(expiry, DURATION);
      assert.ok(expiry.endsWith(', got -1'), expiry);
      assert.match(
        stepInputProblem({ ...step, heartbeatTimeout: '30 parsecs' }) ?? '',
        /^step "a": field "heartbeatTimeout" must be a Temporal Duration: .*above 0.*, got "30 parsecs"$/,
      );
    });

    it('names a missing server or tool without a value, as pipelines always have', () => {
      assert.equal(stepInputProblem({ name: 'a', tool: 'echo' }), 'step "a": field "server" must be a non-empty string');
      assert.equal(stepInputProblem({ name: 'a', server: 'fx', tool: '' }), 'step "a": field "tool" must be a non-empty string');
    });

    it('checks retries, timeouts, arguments and auth too', () => {
      for (const extra of [{ retries: -1 }, { toolTimeout: 0 }, { heartbeatTimeout: 'soon' }, { arguments: 'x' }, { auth: [] }, { auth: { principal: 1 } }]) {
        assert.ok(stepInputProblem({ ...step, ...extra }), JSON.stringify(extra));
      }
      assert.deepEqual(
        [...STEP_FIELDS],
        [
          'server',
          'tool',
          'elicitation.expiresIn',
          'elicitation.holdFor',
          'maxAttempts',
          'maxRounds',
          'onFailure',
          'retries',
          'toolTimeout',
          'heartbeatTimeout',
          'arguments',
          ...CALL_OPTION_FIELDS,
        ],
      );
      assert.match(stepInputProblem({ ...step, approval: 'destructive' }) ?? '', /^step "a": field "approval" must be "always"/);
    });
  });

  describe("the host's call options (elicitation.expiresIn, elicitation.holdFor)", () => {
    it('gives the default when absent and the milliseconds of a Duration', () => {
      assert.equal(durationOption('elicitation.expiresIn', undefined, 86_400_000), 86_400_000);
      assert.equal(durationOption('elicitation.expiresIn', '4s', 1), 4000);
      assert.equal(durationOption('elicitation.holdFor', 0, 1), 0);
      assert.equal(durationOption('toolTimeout', undefined), undefined);
    });

    it('fails with InvalidInput naming the field and the value', () => {
      const expiry = failure(() => durationOption('elicitation.expiresIn', '4 parsecs', 1));
      assert.match(expiry.message, /^field "elicitation\.expiresIn" must be a Temporal Duration/);
      assert.ok(expiry.message.endsWith(', got "4 parsecs"'), expiry.message);
      const hold = failure(() => durationOption('elicitation.holdFor', true, 1));
      assert.match(hold.message, /^field "elicitation\.holdFor" .*, got true$/);
      assert.match(
        failure(() => durationOption('toolTimeout', 0, undefined, 'mcpToolCall: ')).message,
        /^mcpToolCall: field "toolTimeout" .*above 0.*, got 0$/,
      );
    });

    it('throws the InvalidInput failure every check uses', () => {
      assert.equal(
        failure(() => invalidInput('mcpPipeline: field "steps" must be a non-empty array')).message,
        'mcpPipeline: field "steps" must be a non-empty array',
      );
    });
  });

  describe('the waitForPending update', () => {
    it('accepts no input, an empty one, and one in range', () => {
      for (const input of [undefined, null, {}, { seen: [], timeoutMs: MAX_WATCH_MS }, { seen: ['r1'], timeoutMs: 0.5 }])
        assert.equal(watchInputProblem(input), undefined, JSON.stringify(input));
    });

    it('names each bad field and the value given', () => {
      assert.equal(watchInputProblem({ seen: 'x' }), 'field "seen" must be an array of request ids, got "x"');
      assert.equal(watchInputProblem({ seen: ['a', 1] }), 'field "seen" must be an array of request ids, got ["a",1]');
      assert.equal(watchInputProblem({ timeoutMs: -1 }), `field "timeoutMs" must be a number of milliseconds above 0 and at most ${MAX_WATCH_MS}, got -1`);
      assert.equal(
        watchInputProblem({ timeoutMs: MAX_WATCH_MS + 1 }),
        `field "timeoutMs" must be a number of milliseconds above 0 and at most ${MAX_WATCH_MS}, got ${MAX_WATCH_MS + 1}`,
      );
      assert.equal(watchInputProblem({ seen: [], wait: 5, x: 1 }), 'unknown field(s) "wait", "x"; the input has only seen, timeoutMs');
      assert.equal(watchInputProblem([1]), 'input must be an object like {"seen":[…],"timeoutMs":…}, got [1]');
    });
  });

  it('has one check per field, each passing an absent optional value', () => {
    for (const [field, check] of Object.entries(FIELD_CHECKS)) {
      if (field === 'server' || field === 'tool') assert.ok(check(undefined), `${field} is required`);
      else assert.equal(check(undefined), undefined, `${field} is optional`);
    }
    assert.deepEqual(inputProblem({ elicitation: 'soon' }, ['elicitation.expiresIn']), undefined);
    assert.deepEqual(inputProblem({ elicitation: { holdFor: -1 } }, ['elicitation.expiresIn', 'elicitation.holdFor'])?.field, 'elicitation.holdFor');
  });
});
