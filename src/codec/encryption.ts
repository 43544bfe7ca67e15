/**
 * The payload codec: AES-256-GCM encryption of every payload durable-mcp's processes send to Temporal (workflow and
 * activity inputs and results, signals, updates, queries, memo), so that prompts, schemas, answers, tool results and
 * `requestState` are never stored in plaintext. Keys never reach the Temporal server.
 *
 * Wire format (docs/encryption.md), the same as Temporal's encryption samples so other SDKs can read it:
 * - metadata `encoding` = `binary/encrypted`, metadata `encryption-key-id` = the id of the key that encrypted it;
 * - data = 12-byte random nonce || AES-256-GCM ciphertext || 16-byte tag, of the original payload serialized as a
 *   `temporal.api.common.v1.Payload` protobuf message.
 * A payload without that encoding passes through on decode (histories recorded before encryption still replay).
 *
 * Keys: DURABLE_MCP_ENCRYPTION_KEYS (`keyId:base64key` pairs, comma-separated, 32-byte keys; the first encrypts, all
 * decrypt) or DURABLE_MCP_ENCRYPTION_KEYS_FILE (a file holding the same text). Key material is never logged.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Payload, PayloadCodec } from '@temporalio/common';
import proto from '@temporalio/proto';
import { CodecError, CodecErrorCodes } from './errors.js';

const { temporal } = proto;

export const ENCRYPTION_KEYS_ENV = 'DURABLE_MCP_ENCRYPTION_KEYS';
export const ENCRYPTION_KEYS_FILE_ENV = 'DURABLE_MCP_ENCRYPTION_KEYS_FILE';
/** `1` (or `true`, `yes`): every process of the deployment must have a key; none writes a payload in plaintext. */
export const REQUIRE_ENCRYPTION_ENV = 'DURABLE_MCP_REQUIRE_ENCRYPTION';
/** The `encoding` metadata of an encrypted payload. */
export const ENCRYPTED_ENCODING = 'binary/encrypted';
/** The metadata key naming the key that encrypted a payload. */
export const KEY_ID_METADATA = 'encryption-key-id';

const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;

export interface EncryptionKey {
  /** Written into each payload's metadata: letters, digits, `.`, `_`, `-` (at most 64). */
  id: string;
  /** 32 bytes. */
  key: Buffer;
}

/** The key material is malformed: names the variable and what is wrong (never the key). */
function configError(message: string): CodecError {
  return new CodecError(CodecErrorCodes.EncryptionConfig, message);
}

/** Parses `keyId:base64key[,keyId:base64key…]`; `source` names where the text came from, for the error. */
export function parseEncryptionKeys(text: string, source: string): EncryptionKey[] {
  const entries = text
    .split(/[,\n]/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  if (entries.length === 0) throw configError(`${source} names no key: expected keyId:base64key pairs, comma-separated`);
  const keys: EncryptionKey[] = [];
  entries.forEach((entry, i) => {
    const at = entry.indexOf(':');
    const id = at < 0 ? '' : entry.slice(0, at);
    const b64 = at < 0 ? '' : entry.slice(at + 1);
    const which = `${source}: entry ${i + 1}`;
    if (at < 0) throw configError(`${which} is not keyId:base64key (no ":")`);
    // A bad id is not quoted: it may be key material (an entry written base64key:keyId).
    if (!KEY_ID.test(id)) throw configError(`${which}: the key id (before ":") must be 1-64 letters, digits, ".", "_" or "-"`);
    if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(b64)) throw configError(`${which} (key "${id}"): the key is not base64`);
    const key = Buffer.from(b64, 'base64');
    if (key.length !== KEY_BYTES) throw configError(`${which} (key "${id}"): the key is ${key.length} bytes, AES-256 needs ${KEY_BYTES}`);
    if (keys.some((k) => k.id === id)) throw configError(`${which}: key id "${id}" appears twice`);
    keys.push({ id, key });
  });
  return keys;
}

/**
 * The keys configured in the environment: DURABLE_MCP_ENCRYPTION_KEYS, else the file DURABLE_MCP_ENCRYPTION_KEYS_FILE names;
 * undefined when neither is set (no encryption). Throws a CodecError (EncryptionConfig) for bad material, before anything connects.
 */
export function encryptionKeysFromEnv(env: NodeJS.ProcessEnv = process.env): EncryptionKey[] | undefined {
  const inline = env[ENCRYPTION_KEYS_ENV];
  const file = env[ENCRYPTION_KEYS_FILE_ENV];
  if (inline !== undefined && inline.trim() !== '' && file) {
    throw configError(`set ${ENCRYPTION_KEYS_ENV} or ${ENCRYPTION_KEYS_FILE_ENV}, not both`);
  }
  if (inline !== undefined && inline.trim() !== '') return parseEncryptionKeys(inline, ENCRYPTION_KEYS_ENV);
  if (!file) return undefined;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw configError(`${ENCRYPTION_KEYS_FILE_ENV}: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  return parseEncryptionKeys(text, `${ENCRYPTION_KEYS_FILE_ENV} (${file})`);
}

/** A new random key, as `keyId:base64key` (what `dev` writes when asked to generate one). */
export function generateEncryptionKey(id: string): string {
  return `${id}:${randomBytes(KEY_BYTES).toString('base64')}`;
}

/** AES-256-GCM payload codec with key rotation: the first key encrypts, every key decrypts. */
export class EncryptionCodec implements PayloadCodec {
  private readonly byId: Map<string, Buffer>;
  private readonly current: EncryptionKey;

  constructor(keys: EncryptionKey[]) {
    if (keys.length === 0) throw configError('EncryptionCodec needs at least one key');
    for (const k of keys) if (k.key.length !== KEY_BYTES) throw configError(`key "${k.id}" is ${k.key.length} bytes, AES-256 needs ${KEY_BYTES}`);
    this.current = keys[0];
    this.byId = new Map(keys.map((k) => [k.id, k.key]));
  }

  /** The codec of the environment's keys, or undefined when none is configured. */
  static fromEnv(env: NodeJS.ProcessEnv = process.env): EncryptionCodec | undefined {
    const keys = encryptionKeysFromEnv(env);
    return keys ? new EncryptionCodec(keys) : undefined;
  }

  /** The id of the key that encrypts. */
  get keyId(): string {
    return this.current.id;
  }

  /**
   * Keys derived from these keys for another purpose (HKDF-SHA256 with `label` as info), with the same ids and order:
   * the OAuth credentials are sealed with them inside the payloads (src/mcp/auth/seal.ts). Never the keys themselves.
   */
  deriveKeys(label: string): EncryptionKey[] {
    const all = [this.current, ...[...this.byId].filter(([id]) => id !== this.current.id).map(([id, key]) => ({ id, key }))];
    return all.map((k) => ({ id: k.id, key: Buffer.from(hkdfSync('sha256', k.key, Buffer.alloc(0), label, KEY_BYTES)) }));
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((p) => this.encrypt(p));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((p) => this.decrypt(p));
  }

  private encrypt(payload: Payload): Payload {
    const plain = temporal.api.common.v1.Payload.encode(payload).finish();
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.current.key, nonce);
    const data = Buffer.concat([nonce, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
    return {
      metadata: { encoding: Buffer.from(ENCRYPTED_ENCODING), [KEY_ID_METADATA]: Buffer.from(this.current.id) },
      data: new Uint8Array(data),
    };
  }

  private decrypt(payload: Payload): Payload {
    const encoding = payload.metadata?.encoding;
    if (!encoding || Buffer.from(encoding).toString() !== ENCRYPTED_ENCODING) return payload;
    const rawId = payload.metadata?.[KEY_ID_METADATA];
    const keyId = rawId ? Buffer.from(rawId).toString() : '';
    const key = this.byId.get(keyId);
    if (!key) {
      throw new CodecError(
        CodecErrorCodes.UnknownEncryptionKey,
        `a payload is encrypted with key "${keyId}", which is not among the keys of ${ENCRYPTION_KEYS_ENV} ` +
          '(put the key back, after the key that encrypts now)',
        { keyId },
      );
    }
    const data = Buffer.from(payload.data ?? new Uint8Array());
    if (data.length < NONCE_BYTES + TAG_BYTES)
      throw new CodecError(CodecErrorCodes.DecryptionFailed, `an encrypted payload (key "${keyId}") is too short to hold a nonce and a tag`, { keyId });
    const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, NONCE_BYTES));
    decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
    let plain: Buffer;
    try {
      plain = Buffer.concat([decipher.update(data.subarray(NONCE_BYTES, data.length - TAG_BYTES)), decipher.final()]);
    } catch {
      throw new CodecError(
        CodecErrorCodes.DecryptionFailed,
        `an encrypted payload does not decrypt with key "${keyId}" (altered, or another key under that id)`,
        {
          keyId,
        },
      );
    }
    return temporal.api.common.v1.Payload.decode(plain);
  }
}

/**
 * Whether DURABLE_MCP_REQUIRE_ENCRYPTION requires encryption: `1`, `true`, `yes` (any case) on; unset, empty, `0`,
 * `false`, `no` off; anything else is an EncryptionConfig error naming the variable and the value.
 */
export function encryptionRequiredByEnv(env: NodeJS.ProcessEnv = process.env): boolean {
  const raw = env[REQUIRE_ENCRYPTION_ENV];
  const value = (raw ?? '').trim().toLowerCase();
  if (value === '' || value === '0' || value === 'false' || value === 'no') return false;
  if (value === '1' || value === 'true' || value === 'yes') return true;
  throw configError(`${REQUIRE_ENCRYPTION_ENV} must be 1 (true, yes) or 0 (false, no), got "${raw!.slice(0, 40)}"`);
}

export interface ResolveEncryptionOptions {
  /** Who asks, for the error (default "this process"): "the worker", "the CLI", "the inbox". */
  who?: string;
  /** A setting besides DURABLE_MCP_REQUIRE_ENCRYPTION that requires encryption, named as the error should name it. */
  requiredBy?: string;
}

/**
 * The payload codec a process uses: `encryption` when given, none for `false`, else the environment's keys
 * (DURABLE_MCP_ENCRYPTION_KEYS or DURABLE_MCP_ENCRYPTION_KEYS_FILE; none when neither is set). Bad key material
 * throws a CodecError (EncryptionConfig) here, so callers resolve it before they connect; no codec while encryption is
 * required (DURABLE_MCP_REQUIRE_ENCRYPTION, or `requiredBy`) throws a CodecError (EncryptionRequired).
 */
export function resolveEncryption(
  encryption?: EncryptionCodec | false,
  env: NodeJS.ProcessEnv = process.env,
  options: ResolveEncryptionOptions = {},
): EncryptionCodec | undefined {
  const codec = encryption === false ? undefined : (encryption ?? EncryptionCodec.fromEnv(env));
  if (codec) return codec;
  const setting = encryptionRequiredByEnv(env) ? `${REQUIRE_ENCRYPTION_ENV}=${env[REQUIRE_ENCRYPTION_ENV]!.trim()}` : options.requiredBy;
  if (setting === undefined) return undefined;
  const who = options.who ?? 'this process';
  const missing =
    encryption === false
      ? `${who} was given no payload codec (encryption: false)`
      : `${who} has no encryption key: set ${ENCRYPTION_KEYS_ENV} (keyId:base64key) or ${ENCRYPTION_KEYS_FILE_ENV}`;
  throw new CodecError(CodecErrorCodes.EncryptionRequired, `encryption is required (${setting}) and ${missing}; nothing was sent to Temporal`);
}
