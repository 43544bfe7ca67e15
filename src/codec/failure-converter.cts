/**
 * The failure converter of every durable-mcp process with a payload codec (src/codec/data-converter.ts, `dataConverterOf`):
 * Temporal's default one with `encodeCommonAttributes`, which moves a failure's message and stack trace into a payload
 * (`encodedAttributes`) that the codec then encrypts; the failure in history says only "Encoded failure". Every
 * Temporal SDK's failure converter reads such a failure back (message and stack trace from the decoded payload).
 *
 * CommonJS (`.cts`), because Temporal loads a `failureConverterPath` with require() in the worker's main thread
 * (activity failures) and in clients, and bundles it into the workflow code (the failures workflows raise, update
 * rejections): the prebuilt bundles `workflow-bundle-encoded-failures.js` and its traced twin hold it.
 */
import { DefaultFailureConverter } from '@temporalio/common';

export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
