// The payload codec, its data converter and the client plugin that brings them to a Temporal client. The codec server
// (./server.js) is imported on its own: it is a web server (Hono), which a client has no need to load.
export {
  EncryptionCodec,
  encryptionKeysFromEnv,
  generateEncryptionKey,
  parseEncryptionKeys,
  resolveEncryption,
  encryptionRequiredByEnv,
  ENCRYPTED_ENCODING,
  ENCRYPTION_KEYS_ENV,
  ENCRYPTION_KEYS_FILE_ENV,
  KEY_ID_METADATA,
  REQUIRE_ENCRYPTION_ENV,
  type EncryptionKey,
  type ResolveEncryptionOptions,
} from './encryption.js';
export { CodecError, CodecErrorCodes, isCodecError, type CodecErrorCode } from './errors.js';
export { dataConverterOf, encodedFailureConverterPath } from './data-converter.js';
export { DurableMcpClientPlugin, type DurableMcpClientPluginOptions } from './plugin.js';
