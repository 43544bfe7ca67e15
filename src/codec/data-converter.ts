/**
 * The data converter of every durable-mcp process with a payload codec (worker, clients, the inbox, the codec server's
 * callers): the codec as the outermost payload codec, and the failure converter that moves failure messages and stack
 * traces into an encoded payload (src/codec/failure-converter.cts), so they are encrypted too.
 */
import { fileURLToPath } from 'node:url';
import type { DataConverter, PayloadCodec } from '@temporalio/common';

/**
 * The failure converter a process with a codec uses (`failureConverterPath`, src/codec/failure-converter.cts):
 * Temporal's default one with `encodeCommonAttributes`, so failure messages and stack traces are encrypted too.
 */
export const encodedFailureConverterPath = fileURLToPath(new URL('./failure-converter.cjs', import.meta.url));

/**
 * The data converter of a codec: `base` (maybe undefined) with `codec` as its last (outermost) payload codec, encrypted
 * after any compression, and failure messages and stack traces moved into an encoded payload (unless `base` has its own
 * failureConverterPath). Undefined codec: `base` as it is (undefined: Temporal's default, no encryption). A `base` that
 * has the codec already is returned as it is (a plugin given to both the connection and the worker applies once).
 */
export function dataConverterOf(codec: PayloadCodec | undefined, base?: DataConverter): DataConverter | undefined {
  if (!codec) return base;
  if (base?.payloadCodecs?.includes(codec)) return base;
  return {
    ...base,
    payloadCodecs: [...(base?.payloadCodecs ?? []), codec],
    failureConverterPath: base?.failureConverterPath ?? encodedFailureConverterPath,
  };
}
