/**
 * `DurableMcpClientPlugin`: the payload codec and its data converter for a Temporal `Client` or `Connection` you build
 * yourself (`new Client({ plugins: [new DurableMcpClientPlugin()] })`, or `Connection.connect({ plugins: [...] })` for
 * every client of that connection), so it reads and writes the payloads of durable-mcp's workflows as the worker does.
 * The worker's side is `DurableMcpPlugin` (src/worker/plugin.ts), which is a client plugin too.
 */
import { SimplePlugin } from '@temporalio/plugin';
import { dataConverterOf } from './data-converter.js';
import { resolveEncryption, type EncryptionCodec } from './encryption.js';

export interface DurableMcpClientPluginOptions {
  /**
   * The payload codec: default the keys of DURABLE_MCP_ENCRYPTION_KEYS / DURABLE_MCP_ENCRYPTION_KEYS_FILE (none when unset;
   * bad material throws a CodecError (EncryptionConfig) here); `false` for none. Appended to the client's own payload codecs.
   */
  encryption?: EncryptionCodec | false;
}

/** A client plugin that encrypts payloads with durable-mcp's codec (docs/encryption.md), for any Temporal client. */
export class DurableMcpClientPlugin extends SimplePlugin {
  /** The payload codec the client encrypts with (undefined: payloads in plaintext). */
  readonly encryption?: EncryptionCodec;

  constructor(options: DurableMcpClientPluginOptions = {}) {
    const encryption = resolveEncryption(options.encryption);
    super({ name: 'durable-mcp-client', ...(encryption ? { dataConverter: (existing) => dataConverterOf(encryption, existing)! } : {}) });
    if (encryption) this.encryption = encryption;
  }
}
