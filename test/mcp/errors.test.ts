/** The planes' error classes without Temporal (MCP, the inbox, the codec): codes, guards, fields, JSON, and the activities' mapping. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApplicationFailure } from '@temporalio/activity';
import { failureOf } from '../../src/activities/failures.js';
import { CodecError, CodecErrorCodes, isCodecError } from '../../src/codec/errors.js';
import { FAILURES, isFailureType } from '../../src/contract/failures.js';
import { InboxError, InboxErrorCodes, isInboxError } from '../../src/inbox/errors.js';
import { isLoginRequired, loginRequired, loginRequiredOf } from '../../src/mcp/auth/credentials.js';
import { CredentialSeal } from '../../src/mcp/auth/seal.js';
import { isMcpSourceError, isRetryable, McpSourceError, McpSourceErrorCodes } from '../../src/mcp/errors.js';

describe('McpSourceError', () => {
  it('has codes that are failure types, but BackChannelRefused', () => {
    for (const [name, code] of Object.entries(McpSourceErrorCodes)) {
      assert.equal(name, code);
      if (code !== 'BackChannelRefused') assert.ok(isFailureType(code), code);
    }
    assert.ok(!isFailureType(McpSourceErrorCodes.BackChannelRefused));
  });

  it('carries its code, message and fields; the guard takes codes', () => {
    const err = new McpSourceError('McpServerUnavailable', 'server "fx": failed to connect', { server: 'fx', phase: 'connect', tool: undefined });
    assert.ok(err instanceof Error);
    assert.equal(err.name, 'McpSourceError');
    assert.equal(err.message, 'server "fx": failed to connect');
    assert.equal(String(err), 'McpSourceError: server "fx": failed to connect');
    assert.equal(err.server, 'fx');
    assert.equal(err.phase, 'connect');
    assert.equal(err.permanent, false);
    assert.ok(!('tool' in err) || err.tool === undefined);
    assert.ok(isMcpSourceError(err));
    assert.ok(isMcpSourceError(err, 'McpServerUnavailable'));
    assert.ok(isMcpSourceError(err, 'UnknownTool', 'McpServerUnavailable'));
    assert.ok(!isMcpSourceError(err, 'UnknownTool'));
    assert.ok(!isMcpSourceError(new Error('x')));
    assert.ok(!isMcpSourceError({ code: 'UnknownTool', message: 'look-alike' }));
    assert.deepEqual(err.toJSON(), { error: 'McpServerUnavailable', message: 'server "fx": failed to connect', server: 'fx', phase: 'connect' });
  });

  it('keeps a cause', () => {
    const cause = new Error('ECONNREFUSED');
    assert.equal(new McpSourceError('ToolCallFailed', 'closed', {}, { cause }).cause, cause);
  });
});

describe('the MCP plane: a sign-in wanted, a failed login step, the seal', () => {
  it('a sign-in wanted is AuthorizationRequired with why, the token refused and the challenge', () => {
    const err = loginRequired('files', 'insufficient-scope', 2, { scope: 'read write' });
    assert.equal(err.code, 'AuthorizationRequired');
    assert.equal(err.message, 'server "files" needs authorization (insufficient-scope)');
    assert.equal(err.server, 'files');
    assert.equal(err.reason, 'insufficient-scope');
    assert.equal(err.generation, 2);
    assert.deepEqual(err.challenge, { scope: 'read write' });
    assert.ok(isLoginRequired(err) && !isLoginRequired(new McpSourceError('AuthorizationFailed', 'no')));
    assert.equal(loginRequiredOf(new Error('wrapped', { cause: err }), 'files', 0), err);
    assert.equal(loginRequiredOf(new Error('other'), 'files', 0), undefined);
  });

  it('a failed login step is AuthorizationFailed, retried unless permanent', () => {
    assert.equal(isRetryable(new McpSourceError('AuthorizationFailed', 'flaky')), true);
    assert.equal(isRetryable(new McpSourceError('AuthorizationFailed', 'issuer mismatch', { permanent: true })), false);
    assert.equal(isRetryable(new McpSourceError('BackChannelRefused', 'no channel', { era: 'legacy' })), false);
    assert.equal(isRetryable(new McpSourceError('WorkerShuttingDown', 'closed')), true);
  });

  it("the seal's errors are the codec's: a key it does not have, credentials that do not open", () => {
    const key = { id: 'k1', key: Buffer.alloc(32, 1) };
    const sealed = new CredentialSeal([key]).seal({ token: 't' });
    assert.throws(
      () => new CredentialSeal([{ id: 'k2', key: Buffer.alloc(32, 2) }]).unseal(sealed),
      (err: unknown) => isCodecError(err, 'UnknownEncryptionKey') && err.keyId === 'k1',
    );
    assert.throws(
      () => new CredentialSeal([{ id: 'k1', key: Buffer.alloc(32, 2) }]).unseal(sealed),
      (err: unknown) => isCodecError(err, 'DecryptionFailed'),
    );
    assert.throws(
      () => new CredentialSeal([]),
      (err: unknown) => isCodecError(err, 'EncryptionConfig'),
    );
  });
});

describe('the activities map an McpSourceError by its code', () => {
  const mapped = (err: unknown) => failureOf(err, 'fx') as ApplicationFailure;

  it('gives the failure of its code, retryable as the failure type says', () => {
    for (const code of ['UnknownServer', 'McpConfigInvalid', 'ProtocolViolation', 'WorkerShuttingDown', 'McpServerUnavailable', 'UnknownTool'] as const) {
      const failure = mapped(new McpSourceError(code, `it is ${code}`, { server: 'fx' }));
      assert.ok(failure instanceof ApplicationFailure);
      assert.equal(failure.type, code);
      assert.equal(failure.message, `it is ${code}`);
      assert.equal(failure.nonRetryable, !FAILURES[code].retryable, code);
    }
  });

  it('does not retry a server that cannot start for good; retries an unset variable', () => {
    const permanent = mapped(new McpSourceError('McpServerUnavailable', 'not found', { server: 'fx', phase: 'connect', permanent: true }));
    assert.equal(permanent.type, 'McpServerUnavailable');
    assert.equal(permanent.nonRetryable, true);
    const unset = mapped(new McpSourceError('McpServerUnavailable', 'refers to ${X}', { server: 'fx', field: 'env.X', variable: 'X' }));
    assert.equal(unset.nonRetryable, false);
  });

  it('fails a refused back-channel as a config error in the modern era, as a failed call in the legacy era', () => {
    const modern = mapped(new McpSourceError('BackChannelRefused', 'server "fx": tool "t": no', { server: 'fx', tool: 't', era: 'modern' }));
    assert.equal(modern.type, 'McpConfigInvalid');
    assert.equal(modern.nonRetryable, true);
    assert.match(modern.message, /^server "fx": tool "t": no; the tool asks the old way .*set "era": "auto" or "legacy"$/);
    const legacy = mapped(new McpSourceError('BackChannelRefused', 'server "fx": tool "t": no', { server: 'fx', tool: 't', era: 'legacy' }));
    assert.equal(legacy.type, 'ToolCallFailed');
    assert.equal(legacy.nonRetryable, true);
  });

  it('retries a ToolCallFailed as any other error, naming the server', () => {
    const failure = mapped(new McpSourceError('ToolCallFailed', 'session is closed', { server: 'fx', tool: 't' }));
    assert.equal(failure.type, 'ToolCallFailed');
    assert.equal(failure.nonRetryable, false);
    assert.equal(failure.message, 'server "fx": session is closed');
  });
});

describe('InboxError and CodecError', () => {
  it('InboxError: a code, the host where it applies, a guard', () => {
    assert.deepEqual(Object.keys(InboxErrorCodes), Object.values(InboxErrorCodes));
    const err = new InboxError('TokenRequired', 'no token', '0.0.0.0');
    assert.equal(err.name, 'InboxError');
    assert.equal(err.host, '0.0.0.0');
    assert.ok(isInboxError(err) && isInboxError(err, 'TokenRequired') && !isInboxError(err, 'InvalidOption'));
    assert.ok(!isInboxError(new CodecError('TokenRequired', 'no token', { host: '0.0.0.0' })));
    assert.deepEqual(err.toJSON(), { error: 'TokenRequired', message: 'no token', host: '0.0.0.0' });
    assert.deepEqual(new InboxError('InvalidOption', 'bad port').toJSON(), { error: 'InvalidOption', message: 'bad port' });
  });

  it('CodecError: a code, the key id or host where they apply, a guard', () => {
    assert.deepEqual(Object.keys(CodecErrorCodes), Object.values(CodecErrorCodes));
    const err = new CodecError('UnknownEncryptionKey', 'no key "B"', { keyId: 'B' });
    assert.equal(err.name, 'CodecError');
    assert.equal(err.keyId, 'B');
    assert.equal(err.host, undefined);
    assert.ok(isCodecError(err) && isCodecError(err, 'UnknownEncryptionKey', 'DecryptionFailed') && !isCodecError(err, 'EncryptionConfig'));
    assert.ok(!isCodecError(new InboxError('TokenRequired', 'no token')));
    assert.deepEqual(err.toJSON(), { error: 'UnknownEncryptionKey', message: 'no key "B"', keyId: 'B' });
  });
});
