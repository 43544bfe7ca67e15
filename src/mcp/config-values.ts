/** How the MCP config's error messages show an offending value: its kind or a short preview, never a secret's value. */
import { preview } from '../contract/json.js';

/** The value for "got …" in a message; `secret`: a value that may hold a secret is shown by its kind only. */
export function describe(value: unknown, secret = false): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (secret && typeof value !== 'object') return `a ${typeof value} (not shown: it may hold a secret)`;
  if (typeof value === 'string') return preview(value, { max: 40 });
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}
