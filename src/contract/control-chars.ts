/**
 * Outside text (an MCP server's or an authorization server's) shown where control characters do harm: a terminal
 * (title changes, erased lines, planted hyperlinks, bidi tricks) or a log (forged entries, colours). Each control
 * character becomes a visible escape (`\n`, `\e`, `\x07`, `\u{202e}`); everything else, backslashes included, is kept.
 * Pure: the CLI (src/cli/terminal.ts) and the worker's log (src/telemetry/worker-log.ts) use it.
 */

/** C0 and C1 controls, DEL, bidi marks/embeddings/overrides/isolates, line/paragraph separators, BOM. */
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2028\u2029\u2066-\u2069\ufeff]/g;
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\u001b': '\\e', '\u0007': '\\a', '\b': '\\b' };

/** `text` with every control character shown as an escape, except those in `keep`. */
export function escapeControlChars(text: string, keep = ''): string {
  return text.replace(UNSAFE, (c) => {
    if (keep.includes(c)) return c;
    const named = NAMED[c];
    if (named !== undefined) return named;
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
  });
}

/**
 * `text` with every control character (as `escapeControlChars` counts them) but those in `keep` replaced by a space:
 * for prose from outside shown in a page (an MCP server's message, a model's words), where a bidi override would
 * reorder what a person reads. The inbox applies it to every page it serves.
 */
export function stripControlChars(text: string, keep = ''): string {
  return text.replace(UNSAFE, (c) => (keep.includes(c) ? c : ' '));
}

/**
 * JSON text with every control character inside it written as a `\uXXXX` escape, but newlines (a pretty-printed
 * document's own): the same JSON value, byte for byte once parsed, with nothing hidden or reordered for the person
 * reading it (an approval's arguments: docs/approvals.md).
 */
export function escapeJsonControlChars(json: string): string {
  return json.replace(UNSAFE, (c) => (c === '\n' ? c : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
}
