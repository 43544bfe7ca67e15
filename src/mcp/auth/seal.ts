/**
 * The seal of a login's secrets (tokens, refresh token, client registration, PKCE verifier, an authorization code on
 * its way to the login): AES-256-GCM over their JSON, so the login workflow holds only an opaque string. Inside a
 * history encrypted by the payload codec they are encrypted twice, and a person who decodes payloads (the codec
 * server, the Temporal UI) still sees no secret. The keys: derived from the payload codec's keys (the worker passes
 * them: `EncryptionCodec.deriveKeys`), or, in `dev` without a codec key, a key of dev's own in its data directory.
 *
 * Format: `s1.<keyId>.<base64url(12-byte nonce || ciphertext || 16-byte tag)>`, the key id as associated data.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { CodecError, CodecErrorCodes } from '../../codec/errors.js';
import { StateMac, STATE_KEY_LABEL } from '../../codec/state-mac.js';

/** The HKDF label of the seal's keys (derived from the payload codec's keys). */
export const SEAL_KEY_LABEL = 'durable-mcp/oauth-credentials/v1';

export interface SealKey {
  id: string;
  key: Buffer;
}

export class CredentialSeal {
  private readonly byId: Map<string, Buffer>;

  constructor(private readonly keys: SealKey[]) {
    if (keys.length === 0) throw new CodecError(CodecErrorCodes.EncryptionConfig, 'a credential seal needs at least one key');
    for (const k of keys)
      if (k.key.length !== 32) throw new CodecError(CodecErrorCodes.EncryptionConfig, `seal key "${k.id}" is ${k.key.length} bytes, AES-256 needs 32`);
    this.byId = new Map(keys.map((k) => [k.id, k.key]));
  }

  /**
   * The seal of a key file (created with a random key, mode 0600, when it does not exist): what `dev` uses without a
   * payload codec key, so OAuth credentials are never plaintext in its history.
   */
  static fromKeyFile(path: string): CredentialSeal {
    if (!existsSync(path)) {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, randomBytes(32).toString('base64') + '\n', { mode: 0o600 });
    }
    chmodSync(path, 0o600);
    const key = Buffer.from(readFileSync(path, 'utf8').trim(), 'base64');
    return new CredentialSeal([{ id: 'dev', key }]);
  }

  /**
   * The MAC of the sign-ins' `state` (src/codec/state-mac.ts) that the worker and the inbox share: the keys of
   * $DURABLE_MCP_OAUTH_STATE_KEYS, else keys derived from this seal's (HKDF-SHA256), never the seal's keys themselves.
   */
  stateMac(env: NodeJS.ProcessEnv = process.env): StateMac {
    const derived = () => this.keys.map((k) => ({ id: k.id, key: Buffer.from(hkdfSync('sha256', k.key, Buffer.alloc(0), STATE_KEY_LABEL, 32)) }));
    return StateMac.resolve(derived, env)!;
  }

  seal(value: unknown): string {
    const { id, key } = this.keys[0];
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, nonce);
    cipher.setAAD(Buffer.from(id));
    const data = Buffer.concat([nonce, cipher.update(JSON.stringify(value), 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `s1.${id}.${data.toString('base64url')}`;
  }

  unseal<T>(sealed: string): T {
    const parts = typeof sealed === 'string' ? sealed.split('.') : [];
    if (parts.length !== 3 || parts[0] !== 's1') throw new CodecError(CodecErrorCodes.DecryptionFailed, 'sealed credentials are not in the s1 format');
    const key = this.byId.get(parts[1]);
    if (!key) {
      const message = `sealed credentials name key "${parts[1]}", which this worker does not have (DURABLE_MCP_ENCRYPTION_KEYS)`;
      throw new CodecError(CodecErrorCodes.UnknownEncryptionKey, message, { keyId: parts[1] });
    }
    const data = Buffer.from(parts[2], 'base64url');
    if (data.length < 28) throw new CodecError(CodecErrorCodes.DecryptionFailed, 'sealed credentials are too short', { keyId: parts[1] });
    const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, 12));
    decipher.setAAD(Buffer.from(parts[1]));
    decipher.setAuthTag(data.subarray(data.length - 16));
    try {
      return JSON.parse(Buffer.concat([decipher.update(data.subarray(12, data.length - 16)), decipher.final()]).toString('utf8')) as T;
    } catch {
      throw new CodecError(CodecErrorCodes.DecryptionFailed, `sealed credentials do not open with key "${parts[1]}" (altered, or another key under that id)`, {
        keyId: parts[1],
      });
    }
  }
}
