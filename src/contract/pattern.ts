/**
 * A JSON Schema `pattern` (ECMA-262, unicode mode, unanchored) run by a linear-time engine: RE2 (re2js, a
 * pure-JS port that also runs in the workflow sandbox). The pattern is checked as ECMAScript first (what the
 * server's own check compiles), then translated to RE2 syntax with ECMAScript's meaning kept: `.` excludes
 * all four line terminators, `\s` is ECMAScript's Unicode white space, `\u`/`\x`/`\c` escapes become code
 * points, `[^]` and `[]` match anything and nothing. What RE2 cannot run in linear time (backreferences,
 * lookaround, inline modifiers) or what is too large is refused with the reason. Pure; runs in the workflow
 * sandbox.
 */
import { RE2JS } from 're2js';

/** The longest pattern admitted, in UTF-16 code units (patterns a form asks for are short; 1,000 leaves room). */
export const MAX_PATTERN_LENGTH = 1_000;
/** The largest compiled RE2 program admitted (instructions): bounds the work per character of the text. */
export const MAX_PATTERN_PROGRAM = 2_000;
/**
 * The work one check may take, in program instructions × UTF-16 code units of the text: RE2 is linear, but a
 * large program on a long text (its lazy DFA giving way to the NFA) still costs their product, about a second
 * at this bound. A longer text is refused naming its length (at least 33,554 code units for the largest program).
 */
export const PATTERN_WORK_BOUND = 2 ** 26;

export interface CompiledPattern {
  /** The pattern as the schema gave it. */
  source: string;
  /** The longest text (UTF-16 code units) `test` is given: `PATTERN_WORK_BOUND` over the program's size. */
  maxText: number;
  /** Whether the pattern matches somewhere in `s` (JSON Schema patterns are unanchored). Linear in `s`. */
  test(s: string): boolean;
}

/** Refused: `invalid` (not ECMAScript in unicode mode) or `unsupported` (linear-time engine or size bounds). */
export type PatternResult = { ok: true; pattern: CompiledPattern } | { ok: false; invalid: boolean; problem: string };

const refused = (problem: string, invalid = false): PatternResult => ({ ok: false, invalid, problem });

/** Compiles a schema's `pattern`, or says why it is refused (the caller names the field and shows the pattern). */
export function compilePattern(source: string): PatternResult {
  if (source.length > MAX_PATTERN_LENGTH) return refused(`is ${source.length} characters long, over the bound of ${MAX_PATTERN_LENGTH}`);
  try {
    // Syntax only: never run. JSON Schema patterns are ECMA-262, compiled in unicode mode as the MCP SDK
    // server's check (Ajv, `unicodeRegExp` on) compiles them: one that only compiles without "u" would fail
    // the server's check of every answer.
    new RegExp(source, 'u');
  } catch {
    return refused('is not a valid regular expression (unicode mode)', true);
  }
  const translated = translate(source);
  if (typeof translated !== 'string') return refused(translated.unsupported);
  let re: RE2JS;
  try {
    re = RE2JS.compile(translated);
  } catch (err) {
    return refused(`cannot be run by the linear-time engine (${(err as Error).message.replace(/^error parsing regexp: /, '')})`);
  }
  const size = re.programSize();
  if (size > MAX_PATTERN_PROGRAM) return refused(`compiles to ${size} instructions, over the bound of ${MAX_PATTERN_PROGRAM}`);
  const maxText = Math.floor(PATTERN_WORK_BOUND / Math.max(size, 1));
  return { ok: true, pattern: { source, maxText, test: (s) => s.length <= maxText && re.test(s) } };
}

/** ECMAScript line terminators (what `.` does not match) and white space (`\s`), as RE2 class contents. */
const LINE_TERMINATORS = '\\n\\r\\x{2028}\\x{2029}';
const SPACES = '\\t\\n\\x{b}\\f\\r \\x{a0}\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}\\x{feff}';
const ANY = '\\x{0}-\\x{10ffff}';

type Unsupported = { unsupported: string };
const cannot = (what: string): Unsupported => ({ unsupported: `uses ${what}, which a linear-time engine cannot run` });
/** One translated piece and where the pattern continues. */
interface Piece {
  text: string;
  next: number;
  /** In a class: a class escape (`\d`, `\p{L}`…), which cannot end a range; `\S` is marked on its own. */
  kind?: 'char' | 'set' | 'not-space';
}

/** ECMAScript (unicode mode, already known to be valid) to RE2 syntax, or the construct RE2 cannot run. */
function translate(p: string): string | Unsupported {
  let out = '';
  let i = 0;
  while (i < p.length) {
    const c = p[i];
    let piece: Piece | Unsupported;
    if (c === '\\') piece = escape(p, i, false);
    else if (c === '[') piece = charClass(p, i);
    else if (c === '.') piece = { text: `[^${LINE_TERMINATORS}]`, next: i + 1 };
    else if (c === '(') piece = group(p, i);
    else piece = { text: c, next: i + 1 };
    if ('unsupported' in piece) return piece;
    out += piece.text;
    i = piece.next;
  }
  return out;
}

function group(p: string, i: number): Piece | Unsupported {
  if (p[i + 1] !== '?') return { text: '(', next: i + 1 };
  if (p.startsWith('(?:', i)) return { text: '(?:', next: i + 3 };
  if (p.startsWith('(?=', i) || p.startsWith('(?!', i)) return cannot('a lookahead ((?= or (?!)');
  if (p.startsWith('(?<=', i) || p.startsWith('(?<!', i)) return cannot('a lookbehind ((?<= or (?<!)');
  if (p.startsWith('(?<', i)) return { text: '(', next: p.indexOf('>', i) + 1 }; // a named group: names do not change a test
  return cannot('an inline modifier ((?i: and the like)');
}

const hex = (cp: number): string => `\\x{${cp.toString(16)}}`;

/** The escapes of one control character (`\t` is U+0009, …, `\0` is NUL), by the character after the backslash. */
const CONTROL_ESCAPES = new Map<string | undefined, number>([
  ['t', 9],
  ['n', 10],
  ['v', 11],
  ['f', 12],
  ['r', 13],
  ['0', 0],
]);

/** An escape at `p[i] === '\\'`; inside a class `\b` is a backspace and `\-` a dash. */
function escape(p: string, i: number, inClass: boolean): Piece | Unsupported {
  const c = p[i + 1];
  const char = (cp: number, next: number): Piece => ({ text: hex(cp), next, kind: 'char' });
  switch (c) {
    case 'd':
    case 'D':
    case 'w':
    case 'W':
      return { text: `\\${c}`, next: i + 2, kind: 'set' };
    case 'b':
    case 'B':
      return inClass ? char(8, i + 2) : { text: `\\${c}`, next: i + 2 };
    case 's':
      return { text: inClass ? SPACES : `[${SPACES}]`, next: i + 2, kind: 'set' };
    case 'S':
      return inClass ? { text: '', next: i + 2, kind: 'not-space' } : { text: `[^${SPACES}]`, next: i + 2 };
    case 'c':
      return char(p.charCodeAt(i + 2) % 32, i + 3);
    case 'x':
      return char(parseInt(p.slice(i + 2, i + 4), 16), i + 4);
    case 'u':
      return unicodeEscape(p, i);
    case 'k':
      return cannot('a named backreference (\\k<…>)');
    case 'p':
    case 'P':
      return property(p, i);
  }
  const control = CONTROL_ESCAPES.get(c);
  if (control !== undefined) return char(control, i + 2);
  if (c >= '1' && c <= '9') return cannot(`a backreference (\\${c})`);
  // An escaped syntax character (or "/", or "-" in a class): RE2 reads an escaped punctuation mark literally.
  return { text: `\\${c}`, next: i + 2, kind: 'char' };
}

/** `\u{…}`, `\uXXXX`, and a surrogate pair written as two `\uXXXX` (one code point in unicode mode). */
function unicodeEscape(p: string, i: number): Piece {
  if (p[i + 2] === '{') {
    const end = p.indexOf('}', i);
    return { text: hex(parseInt(p.slice(i + 3, end), 16)), next: end + 1, kind: 'char' };
  }
  const cu = parseInt(p.slice(i + 2, i + 6), 16);
  if (cu >= 0xd800 && cu <= 0xdbff && /^\\u[Dd][C-Fc-f][0-9A-Fa-f]{2}/.test(p.slice(i + 6, i + 12))) {
    const low = parseInt(p.slice(i + 8, i + 12), 16);
    return { text: hex(0x10000 + ((cu - 0xd800) << 10) + (low - 0xdc00)), next: i + 12, kind: 'char' };
  }
  return { text: hex(cu), next: i + 6, kind: 'char' };
}

/**
 * `\p{…}`/`\P{…}`: general categories by their short names (`L`, `Lu`, also as `gc=`/`General_Category=`)
 * and scripts (`sc=`/`Script=`, by the long name RE2 knows). Other properties (long category names, binary
 * properties such as `Alphabetic`, `Script_Extensions`) are refused.
 */
function property(p: string, i: number): Piece | Unsupported {
  const end = p.indexOf('}', i);
  const body = p.slice(i + 3, end);
  const eq = body.indexOf('=');
  const [key, value] = eq < 0 ? ['General_Category', body] : [body.slice(0, eq), body.slice(eq + 1)];
  const general = (key === 'General_Category' || key === 'gc') && /^[A-Z][a-z]?$/.test(value);
  const script = key === 'Script' || key === 'sc';
  if (!general && !script) {
    const hint = 'use a short general category such as \\p{L}, or \\p{Script=…}';
    return { unsupported: `uses the Unicode property \\${p[i + 1]}{${body}}, which the linear-time engine does not know (${hint})` };
  }
  return { text: `\\${p[i + 1]}{${value}}`, next: end + 1, kind: 'set' };
}

/** One atom of a class: an escape, `[` (a POSIX class to RE2: escaped), punctuation (escaped), a code point. */
function classAtom(p: string, i: number): Piece | Unsupported {
  const c = p[i];
  if (c === '\\') return escape(p, i, true);
  const cp = p.codePointAt(i) ?? 0;
  const next = i + (cp > 0xffff ? 2 : 1);
  if (/^[!-/:-@[-`{-~]$/.test(c)) return { text: `\\${c}`, next, kind: 'char' };
  return { text: String.fromCodePoint(cp), next, kind: 'char' };
}

/** A class `[…]`, with ranges; `\S` inside one becomes an alternative next to it. */
function charClass(p: string, start: number): Piece | Unsupported {
  const negated = p[start + 1] === '^';
  let i = start + (negated ? 2 : 1);
  let items = '';
  let notSpace = false;
  while (p[i] !== ']') {
    const atom = classAtom(p, i);
    if ('unsupported' in atom) return atom;
    i = atom.next;
    if (atom.kind === 'not-space') notSpace = true;
    else if (atom.kind === 'char' && p[i] === '-' && p[i + 1] !== ']') {
      const to = classAtom(p, i + 1);
      if ('unsupported' in to) return to;
      items += `${atom.text}-${to.text}`;
      i = to.next;
    } else items += atom.text;
  }
  const next = i + 1;
  if (!notSpace) {
    if (items === '') return { text: negated ? `[${ANY}]` : `[^${ANY}]`, next };
    return { text: `[${negated ? '^' : ''}${items}]`, next };
  }
  if (negated) return items === '' ? { text: `[${SPACES}]`, next } : cannot('\\S inside a negated character class');
  return { text: items === '' ? `[^${SPACES}]` : `(?:[^${SPACES}]|[${items}])`, next };
}
