/** `durable-mcp codec-server`: serve the codec server (src/codec/server.ts) with the environment's keys until SIGINT/SIGTERM. */
import { EncryptionCodec, isCodecError, ENCRYPTION_KEYS_ENV, ENCRYPTION_KEYS_FILE_ENV } from '../codec/index.js';
import { CODEC_PUBLIC_URL_ENV, CODEC_TOKEN_ENV, CODEC_UI_ORIGINS_ENV, parseOrigin, parsePublicUrl, startCodecServer } from '../codec/server.js';
import { UsageError } from './commands/common.js';

/** The UI origins of `durable-mcp dev`'s Temporal UI on a port (both names a browser may use). */
export function devUiOrigins(uiPort: number): string[] {
  return [`http://localhost:${uiPort}`, `http://127.0.0.1:${uiPort}`];
}

/**
 * The UI origins: the flags, else $DURABLE_MCP_CODEC_UI_ORIGINS (comma-separated), else the origin of $TEMPORAL_UI_URL,
 * else the UI of `durable-mcp dev` (port 8233).
 */
export function uiOriginsFrom(flags: string[] | undefined, env: NodeJS.ProcessEnv = process.env): string[] {
  const list = (s: string) =>
    s
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean);
  const given = flags?.length ? flags.flatMap(list) : env[CODEC_UI_ORIGINS_ENV] ? list(env[CODEC_UI_ORIGINS_ENV]!) : undefined;
  if (given) return [...new Set(given.map(parseOrigin))];
  if (env.TEMPORAL_UI_URL) return [parseOrigin(new URL(env.TEMPORAL_UI_URL).origin)];
  return devUiOrigins(8233);
}

/** The codec of the environment's keys; a usage error when none is configured or the material is bad. */
export function codecFromEnv(env: NodeJS.ProcessEnv = process.env): EncryptionCodec {
  let codec: EncryptionCodec | undefined;
  try {
    codec = EncryptionCodec.fromEnv(env);
  } catch (err) {
    if (isCodecError(err, 'EncryptionConfig')) throw new UsageError(err.message);
    throw err;
  }
  if (!codec) throw new UsageError(`the codec server needs the keys: set ${ENCRYPTION_KEYS_ENV} (keyId:base64key,…) or ${ENCRYPTION_KEYS_FILE_ENV}`);
  return codec;
}

/** The public URL: the flag, else $DURABLE_MCP_CODEC_PUBLIC_URL; a usage error naming which when it is malformed. */
export function publicUrlFrom(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const value = flag ?? (env[CODEC_PUBLIC_URL_ENV] || undefined);
  if (value === undefined) return undefined;
  try {
    return parsePublicUrl(value, flag !== undefined ? '--public-url' : CODEC_PUBLIC_URL_ENV);
  } catch (err) {
    if (isCodecError(err, 'InvalidOption')) throw new UsageError(err.message);
    throw err;
  }
}

export async function runCodecServerCommand(
  opts: { host: string; port: number; uiOrigin?: string[]; namespace?: string[]; publicUrl?: string; json?: boolean },
  log: (line: string) => void = (l) => console.log(l),
): Promise<void> {
  const say = (text: string, json: Record<string, unknown>) => log(opts.json ? JSON.stringify(json) : text);
  const codec = codecFromEnv();
  const uiOrigins = uiOriginsFrom(opts.uiOrigin);
  const token = process.env[CODEC_TOKEN_ENV] || undefined;
  const namespaces = opts.namespace?.length ? opts.namespace : undefined;
  const publicUrl = publicUrlFrom(opts.publicUrl);
  const server = await startCodecServer({ codec, host: opts.host, port: opts.port, token, uiOrigins, namespaces, ...(publicUrl ? { publicUrl } : {}) });
  say(
    [
      `durable-mcp codec server: ${server.url} (encrypts with key "${codec.keyId}"; ${token ? `${CODEC_TOKEN_ENV} required` : 'loopback only, no token'})`,
      `  Temporal UI origins: ${uiOrigins.join(', ')}${namespaces ? `; namespaces: ${namespaces.join(', ')}` : ''}`,
      `  CLI: durable-mcp temporal workflow show --workflow-id <id> --codec-endpoint ${server.url}` +
        (token ? ` --codec-auth "Bearer $${CODEC_TOKEN_ENV}"` : ''),
      ...(token ? [`  Browser: open ${server.url}/?token=… once, and run the UI with TEMPORAL_CODEC_INCLUDE_CREDENTIALS=true`] : []),
    ].join('\n'),
    { event: 'ready', url: server.url, keyId: codec.keyId, token: !!token, uiOrigins, namespaces: namespaces ?? null },
  );
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await server.close();
  say('durable-mcp codec server: stopped', { event: 'stopped' });
  process.exit(0);
}
