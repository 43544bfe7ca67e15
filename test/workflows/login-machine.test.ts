/** The login's state machine (src/workflows/login/machine.ts), without a server: each transition, its effects and replies. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FailureTypes } from '../../src/contract/failures.js';
import { nextStep, transition, type LoginEvent, type Transition } from '../../src/workflows/login/machine.js';
import { acceptsCallback, initialState, isIdle, LoginPhase, snapshotOf, statusOf, type LoginState, type TokenInfo } from '../../src/workflows/login/state.js';
import type { LoginWantedInput } from '../../src/contract/activities.js';

const info: TokenInfo = { issuer: 'https://as.example', scopes: 'read', expiresAtMs: 10_000, refreshable: true } as TokenInfo;
const fresh = () => initialState('files', 'shared', 'login:files:shared');
const want = (over: Partial<LoginWantedInput> = {}): LoginWantedInput => ({
  server: 'files',
  principal: 'shared',
  waiter: 'call-1',
  generation: 0,
  reason: 'no-token',
  ...over,
});
const redirect = {
  kind: 'redirect' as const,
  sealed: 's1',
  url: 'https://as.example/authorize?x',
  state: 'st-1',
  issuer: 'https://as.example',
  refreshRejected: false,
};

/** Applies the events in order, returning the last transition. */
function run(s: LoginState, ...events: LoginEvent[]): Transition {
  let t: Transition = { state: s, effects: [] };
  for (const e of events) t = transition(t.state, e);
  return t;
}
/** A login whose sign-in request `login-1` is pending, asked for by call-1. */
/** A refresh under way (call-1 wanted it) while call-2 waits for it too. */
function authorizingWithTwoWaiters(): LoginState {
  return run(fresh(), { type: 'wanted', input: want(), now: 0 }, { type: 'authorize', now: 0 }, { type: 'wanted', input: want({ waiter: 'call-2' }), now: 0 })
    .state;
}

function signingIn(): LoginState {
  return run(fresh(), { type: 'wanted', input: want(), now: 0 }, { type: 'authorize', now: 0 }, { type: 'redirected', redirect }).state;
}

/** The next step of a login whose sign-in has not ended and which is not near its history limits. */
const stepOf = (state: LoginState) =>
  nextStep(
    state,
    () => false,
    () => false,
  );

describe('login machine: a want', () => {
  it('a first want waits, and the next step authorizes with what was wanted', () => {
    const t = transition(fresh(), { type: 'wanted', input: want({ scope: 'read', resourceMetadataUrl: 'https://rs/.well-known' }), now: 0 });
    assert.deepEqual(t.wanted, { status: 'waiting' });
    assert.deepEqual(t.state.waiters, ['call-1']);
    assert.equal(stepOf(t.state), 'authorize');
    const a = transition(t.state, { type: 'authorize', now: 0 });
    assert.equal(a.state.phase, LoginPhase.Authorizing);
    assert.equal(a.state.want, undefined);
    assert.deepEqual(a.activity, {
      name: 'oauthAuthorize',
      input: { loginId: 'login:files:shared', server: 'files', principal: 'shared', scope: 'read', resourceMetadataUrl: 'https://rs/.well-known' },
    });
  });
  it('wants merge: the newest generation, the union of scopes, step-up wins; a waiter is counted once', () => {
    const t = run(
      fresh(),
      { type: 'wanted', input: want({ scope: 'read', generation: 2 }), now: 0 },
      { type: 'wanted', input: want({ scope: 'write read', generation: 1, reason: 'insufficient-scope', waiter: 'call-2' }), now: 0 },
      { type: 'wanted', input: want({ waiter: 'call-2' }), now: 0 },
    );
    assert.deepEqual(t.state.want, { generation: 2, reason: 'insufficient-scope', scope: 'read write' });
    assert.deepEqual(t.state.waiters, ['call-1', 'call-2']);
    const a = transition(t.state, { type: 'authorize', now: 0 });
    assert.equal(a.activity?.name === 'oauthAuthorize' && a.activity.input.forceReauthorization, true);
  });
  it('a call whose token was replaced already is ready at once, unless that token expired', () => {
    const s = run(fresh(), { type: 'wanted', input: want(), now: 0 }, { type: 'authorize', now: 0 }, { type: 'authorized', sealed: 's', info }).state;
    assert.equal(s.generation, 1);
    assert.deepEqual(transition(s, { type: 'wanted', input: want({ generation: 0 }), now: 0 }).wanted, { status: 'ready', generation: 1 });
    assert.deepEqual(transition(s, { type: 'wanted', input: want({ generation: 0 }), now: 10_000 }).wanted, { status: 'waiting' });
    assert.deepEqual(transition(s, { type: 'wanted', input: want({ generation: 1 }), now: 0 }).wanted, { status: 'waiting' });
  });
  it('a want answered meanwhile by another refresh runs no second refresh', () => {
    const s = authorizingWithTwoWaiters();
    const t = run(s, { type: 'authorized', sealed: 's', info }, { type: 'authorize', now: 0 });
    assert.equal(t.activity, undefined);
    assert.equal(t.state.phase, LoginPhase.Idle);
    assert.ok(isIdle(t.state));
  });
});

describe('login machine: authorize', () => {
  it('a token settles every waiting call with the new generation', () => {
    const s = authorizingWithTwoWaiters();
    const t = transition(s, { type: 'authorized', sealed: 's2', info });
    assert.deepEqual(t.effects, [{ kind: 'settle', waiters: ['call-1', 'call-2'], settled: { generation: 1 } }]);
    assert.equal(t.state.sealed, 's2');
    assert.deepEqual(t.state.waiters, []);
    assert.equal(statusOf(t.state).state, 'signed-in');
  });
  it('a redirect asks a person to sign in; the calls that ask meanwhile wait for that sign-in', () => {
    const t = run(fresh(), { type: 'wanted', input: want({ expiresInMs: 5000 }), now: 0 }, { type: 'authorize', now: 0 }, { type: 'redirected', redirect });
    assert.equal(t.state.phase, LoginPhase.SigningIn);
    assert.deepEqual(t.effects, [
      {
        kind: 'ask',
        requestId: 'login-1',
        callId: 'login-call-1',
        prompt: 'Sign in to MCP server "files" at https://as.example',
        url: redirect.url,
        expiresInMs: 5000,
        issuer: 'https://as.example',
      },
    ]);
    const w = transition(t.state, { type: 'wanted', input: want({ waiter: 'call-2', scope: 'admin' }), now: 0 });
    assert.deepEqual(w.wanted, { status: 'waiting' });
    assert.equal(w.state.want, undefined);
    assert.equal(
      nextStep(
        w.state,
        () => false,
        () => true,
      ),
      undefined,
    );
    assert.deepEqual(statusOf(w.state), {
      server: 'files',
      principal: 'shared',
      state: 'pending',
      issuer: 'https://as.example',
      generation: 0,
      refreshable: false,
      requestId: 'login-1',
      waiting: 2,
    });
  });
  it('a failure fails the waiting calls with AuthorizationFailed', () => {
    const t = run(fresh(), { type: 'wanted', input: want(), now: 0 }, { type: 'authorize', now: 0 }, { type: 'failed', message: 'no metadata' });
    assert.deepEqual(t.effects, [
      { kind: 'settle', waiters: ['call-1'], settled: { failure: { type: FailureTypes.AuthorizationFailed, message: 'no metadata' } } },
    ]);
    assert.equal(t.state.phase, LoginPhase.Idle);
  });
});

describe('login machine: the sign-in', () => {
  it('accepts one authorization response, for the pending state only', () => {
    const s = signingIn();
    assert.equal(acceptsCallback(s, { state: 'other' }), false);
    assert.equal(acceptsCallback(s, { state: 'st-1', sealedCode: 'c' }), true);
    const t = transition(s, { type: 'callback', callback: { state: 'st-1', sealedCode: 'c' } });
    assert.equal(t.state.phase, LoginPhase.Exchanging);
    assert.equal(acceptsCallback(t.state, { state: 'st-1', sealedCode: 'c' }), false);
    assert.throws(() => transition(t.state, { type: 'callback', callback: { state: 'st-1' } }), /no transition/);
  });
  it('the code exchanged: the request completes, the calls get the token, the callback says signed in', () => {
    const s = run(signingIn(), { type: 'callback', callback: { state: 'st-1', sealedCode: 'c', iss: 'https://as.example' } }).state;
    assert.equal(
      nextStep(
        s,
        () => true,
        () => false,
      ),
      'exchange',
    );
    const x = transition(s, { type: 'exchange' });
    assert.deepEqual(x.activity, {
      name: 'oauthExchange',
      input: { loginId: 'login:files:shared', server: 'files', principal: 'shared', sealed: 's1', sealedCode: 'c', iss: 'https://as.example' },
    });
    const t = transition(x.state, { type: 'authorized', sealed: 's3', info });
    assert.deepEqual(t.effects, [
      { kind: 'signed-in', requestId: 'login-1' },
      { kind: 'settle', waiters: ['call-1'], settled: { generation: 1 } },
    ]);
    assert.deepEqual(t.callback, { status: 'signed-in', message: 'signed in to server "files"' });
    assert.equal(t.state.pending, undefined);
    assert.ok(isIdle(t.state));
  });
  it('an error from the authorization server withdraws the request and fails the calls (AuthorizationRequired)', () => {
    const t = run(signingIn(), { type: 'callback', callback: { state: 'st-1', error: 'access_denied' } }, { type: 'exchange' });
    assert.equal(t.activity, undefined);
    assert.deepEqual(t.effects, [
      { kind: 'withdraw', requestId: 'login-1' },
      {
        kind: 'settle',
        waiters: ['call-1'],
        settled: {
          failure: { type: FailureTypes.AuthorizationRequired, message: 'server "files": the authorization server refused the sign-in (access_denied)' },
        },
      },
    ]);
    assert.deepEqual(t.callback, { status: 'failed', message: 'the authorization server refused the sign-in (access_denied)' });
  });
  it('a rejected code asks again with the same want; the calls keep waiting', () => {
    const t = run(
      signingIn(),
      { type: 'callback', callback: { state: 'st-1', sealedCode: 'c' } },
      { type: 'exchange' },
      { type: 'rejected', sealed: 's4', reason: 'invalid_grant' },
    );
    assert.deepEqual(t.effects, [{ kind: 'withdraw', requestId: 'login-1' }]);
    assert.deepEqual(t.callback, { status: 'asked-again', message: 'invalid_grant: a new sign-in request is pending' });
    assert.deepEqual(t.state.waiters, ['call-1']);
    assert.equal(stepOf(t.state), 'authorize');
    const again = run(t.state, { type: 'authorize', now: 0 }, { type: 'redirected', redirect: { ...redirect, state: 'st-2' } });
    assert.equal(again.state.pending?.requestId, 'login-2');
  });
  it('an exchange that fails withdraws the request and fails the calls (AuthorizationFailed)', () => {
    const t = run(
      signingIn(),
      { type: 'callback', callback: { state: 'st-1', sealedCode: 'c' } },
      { type: 'exchange' },
      { type: 'failed', message: 'iss mismatch' },
    );
    assert.deepEqual(t.effects[0], { kind: 'withdraw', requestId: 'login-1' });
    assert.deepEqual(t.callback, { status: 'failed', message: 'iss mismatch' });
  });
  it('a declined, cancelled or expired sign-in fails the calls, naming the issuer', () => {
    const s = signingIn();
    assert.equal(
      nextStep(
        s,
        (id) => id === 'login-1',
        () => false,
      ),
      'request-ended',
    );
    const t = transition(s, { type: 'request-ended', how: 'expired' });
    assert.deepEqual(t.effects, [
      {
        kind: 'settle',
        waiters: ['call-1'],
        settled: {
          failure: { type: FailureTypes.AuthorizationRequired, message: 'server "files": the sign-in at https://as.example for "shared" was expired' },
        },
      },
    ]);
    assert.ok(isIdle(t.state));
  });
});

describe('login machine: logout, continue-as-new, impossible events', () => {
  it('logout forgets the token, withdraws the sign-in and fails the waiting calls', () => {
    const t = transition(signingIn(), { type: 'logout' });
    assert.deepEqual(t.effects, [
      { kind: 'withdraw', requestId: 'login-1' },
      {
        kind: 'settle',
        waiters: ['call-1'],
        settled: {
          failure: { type: FailureTypes.AuthorizationRequired, message: 'server "files": signed out (durable-mcp auth logout) while the call waited' },
        },
      },
    ]);
    assert.equal(statusOf(t.state).state, 'signed-out');
    assert.ok(isIdle(t.state));
  });
  it('continues as new only when idle and near the limits, carrying the token and the sign-in count', () => {
    const s = run(fresh(), { type: 'wanted', input: want(), now: 0 }, { type: 'authorize', now: 0 }, { type: 'authorized', sealed: 's', info }).state;
    assert.equal(
      nextStep(
        s,
        () => false,
        () => true,
      ),
      'continue-as-new',
    );
    assert.equal(stepOf(s), undefined);
    const snap = snapshotOf(s);
    assert.deepEqual(snap, { sealed: 's', generation: 1, info, requests: 0, waiters: [] });
    assert.deepEqual(initialState('files', 'shared', 'login:files:shared', snap).generation, 1);
    assert.equal(
      nextStep(
        signingIn(),
        () => false,
        () => true,
      ),
      undefined,
    );
  });
  it('an activity outcome outside its phase is a bug, not a transition', () => {
    assert.throws(() => transition(fresh(), { type: 'authorized', sealed: 's', info }), /no transition for "authorized" in phase "idle"/);
    assert.throws(() => transition(fresh(), { type: 'authorize', now: 0 }), /no transition/);
    assert.throws(() => transition(fresh(), { type: 'request-ended', how: 'declined' }), /no transition/);
  });
});
