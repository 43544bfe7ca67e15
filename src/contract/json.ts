/**
 * Small helpers on plain JSON values that every plane uses: the object test, UTF-8 sizes, and how a value
 * is shown in a message. Pure and zod-free: workflow code imports this module too.
 */

/** Cross-realm safe: true for `{}`-like objects, false for arrays, null, Dates, … */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && Object.prototype.toString.call(v) === '[object Object]';
}

/** UTF-8 length of a string, counted without TextEncoder (this runs in the workflow sandbox too); a lone surrogate counts 3 bytes. */
export function utf8ByteLength(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4; // a surrogate pair: one 4-byte code point
      i++;
    } else n += c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
  }
  return n;
}

/** UTF-8 byte length of a value's JSON (0 for a value JSON cannot show). */
export function jsonByteLength(value: unknown): number {
  return utf8ByteLength(JSON.stringify(value) ?? '');
}

/** How `preview` shows a value: `max`, the longest text before "…" (default 60); `raw`, see `preview`. */
export interface PreviewOptions {
  max?: number;
  raw?: boolean;
}

/**
 * A short rendering of an offending value for a message, cut at `max` characters with "…".
 * By default readable and unambiguous: numbers as JavaScript prints them (`-0`, `NaN`, `Infinity`), a bigint
 * as `1n`, a string cut before it is quoted, a function or symbol by its kind, and a value JSON cannot show
 * (a cycle) by its kind. `raw`: the value's JSON text (`String(value)` when JSON has none), cut anywhere.
 */
export function preview(v: unknown, { max = 60, raw = false }: PreviewOptions = {}): string {
  const cut = (text: string): string => (text.length > max ? `${text.slice(0, max)}…` : text);
  if (raw) return cut(JSON.stringify(v) ?? String(v));
  if (v === undefined) return 'undefined';
  if (typeof v === 'number') return Object.is(v, -0) ? '-0' : String(v); // keeps NaN / Infinity readable
  if (typeof v === 'bigint') return `${v}n`;
  if (typeof v === 'string') return JSON.stringify(cut(v));
  if (typeof v === 'function' || typeof v === 'symbol') return typeof v;
  let text: string | undefined;
  try {
    text = JSON.stringify(v);
  } catch {
    text = undefined;
  }
  return text === undefined ? describeKind(v) : cut(text);
}

/**
 * The kind of a value, for "got …" in a message: `null`, `array`, the class of an object (`object`, `date`,
 * `map`, …) or its `typeof`. `article`: "an array" and "a string" (the answer check's wording; other kinds bare).
 */
export function describeKind(v: unknown, { article = false }: { article?: boolean } = {}): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return article ? 'an array' : 'array';
  if (typeof v === 'object') return Object.prototype.toString.call(v).slice(8, -1).toLowerCase();
  if (article && typeof v === 'string') return 'a string';
  return typeof v;
}
