/**
 * The pure parts of the web servers' edge (no server): the OAuth state MAC (src/codec/state-mac.ts), the per-client
 * rate and connection caps (src/codec/limits.ts), and the access check's same-origin path and cookie scope.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cookieScope, sameOriginPath, sessionValue } from '../../src/codec/access.js';
import { generateEncryptionKey, parseEncryptionKeys } from '../../src/codec/index.js';
import { ConnectionCap, RateLimiter } from '../../src/codec/limits.js';
import { DEFAULT_STATE_TTL_MS, StateMac, STATE_KEYS_ENV } from '../../src/codec/state-mac.js';
import { loginIdOfState } from '../../src/contract/login.js';

const keys = (id: string) => parseEncryptionKeys(generateEncryptionKey(id), 'test');

describe('the OAuth state MAC', () => {
  const login = 'durable-mcp-login:crm';
  it('issues states the login id reads back from, which verify until they expire', () => {
    const mac = new StateMac(keys('a'));
    const now = Date.UTC(2026, 0, 1);
    const state = mac.issue(login, now);
    assert.equal(loginIdOfState(state), login);
    assert.equal(mac.check(state, now), 'ok');
    assert.equal(mac.check(state, now + DEFAULT_STATE_TTL_MS - 1000), 'ok');
    assert.equal(mac.check(state, now + DEFAULT_STATE_TTL_MS), 'expired');
    assert.notEqual(mac.issue(login, now), state, 'random each time');
  });
  it('refuses a state of another key, another login, or with any byte changed', () => {
    const mac = new StateMac(keys('a'));
    const state = mac.issue(login);
    assert.equal(new StateMac(keys('b')).check(state), 'forged');
    const [, tail] = state.split('.');
    assert.equal(mac.check(`${Buffer.from('durable-mcp-login:other').toString('base64url')}.${tail}`), 'forged');
    const raw = Buffer.from(tail!, 'base64url');
    for (const i of [0, 16, 19, 20, raw.length - 1]) {
      const changed = Buffer.from(raw);
      changed[i] = changed[i]! ^ 1;
      assert.equal(mac.check(`${state.split('.')[0]}.${changed.toString('base64url')}`), 'forged', `byte ${i}`);
    }
    for (const bad of ['', '.', 'abc', `${state}x`, `${state.split('.')[0]}.${'A'.repeat(43)}`, `${state}.x`]) assert.equal(mac.check(bad), 'forged', bad);
  });
  it('verifies with every key and signs with the first (rotation); the environment’s keys win over derived ones', () => {
    const [a] = keys('a');
    const [b] = keys('b');
    const old = new StateMac([a!]).issue(login);
    const rotated = new StateMac([b!, a!]);
    assert.equal(rotated.check(old), 'ok');
    assert.equal(new StateMac([a!]).check(rotated.issue(login)), 'forged');
    const text = generateEncryptionKey('env');
    const fromEnv = StateMac.resolve(() => [a!], { [STATE_KEYS_ENV]: text })!;
    assert.equal(new StateMac(parseEncryptionKeys(text, 't')).check(fromEnv.issue(login)), 'ok');
    assert.equal(StateMac.resolve(undefined, {}), undefined, 'no key: none');
    assert.throws(() => StateMac.resolve(undefined, { [STATE_KEYS_ENV]: 'k1:short' }), /DURABLE_MCP_OAUTH_STATE_KEYS/);
  });
});

describe('the rate and connection caps', () => {
  it('gives each client its burst, refills at its rate, and remembers at most maxClients', () => {
    let t = 0;
    const limiter = new RateLimiter({ burst: 3, perSecond: 1, maxClients: 2 }, () => t);
    assert.deepEqual(
      [1, 2, 3, 4].map(() => limiter.take('a')),
      [true, true, true, false],
    );
    assert.equal(limiter.take('b'), true, 'another client has its own bucket');
    t += 1000;
    assert.deepEqual([limiter.take('a'), limiter.take('a')], [true, false], 'one a second');
    limiter.take('c');
    assert.equal(limiter.size, 2, 'the oldest client is forgotten');
  });
  it('caps open connections per client; leaving frees a place once', () => {
    const cap = new ConnectionCap(2);
    const one = cap.enter('a')!;
    assert.ok(cap.enter('a'));
    assert.equal(cap.enter('a'), undefined);
    assert.ok(cap.enter('b'));
    one();
    one();
    assert.ok(cap.enter('a'));
    assert.equal(cap.enter('a'), undefined, 'a second leave of the same connection frees nothing');
  });
});

describe('the access check', () => {
  it('redirects only to a path of the same origin', () => {
    for (const [given, want] of [
      ['http://h/x?y=1', '/x?y=1'],
      ['http://h//evil.example/x', '/evil.example/x'],
      ['http://h///evil.example', '/evil.example'],
      ['http://h/', '/'],
    ] as const)
      assert.equal(sameOriginPath(new URL(given)), want, given);
  });
  it('scopes the cookie to the public URL (Secure when https), and its value is not the token', () => {
    assert.deepEqual(cookieScope('https://inbox.example.com/team/', new URL('http://127.0.0.1/')), { secure: true, path: '/team/' });
    assert.deepEqual(cookieScope(undefined, new URL('http://127.0.0.1/')), { secure: false, path: '/' });
    assert.deepEqual(cookieScope(undefined, new URL('https://127.0.0.1/')), { secure: true, path: '/' });
    assert.notEqual(sessionValue('tok', 'c'), 'tok');
    assert.notEqual(sessionValue('tok', 'c'), sessionValue('tok2', 'c'));
  });
});
