/**
 * The inbox's errors: one class, `InboxError`, with a `code` from `InboxErrorCodes` and an `isInboxError` guard. Each is
 * a mistake in how the inbox is started (the CLI exits with its usage code); none is a failure type of a workflow.
 */

/** What an InboxError is about, as its `code`. */
export const InboxErrorCodes = {
  /** The inbox would listen beyond loopback (`host`) without a token. */
  TokenRequired: 'TokenRequired',
  /** An option is wrong (the message names it and the value). */
  InvalidOption: 'InvalidOption',
  /** The public URL (the option or $DURABLE_MCP_INBOX_PUBLIC_URL) is not one the inbox can publish. */
  InvalidPublicUrl: 'InvalidPublicUrl',
} as const;
export type InboxErrorCode = (typeof InboxErrorCodes)[keyof typeof InboxErrorCodes];

/** An error of the inbox, with its code (and the address it would have listened on, for TokenRequired). */
export class InboxError extends Error {
  override readonly name = 'InboxError';
  constructor(
    readonly code: InboxErrorCode,
    message: string,
    /** The bind address (TokenRequired). */
    readonly host?: string,
  ) {
    super(message);
  }

  /** Plain JSON, for `--json` and logs: the code as `error`, the message, and the host where it applies. */
  toJSON(): Record<string, unknown> {
    return { error: this.code, message: this.message, ...(this.host !== undefined ? { host: this.host } : {}) };
  }
}

/** Whether `err` is an InboxError (of one of `codes`, when given). */
export function isInboxError<C extends InboxErrorCode>(err: unknown, ...codes: C[]): err is InboxError & { code: C } {
  return err instanceof InboxError && (codes.length === 0 || (codes as string[]).includes(err.code));
}
