/**
 * The MAC of an OAuth sign-in's `state` (docs/oauth.md "The callback", docs/security.md "The OAuth callback"): the worker
 * signs each state it puts into an authorization URL, and the inbox checks the signature and the expiry before its
 * `/oauth/callback` touches Temporal, so a forged state costs a hash, never a workflow task.
 *
 * State: `base64url(loginId) "." base64url(nonce[16] || expiresAt[4, seconds since the epoch, big-endian] || mac[32])`,
 * mac = HMAC-SHA256(key, label || base64url(loginId) || nonce || expiresAt). contract/login.ts reads the login id back.
 *
 * Keys (the first signs, every one verifies, so one can be rotated in): DURABLE_MCP_OAUTH_STATE_KEYS (`keyId:base64key`
 * pairs, the format of the encryption keys), else derived (HKDF) from the keys that seal the logins' credentials, which
 * the worker and the inbox already share (derived from DURABLE_MCP_ENCRYPTION_KEYS, or `dev`'s key file).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { parseEncryptionKeys, type EncryptionKey } from './encryption.js';

/** Explicit keys of the state MAC (the worker and every inbox need the same). */
export const STATE_KEYS_ENV = 'DURABLE_MCP_OAUTH_STATE_KEYS';
/** The HKDF label of the state MAC's keys when they are derived from the credential seal's keys. */
export const STATE_KEY_LABEL = 'durable-mcp/oauth-state/v1';
/** How long a state is taken (a sign-in link older than this is refused at the inbox; the login asks again). */
export const DEFAULT_STATE_TTL_MS = 7 * 24 * 60 * 60 * 1000;

const NONCE = 16;
const EXPIRY = 4;
const MAC = 32;

/** Why a state is refused at the edge; `ok` when it is one this deployment signed and it has not expired. */
export type StateCheck = 'ok' | 'forged' | 'expired';

export class StateMac {
  private readonly keys: Buffer[];

  constructor(
    keys: EncryptionKey[],
    private readonly ttlMs: number = DEFAULT_STATE_TTL_MS,
  ) {
    if (keys.length === 0) throw new Error('a state MAC needs at least one key');
    this.keys = keys.map((k) => k.key);
  }

  /** The keys of $DURABLE_MCP_OAUTH_STATE_KEYS, else those `derived` gives (the seal's), else none (undefined). */
  static resolve(derived: (() => EncryptionKey[] | undefined) | undefined, env: NodeJS.ProcessEnv = process.env): StateMac | undefined {
    const text = env[STATE_KEYS_ENV];
    if (text !== undefined && text.trim() !== '') return new StateMac(parseEncryptionKeys(text, STATE_KEYS_ENV));
    const keys = derived?.();
    return keys?.length ? new StateMac(keys) : undefined;
  }

  /** A new signed state for the login `loginId`, expiring after the TTL. */
  issue(loginId: string, now: number = Date.now()): string {
    const head = Buffer.from(loginId, 'utf8').toString('base64url');
    const nonce = randomBytes(NONCE);
    const expiry = Buffer.alloc(EXPIRY);
    expiry.writeUInt32BE(Math.min(0xffffffff, Math.floor((now + this.ttlMs) / 1000)));
    return `${head}.${Buffer.concat([nonce, expiry, this.mac(this.keys[0]!, head, nonce, expiry)]).toString('base64url')}`;
  }

  /** Whether `state` was signed by one of the keys (`forged` if not), and has not expired. Constant time per key. */
  check(state: string, now: number = Date.now()): StateCheck {
    const dot = state.indexOf('.');
    if (dot <= 0) return 'forged';
    const head = state.slice(0, dot);
    const tail = state.slice(dot + 1);
    if (!/^[A-Za-z0-9_-]+$/.test(tail)) return 'forged';
    const raw = Buffer.from(tail, 'base64url');
    if (raw.length !== NONCE + EXPIRY + MAC) return 'forged';
    const nonce = raw.subarray(0, NONCE);
    const expiry = raw.subarray(NONCE, NONCE + EXPIRY);
    const given = raw.subarray(NONCE + EXPIRY);
    if (!this.keys.some((key) => timingSafeEqual(this.mac(key, head, nonce, expiry), given))) return 'forged';
    return expiry.readUInt32BE() * 1000 <= now ? 'expired' : 'ok';
  }

  /** When a state (checked `ok`) expires, in ms since the epoch. */
  static expiresAt(state: string): number {
    const raw = Buffer.from(state.slice(state.indexOf('.') + 1), 'base64url');
    return raw.readUInt32BE(NONCE) * 1000;
  }

  private mac(key: Buffer, head: string, nonce: Buffer, expiry: Buffer): Buffer {
    return createHmac('sha256', key).update(STATE_KEY_LABEL).update(head).update(nonce).update(expiry).digest();
  }
}
