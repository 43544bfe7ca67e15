/**
 * The string formats of the restricted schema (`email`, `uri`, `date`, `date-time`) and the pieces they are
 * built of (RFC 3339 dates and times, RFC 3986 URIs with IPv4/IPv6 literals, the dot-atom email form).
 * Pure; runs in the workflow sandbox.
 */

export interface FormatCheck {
  description: string;
  test(s: string): boolean;
}

// The four formats of the restricted schema, with the semantics of the server's own check (the MCP SDK
// server validates answers with Ajv and ajv-formats in "full" mode): a differential test holds durable-mcp
// to the same verdicts. Written from RFC 3339 / RFC 3986 / the dot-atom email form, as that check reads them.
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME = /^(\d{2}):(\d{2}):(\d{2}(?:\.\d+)?)(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)$/;

function isDate(s: string): boolean {
  const m = DATE.exec(s);
  return m !== null && isCalendarDate(+m[1], +m[2], +m[3]);
}

/** RFC 3339 date-time: the date and the time split at one `T`/`t` or whitespace; a zone is required. */
function isDateTime(s: string): boolean {
  const parts = s.split(/[Tt]|\s/);
  if (parts.length !== 2 || !isDate(parts[0])) return false;
  const m = TIME.exec(parts[1]);
  if (m === null) return false;
  const [hour, minute, second] = [+m[1], +m[2], +m[3]];
  const sign = m[5] === '-' ? -1 : 1;
  const zoneHour = +(m[6] ?? 0);
  const zoneMinute = +(m[7] ?? 0);
  if (zoneHour > 23 || zoneMinute > 59) return false;
  if (hour <= 23 && minute <= 59 && second < 60) return true;
  // A leap second (:60) only at 23:59 UTC.
  const utcMinute = minute - zoneMinute * sign;
  const utcHour = hour - zoneHour * sign - (utcMinute < 0 ? 1 : 0);
  return (utcHour === 23 || utcHour === -1) && (utcMinute === 59 || utcMinute === -1) && second < 61;
}

const EMAIL_ATOM = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+$/;
const DOMAIN_LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?$/;

/** local@domain: the local part dot-separated atoms, the domain at least two labels of letters, digits and inner hyphens. */
function isEmail(s: string): boolean {
  const at = s.indexOf('@');
  if (at < 0 || s.indexOf('@', at + 1) >= 0) return false;
  const local = s.slice(0, at).split('.');
  const domain = s.slice(at + 1).split('.');
  return local.every((a) => EMAIL_ATOM.test(a)) && domain.length >= 2 && domain.every((l) => DOMAIN_LABEL.test(l));
}

// RFC 3986 character classes (case-insensitive): pchar = unreserved / pct-encoded / sub-delims / ":" / "@".
const PCT = '%[0-9A-Fa-f]{2}';
const UNRESERVED_SUB = "A-Za-z0-9\\-._~!$&'()*+,;=";
const SEGMENT = `(?:[${UNRESERVED_SUB}:@]|${PCT})*`;
const SEGMENT_NZ = `(?:[${UNRESERVED_SUB}:@]|${PCT})+`;
const REG_NAME = `(?:[${UNRESERVED_SUB}]|${PCT})*`;
const USERINFO = `(?:[${UNRESERVED_SUB}:]|${PCT})*`;
const URI_SHAPE = new RegExp(
  `^[A-Za-z][A-Za-z0-9+\\-.]*:` +
    // hier-part: an authority (after "/" or "//"), an absolute path, or a rootless path; never empty.
    `(?:\\/?\\/(?:${USERINFO}@)?(\\[[^\\]]*\\]|${REG_NAME})(?::\\d*)?(?:\\/${SEGMENT})*` +
    `|\\/(?:${SEGMENT_NZ}(?:\\/${SEGMENT})*)?|${SEGMENT_NZ}(?:\\/${SEGMENT})*)` +
    `(?:\\?(?:[${UNRESERVED_SUB}:@/?]|${PCT})*)?(?:#(?:[${UNRESERVED_SUB}:@/?]|${PCT})*)?$`,
);
const H16 = /^[0-9A-Fa-f]{1,4}$/;
const DEC_OCTET = /^(?:25[0-5]|2[0-4]\d|[01]?\d\d?)$/;

function isIPv4(s: string): boolean {
  const parts = s.split('.');
  return parts.length === 4 && parts.every((p) => DEC_OCTET.test(p));
}

/** RFC 3986 IPv6address: eight 16-bit pieces (the last two may be an IPv4 address), or fewer around one "::". */
function isIPv6(s: string): boolean {
  const halves = s.split('::');
  if (halves.length > 2) return false;
  const units = (text: string, last: boolean): number => {
    if (text === '') return 0;
    const pieces = text.split(':');
    let n = 0;
    for (let i = 0; i < pieces.length; i++) {
      if (H16.test(pieces[i])) n += 1;
      else if (last && i === pieces.length - 1 && isIPv4(pieces[i])) n += 2;
      else return -100;
    }
    return n;
  };
  if (halves.length === 1) return units(halves[0], true) === 8;
  const before = units(halves[0], false);
  const after = units(halves[1], true);
  return before >= 0 && after >= 0 && before + after <= 7;
}

/** An RFC 3986 URI (a scheme, and no empty hier-part), with its IP-literal host checked. */
function isUri(s: string): boolean {
  const m = URI_SHAPE.exec(s);
  if (m === null) return false;
  const literal = m[1];
  if (literal === undefined || !literal.startsWith('[')) return true;
  const inner = literal.slice(1, -1);
  return /^[Vv][0-9A-Fa-f]+\.[A-Za-z0-9\-._~!$&'()*+,;=:]+$/.test(inner) || isIPv6(inner);
}

// Unknown formats are refused at arrival (contract/admit-schema.ts); these four are checked.
const FORMATS: Record<string, FormatCheck | undefined> = {
  email: { description: 'a valid email address', test: isEmail },
  uri: { description: 'a valid URI (with a scheme, e.g. https://…)', test: isUri },
  date: { description: 'a valid date (YYYY-MM-DD)', test: isDate },
  'date-time': { description: 'a valid RFC 3339 date-time (e.g. 2025-01-31T09:30:00Z)', test: isDateTime },
};

function isCalendarDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  return day <= days;
}

/** The check of a `format` keyword's value: one of the four formats, else undefined (refused at arrival). */
export function formatCheck(format: unknown): FormatCheck | undefined {
  return typeof format === 'string' && Object.hasOwn(FORMATS, format) ? FORMATS[format] : undefined;
}
