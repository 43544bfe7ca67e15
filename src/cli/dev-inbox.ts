/** The inbox `durable-mcp dev` starts beside its worker, on loopback. */
import type { EncryptionCodec } from '../codec/index.js';
import { connectClient } from '../client/index.js';
import { startInbox, type InboxHandle } from '../inbox/index.js';
import type { CredentialSeal } from '../mcp/index.js';

/** What of `dev`'s options its inbox reads (DevOptions in dev.ts). */
export interface DevInboxOptions {
  /** Default 8787; 0 picks a free one. */
  inboxPort?: number;
  taskQueue?: string;
}

/** The inbox of `dev`, on loopback. It is a convenience: when it cannot start, dev says so and goes on. */
export async function startDevInbox(
  address: string,
  namespace: string,
  temporalUi: string | undefined,
  encryption: EncryptionCodec | undefined,
  options: DevInboxOptions,
  log: (line: string) => void,
  warn: (message: string) => void,
  seal?: CredentialSeal,
): Promise<InboxHandle | undefined> {
  let closeConnection: (() => Promise<void>) | undefined;
  try {
    const { client } = await connectClient({ address, namespace, encryption: encryption ?? false });
    closeConnection = () => client.connection.close();
    const inbox = await startInbox({
      client,
      host: '127.0.0.1',
      port: options.inboxPort ?? 8787,
      temporalUi,
      taskQueue: options.taskQueue,
      ...(seal ? { sealCode: (code: string) => seal.seal({ code }), stateMac: seal.stateMac() } : {}),
    });
    log(`Inbox:               ${inbox.url}`);
    for (const warning of inbox.warnings) warn(warning);
    return {
      ...inbox,
      close: async () => {
        await inbox.close();
        await closeConnection!().catch(() => undefined);
      },
    };
  } catch (err) {
    await closeConnection?.().catch(() => undefined);
    warn(`the inbox did not start (${(err as Error).message}); run \`durable-mcp inbox --port <port>\` instead`);
    return undefined;
  }
}
