/**
 * Where the conformance client puts the `auth` of an `auth/*` scenario's server for the worker to read (see
 * test/conformance/worker.ts): `$CONFORMANCE_AUTH_DIR/<encodeURIComponent(url)>.json`.
 */
import { join } from 'node:path';

export function authFileOf(dir: string, url: string): string {
  return join(dir, `${encodeURIComponent(url)}.json`);
}
