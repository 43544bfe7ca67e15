/**
 * The codec's errors (the payload codec, its key material and the codec server): one class, `CodecError`, with a
 * `code` from `CodecErrorCodes` and an `isCodecError` guard. None names a key's bytes, only its id and where it came from.
 */

/** What a CodecError is about, as its `code`. */
export const CodecErrorCodes = {
  /** The key material (DURABLE_MCP_ENCRYPTION_KEYS, its file, or the keys given) is malformed: names what is wrong. */
  EncryptionConfig: 'EncryptionConfig',
  /**
   * Encryption is required (DURABLE_MCP_REQUIRE_ENCRYPTION, or the worker's config) and this process has no key: it
   * refuses to start rather than write a payload in plaintext. Names the setting and what is missing.
   */
  EncryptionRequired: 'EncryptionRequired',
  /** A payload says it was encrypted with a key (`keyId`) this process does not have. */
  UnknownEncryptionKey: 'UnknownEncryptionKey',
  /** A payload could not be decrypted with the key its metadata names (`keyId`: altered data, or another key under that id). */
  DecryptionFailed: 'DecryptionFailed',
  /** The codec server would listen beyond loopback (`host`) without a token. */
  TokenRequired: 'TokenRequired',
  /** An option of the codec server is wrong (the message names it and the value). */
  InvalidOption: 'InvalidOption',
} as const;
export type CodecErrorCode = (typeof CodecErrorCodes)[keyof typeof CodecErrorCodes];

/** An error of the codec, with its code and what it names. */
export class CodecError extends Error {
  override readonly name = 'CodecError';
  /** The key a payload names (UnknownEncryptionKey, DecryptionFailed). */
  readonly keyId?: string;
  /** The bind address (TokenRequired). */
  readonly host?: string;
  constructor(
    readonly code: CodecErrorCode,
    message: string,
    fields: { keyId?: string; host?: string } = {},
  ) {
    super(message);
    if (fields.keyId !== undefined) this.keyId = fields.keyId;
    if (fields.host !== undefined) this.host = fields.host;
  }

  /** Plain JSON, for `--json` and logs: the code as `error`, the message, and the key id or host where they apply. */
  toJSON(): Record<string, unknown> {
    return {
      error: this.code,
      message: this.message,
      ...(this.keyId !== undefined ? { keyId: this.keyId } : {}),
      ...(this.host !== undefined ? { host: this.host } : {}),
    };
  }
}

/** Whether `err` is a CodecError (of one of `codes`, when given). */
export function isCodecError<C extends CodecErrorCode>(err: unknown, ...codes: C[]): err is CodecError & { code: C } {
  return err instanceof CodecError && (codes.length === 0 || (codes as string[]).includes(err.code));
}
