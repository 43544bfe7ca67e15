
/**
 * Validation of the `content` a human gives for an MCP form-mode elicitation
 * against the elicitation's `requestedSchema` (MCP spec 2025-11-25, the
 * "restricted schema": an object with flat primitive `properties` and an
 * optional `required` list).
 *
 * This module runs inside the Temporal workflow sandbox: it is pure and
 * deterministic, imports nothing, never throws on bad input, and never
 * mutates its arguments. It does not use zod on purpose: the reusable V8
 * context evaluates a workflow's modules once per cached workflow, and zod
 * alone cost about 0.7 MB and several ms per workflow there.
 *
 * Each property of the restricted schema is compiled into a check whose
 * messages name the problem and show the offending value; the object level
 * (unknown keys, required fields, defaults) is handled here so that every
 * issue names exactly one field.
 */

export interface ValidationIssue {
  field: string;
  message: string;
}

export type ContentValidation =
  | { ok: true; data: Record<string, string | number | boolean | string[]> } // defaults applied
  | { ok: false; issues: ValidationIssue[]; message: string }; // message = issues joined by '; '

type FieldValue = string | number | boolean | string[];

/** Checks one value: the problems found (none: valid). A failed type gate returns only its own problem. */
type FieldCheck = (value: unknown) => string[];

interface FieldSpec {
  check: FieldCheck;
  hasDefault: boolean;
  default: unknown;
}

type Built = { ok: true; spec: FieldSpec } | { ok: false; problems: string[] };

const MAX_PREVIEW = 60;
const MAX_OPTIONS_SHOWN = 10;

// ---------------------------------------------------------------------------
// Public entry point
// ---------------------------------------------------------------------------

export function validateElicitationContent(requestedSchema: unknown, content: unknown): ContentValidation {
  const issues: ValidationIssue[] = [];
  const add = (field: string, problem: string): void => {
    issues.push({ field, message: `field ${JSON.stringify(field)}: ${problem}` });
  };

  if (!isPlainObject(content)) {
    const message = `data must be an object, got ${describeKind(content)}`;
    return { ok: false, issues: [{ field: '', message }], message };
  }

  const properties = readProperties(requestedSchema);
  const required = readRequired(requestedSchema);

  // Compile each property's schema; a malformed property is reported by name.
  const specs: Array<[string, FieldSpec]> = [];
  for (const name of Object.keys(properties)) {
    const built = buildField(properties[name]);
    if (built.ok) specs.push([name, built.spec]);
    else for (const p of built.problems) add(name, p);
  }

  // `required` names that have no schema at all: the schema is malformed.
  for (const name of required) {
    if (!Object.hasOwn(properties, name)) add(name, 'is listed in required but is not in the requested schema properties');
  }

  // Keys the human supplied that the schema does not ask for.
  for (const key of Object.keys(content)) {
    if (!Object.hasOwn(properties, key)) add(key, 'is not in the requested schema');
  }

  const data: Record<string, FieldValue> = {};
  const requiredSet = new Set(required);
  for (const [name, spec] of specs) {
    const supplied = Object.hasOwn(content, name) && content[name] !== undefined;
    let value: unknown;
    let fromDefault = false;
    if (supplied) {
      value = content[name];
    } else if (spec.hasDefault) {
      value = spec.default;
      fromDefault = true;
    } else {
      if (requiredSet.has(name)) add(name, 'is required');
      continue;
    }

    const problems = spec.check(value);
    if (problems.length > 0) {
      for (const problem of problems) add(name, fromDefault ? `${problem} (schema default)` : problem);
      continue;
    }
    const valid = value as FieldValue;
    setOwn(data, name, Array.isArray(valid) ? [...valid] : valid);
  }

  if (issues.length > 0) {
    return { ok: false, issues, message: issues.map((i) => i.message).join('; ') };
  }
  return { ok: true, data };
}

// ---------------------------------------------------------------------------
// Admission: is the schema one durable-mcp validates faithfully, and can any answer satisfy it?
// ---------------------------------------------------------------------------

/**
 * Every keyword with which Ajv (the MCP SDK server's check of an answer: draft-07, `strict: false`,
 * formats from ajv-formats) constrains a value. Any other key is an annotation to both validators.
 */
const AJV_KEYWORDS = new Set([
  '$ref', '$defs', 'definitions', '$id', '$schema', '$dynamicRef', '$dynamicAnchor', '$recursiveRef', '$recursiveAnchor', '$anchor',
  'allOf', 'anyOf', 'oneOf', 'not', 'if', 'then', 'else', 'const', 'enum', 'type', 'nullable', 'discriminator',
  'multipleOf', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum',
  'maxLength', 'minLength', 'pattern', 'format',
  'items', 'additionalItems', 'prefixItems', 'maxItems', 'minItems', 'uniqueItems', 'contains', 'maxContains', 'minContains', 'unevaluatedItems',
  'maxProperties', 'minProperties', 'required', 'properties', 'patternProperties', 'additionalProperties', 'dependencies',
  'dependentRequired', 'dependentSchemas', 'propertyNames', 'unevaluatedProperties',
]);
/** The keywords durable-mcp applies exactly as Ajv does, per place in the restricted schema. */
const FAITHFUL = {
  object: ['type', 'properties', 'required', 'additionalProperties', '$schema'],
  string: ['type', 'minLength', 'maxLength', 'pattern', 'format'],
  enum: ['type', 'enum', 'oneOf', 'anyOf'],
  number: ['type', 'minimum', 'maximum'],
  boolean: ['type'],
  array: ['type', 'items', 'minItems', 'maxItems', 'uniqueItems'],
  items: ['type', 'enum', 'oneOf', 'anyOf'],
  option: ['const'],
};
const DRAFT_07 = /^https?:\/\/json-schema\.org\/draft-07\/schema#?$/;

function unfaithful(raw: Record<string, unknown>, allowed: string[], where: string, problems: string[]): void {
  for (const key of Object.keys(raw)) {
    if (AJV_KEYWORDS.has(key) && !allowed.includes(key)) problems.push(`${where}uses "${key}", which durable-mcp cannot validate exactly as the server does`);
  }
}

/**
 * The reasons a `requestedSchema` is refused at arrival (none: admitted). Refused: anything but the
 * restricted schema (an object of flat primitive properties), a validation keyword durable-mcp does not
 * apply exactly as the server's own check (Ajv) does, and a schema no answer can satisfy: `required`
 * naming a missing property, negative or fractional bounds, a minimum above its maximum, an empty enum,
 * more items required than there are options, a default its own field rejects. Each reason names the
 * property.
 */
export function checkRequestedSchema(schema: unknown): string[] {
  const problems: string[] = [];
  if (!isPlainObject(schema)) return [`must be an object schema, got ${preview(schema)}`];
  if (schema['type'] !== 'object') problems.push(`must have "type": "object", got ${preview(schema['type'])}`);
  unfaithful(schema, FAITHFUL.object, '', problems);
  const $schema = schema['$schema'];
  if ($schema !== undefined && !(typeof $schema === 'string' && DRAFT_07.test($schema))) {
    problems.push(`declares "$schema" ${preview($schema)}; only draft-07 (the server's validator's default) is validated faithfully`);
  }
  const additional = schema['additionalProperties'];
  if (additional !== undefined && typeof additional !== 'boolean') problems.push(`uses a schema for "additionalProperties", which durable-mcp cannot validate exactly as the server does`);
  const props = schema['properties'];
  if (props !== undefined && !isPlainObject(props)) problems.push(`"properties" must be an object, got ${preview(props)}`);
  const properties = isPlainObject(props) ? props : {};
  const req = schema['required'];
  if (req !== undefined) {
    if (!Array.isArray(req)) problems.push(`"required" must be an array of property names, got ${preview(req)}`);
    else {
      for (const name of req) {
        if (typeof name !== 'string') problems.push(`"required" must list property names (strings), got ${preview(name)}`);
        else if (!Object.hasOwn(properties, name)) problems.push(`requires ${JSON.stringify(name)}, which is not among its properties: no answer can satisfy it`);
      }
    }
  }
  for (const name of Object.keys(properties)) {
    // The server's validator reads `data[name]` without an own-property check: an omitted "constructor"
    // is read as Object's and fails its type, so such a field cannot be left out (nor "__proto__" given).
    if (name in Object.prototype) problems.push(`property ${JSON.stringify(name)} is named like a JavaScript built-in, which the server's validator misreads`);
    for (const p of checkProperty(properties[name])) problems.push(`property ${JSON.stringify(name)} ${p}`);
  }
  return problems;
}

function checkProperty(raw: unknown): string[] {
  const built = buildField(raw);
  if (!built.ok) return built.problems;
  const field = raw as Record<string, unknown>;
  const problems: string[] = [];
  const type = field['type'];
  const isEnum = field['enum'] !== undefined || field['oneOf'] !== undefined || field['anyOf'] !== undefined;
  if (type === 'string' || type === undefined) {
    unfaithful(field, isEnum ? FAITHFUL.enum : FAITHFUL.string, '', problems);
    if (isEnum) checkOptions(field, problems);
    else {
      const format = field['format'];
      if (format !== undefined && (typeof format !== 'string' || !Object.hasOwn(FORMATS, format))) problems.push(`uses format ${preview(format)}; only email, uri, date and date-time are validated`);
      ordered(field, 'minLength', 'maxLength', problems);
    }
  } else if (type === 'number' || type === 'integer') {
    unfaithful(field, FAITHFUL.number, '', problems);
    const min = field['minimum'] as number | undefined;
    const max = field['maximum'] as number | undefined;
    if (min !== undefined && max !== undefined) {
      if (min > max) problems.push(`has minimum ${min} above maximum ${max}: no answer can satisfy it`);
      else if (type === 'integer' && Math.ceil(min) > Math.floor(max)) problems.push(`has no integer between minimum ${min} and maximum ${max}: no answer can satisfy it`);
    }
  } else if (type === 'boolean') {
    unfaithful(field, FAITHFUL.boolean, '', problems);
  } else if (type === 'array') {
    unfaithful(field, FAITHFUL.array, '', problems);
    const items = field['items'] as Record<string, unknown>;
    unfaithful(items, FAITHFUL.items, 'items ', problems);
    checkOptions(items, problems);
    ordered(field, 'minItems', 'maxItems', problems);
    const options = readStringOptions(items, []) ?? [];
    const minItems = field['minItems'] as number | undefined;
    if (minItems !== undefined && minItems > new Set(options).size) problems.push(`requires at least ${minItems} distinct items but offers ${new Set(options).size}: no answer can satisfy it`);
    const unique = field['uniqueItems'];
    if (unique !== undefined && typeof unique !== 'boolean') problems.push(`"uniqueItems" must be a boolean, got ${preview(unique)}`);
  }
  if (problems.length === 0 && built.spec.hasDefault) {
    const bad = built.spec.check(built.spec.default);
    if (bad.length > 0) problems.push(`has a default its own field rejects (${bad[0]})`);
  }
  return problems;
}

/** Enum options (`enum`, or `oneOf`/`anyOf` of `{const, title}`): each entry constrains by `const` only, and each `oneOf` const once. */
function checkOptions(raw: Record<string, unknown>, problems: string[]): void {
  for (const key of ['oneOf', 'anyOf'] as const) {
    const list = raw[key];
    if (!Array.isArray(list)) continue;
    const seen = new Set<string>();
    for (const entry of list) {
      if (!isPlainObject(entry)) continue;
      unfaithful(entry, FAITHFUL.option, `${key} entry `, problems);
      const c = entry['const'];
      if (key === 'oneOf' && typeof c === 'string') {
        if (seen.has(c)) problems.push(`lists ${JSON.stringify(c)} twice in oneOf: the server's check (exactly one must match) rejects it`);
        seen.add(c);
      }
    }
  }
}

function ordered(raw: Record<string, unknown>, minKey: string, maxKey: string, problems: string[]): void {
  const min = raw[minKey];
  const max = raw[maxKey];
  if (typeof min === 'number' && typeof max === 'number' && min > max) problems.push(`has ${minKey} ${min} above ${maxKey} ${max}: no answer can satisfy it`);
}

// ---------------------------------------------------------------------------
// Reading the top-level schema
// ---------------------------------------------------------------------------

function readProperties(schema: unknown): Record<string, unknown> {
  if (!isPlainObject(schema)) return {};
  const props = schema['properties'];
  return isPlainObject(props) ? props : {};
}

function readRequired(schema: unknown): string[] {
  if (!isPlainObject(schema)) return [];
  const req = schema['required'];
  if (!Array.isArray(req)) return [];
  const out: string[] = [];
  for (const r of req) if (typeof r === 'string' && !out.includes(r)) out.push(r);
  return out;
}

// ---------------------------------------------------------------------------
// Compiling one property of the restricted schema into a check
// ---------------------------------------------------------------------------

function buildField(raw: unknown): Built {
  if (!isPlainObject(raw)) {
    return { ok: false, problems: [`has an invalid schema: expected an object, got ${preview(raw)}`] };
  }

  const problems: string[] = [];
  const type = raw['type'];
  const hasEnumKeyword = raw['enum'] !== undefined || raw['oneOf'] !== undefined || raw['anyOf'] !== undefined;

  let check: FieldCheck | undefined;
  if (type === 'string' || (type === undefined && hasEnumKeyword)) {
    check = buildString(raw, problems);
  } else if (type === 'number' || type === 'integer') {
    check = buildNumber(raw, type === 'integer', problems);
  } else if (type === 'boolean') {
    check = buildBoolean(raw, problems);
  } else if (type === 'array') {
    check = buildMultiSelect(raw, problems);
  } else if (type === undefined) {
    problems.push('unsupported schema: missing "type"');
  } else {
    problems.push(`unsupported schema type ${preview(type)}`);
  }

  if (problems.length > 0 || check === undefined) return { ok: false, problems };
  const hasDefault = Object.hasOwn(raw, 'default') && raw['default'] !== undefined;
  return { ok: true, spec: { check, hasDefault, default: raw['default'] } };
}

function buildString(raw: Record<string, unknown>, problems: string[]): FieldCheck {
  const options = readStringOptions(raw, problems);

  if (options !== undefined) {
    rejectKeywords(raw, ['minLength', 'maxLength', 'format', 'pattern'], 'an enum', problems);
    return (s) => {
      if (typeof s !== 'string') return [`must be a string, got ${preview(s)}`];
      return options.includes(s) ? [] : [`must be one of ${listOptions(options)}, got ${preview(s)}`];
    };
  }

  const minLength = readCount(raw, 'minLength', problems);
  const maxLength = readCount(raw, 'maxLength', problems);
  const format = raw['format'];
  if (format !== undefined && typeof format !== 'string') {
    problems.push(`has an invalid schema: format must be a string, got ${preview(format)}`);
  }
  const formatCheck = typeof format === 'string' && Object.hasOwn(FORMATS, format) ? FORMATS[format] : undefined;
  const pattern = readPattern(raw, problems);

  return (s) => {
    if (typeof s !== 'string') return [`must be a string, got ${preview(s)}`];
    const out: string[] = [];
    const fail = (message: string): void => void out.push(message);
    const length = codePointLength(s);
    if (minLength !== undefined && length < minLength) {
      fail(`must be at least ${minLength} character${minLength === 1 ? '' : 's'} long, got ${preview(s)} (${length})`);
    }
    if (maxLength !== undefined && length > maxLength) {
      fail(`must be at most ${maxLength} character${maxLength === 1 ? '' : 's'} long, got ${preview(s)} (${length})`);
    }
    if (formatCheck !== undefined && !formatCheck.test(s)) fail(`must be ${formatCheck.description}, got ${preview(s)}`);
    if (pattern !== undefined && !pattern.test(s)) fail(`must match pattern ${preview(pattern.source)}, got ${preview(s)}`);
    return out;
  };
}

function buildNumber(raw: Record<string, unknown>, integer: boolean, problems: string[]): FieldCheck {
  rejectKeywords(raw, ['enum', 'oneOf', 'anyOf'], `a ${integer ? 'integer' : 'number'} field`, problems);
  const minimum = readNumber(raw, 'minimum', problems);
  const maximum = readNumber(raw, 'maximum', problems);
  const what = integer ? 'an integer' : 'a number';

  // NaN and ±Infinity are numbers to typeof: they get their own clear message.
  return (n) => {
    if (typeof n !== 'number') return [`must be ${what}, got ${preview(n)}`];
    if (!Number.isFinite(n)) return [`must be a finite number, got ${preview(n)}`];
    const out: string[] = [];
    if (integer && !Number.isInteger(n)) out.push(`must be an integer, got ${preview(n)}`);
    if (minimum !== undefined && n < minimum) out.push(`must be >= ${minimum}, got ${preview(n)}`);
    if (maximum !== undefined && n > maximum) out.push(`must be <= ${maximum}, got ${preview(n)}`);
    return out;
  };
}

function buildBoolean(raw: Record<string, unknown>, problems: string[]): FieldCheck {
  rejectKeywords(raw, ['enum', 'oneOf', 'anyOf'], 'a boolean field', problems);
  return (b) => (typeof b === 'boolean' ? [] : [`must be a boolean, got ${preview(b)}`]);
}

function buildMultiSelect(raw: Record<string, unknown>, problems: string[]): FieldCheck {
  const items = raw['items'];
  let options: string[] | undefined;
  if (!isPlainObject(items)) {
    problems.push(`has an invalid schema: array items must be an object, got ${preview(items)}`);
  } else if (items['type'] !== undefined && items['type'] !== 'string') {
    problems.push(`unsupported schema: array items type ${preview(items['type'])} (only string enums are supported)`);
  } else {
    const before = problems.length;
    options = readStringOptions(items, problems);
    if (options === undefined && problems.length === before) {
      problems.push('unsupported schema: array items must be a string enum (items.enum, or items.anyOf/oneOf of {const, title})');
    }
  }
  const minItems = readCount(raw, 'minItems', problems);
  const maxItems = readCount(raw, 'maxItems', problems);
  const allowed = options ?? [];

  return (arr) => {
    if (!Array.isArray(arr)) return [`must be an array of strings, got ${preview(arr)}`];
    const out: string[] = [];
    {
      const fail = (message: string): void => void out.push(message);
      if (minItems !== undefined && arr.length < minItems) {
        fail(`must have at least ${minItems} item${minItems === 1 ? '' : 's'}, got ${arr.length}: ${preview(arr)}`);
      }
      if (maxItems !== undefined && arr.length > maxItems) {
        fail(`must have at most ${maxItems} item${maxItems === 1 ? '' : 's'}, got ${arr.length}: ${preview(arr)}`);
      }
      const seen = new Set<string>();
      const reportedDuplicates = new Set<string>();
      arr.forEach((item, i) => {
        if (typeof item !== 'string') return fail(`item ${i} must be a string, got ${preview(item)}`);
        if (!allowed.includes(item)) fail(`item ${i} must be one of ${listOptions(allowed)}, got ${preview(item)}`);
        if (seen.has(item)) {
          if (!reportedDuplicates.has(item)) fail(`must not contain duplicates, got ${preview(item)} more than once`);
          reportedDuplicates.add(item);
        }
        seen.add(item);
      });
    }
    return out;
  };
}

// ---------------------------------------------------------------------------
// Schema keyword readers (malformed keywords are reported, never thrown)
// ---------------------------------------------------------------------------

/**
 * The allowed values of a string enum: `enum: [...]` (legacy `enumNames` are
 * labels only), or `oneOf`/`anyOf: [{ const, title }]`. `undefined` if the
 * schema declares no enum at all.
 */
function readStringOptions(raw: Record<string, unknown>, problems: string[]): string[] | undefined {
  const declared = (['enum', 'oneOf', 'anyOf'] as const).filter((k) => raw[k] !== undefined);
  if (declared.length === 0) return undefined;
  if (declared.length > 1) {
    problems.push(`has an invalid schema: use only one of ${declared.map((k) => `"${k}"`).join(', ')}`);
    return undefined;
  }
  const key = declared[0];
  const list = raw[key];
  if (!Array.isArray(list) || list.length === 0) {
    problems.push(`has an invalid schema: ${key} must be a non-empty array, got ${preview(list)}`);
    return undefined;
  }
  const options: string[] = [];
  for (const entry of list) {
    const value = key === 'enum' ? entry : isPlainObject(entry) ? entry['const'] : undefined;
    if (typeof value !== 'string') {
      const expected = key === 'enum' ? 'strings' : 'objects {const: string, title?}';
      problems.push(`has an invalid schema: ${key} entries must be ${expected}, got ${preview(entry)}`);
      return undefined;
    }
    options.push(value);
  }
  return options;
}

function readCount(raw: Record<string, unknown>, key: string, problems: string[]): number | undefined {
  const v = raw[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) {
    problems.push(`has an invalid schema: ${key} must be a non-negative integer, got ${preview(v)}`);
    return undefined;
  }
  return v;
}

function readNumber(raw: Record<string, unknown>, key: string, problems: string[]): number | undefined {
  const v = raw[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v)) {
    problems.push(`has an invalid schema: ${key} must be a finite number, got ${preview(v)}`);
    return undefined;
  }
  return v;
}

function readPattern(raw: Record<string, unknown>, problems: string[]): RegExp | undefined {
  const p = raw['pattern'];
  if (p === undefined) return undefined;
  if (typeof p !== 'string') {
    problems.push(`has an invalid schema: pattern must be a string, got ${preview(p)}`);
    return undefined;
  }
  // JSON Schema patterns are ECMA-262 and unanchored. Unicode mode only, as the MCP SDK server's own
  // check (Ajv, `unicodeRegExp` on: `new RegExp(pattern, "u")`) compiles them: a pattern that only
  // compiles without "u" would fail the server's check of every answer.
  try {
    return new RegExp(p, 'u');
  } catch {
    problems.push(`has an invalid schema: pattern ${preview(p)} is not a valid regular expression (unicode mode)`);
    return undefined;
  }
}

function rejectKeywords(raw: Record<string, unknown>, keys: string[], context: string, problems: string[]): void {
  for (const k of keys) {
    if (raw[k] !== undefined) problems.push(`unsupported schema: "${k}" is not supported on ${context}`);
  }
}

// ---------------------------------------------------------------------------
// String formats
// ---------------------------------------------------------------------------

interface FormatCheck {
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
    `(?:\\/?\\/(?:${USERINFO}@)?(\\[[^\\]]*\\]|${REG_NAME})(?::\\d*)?(?:\\/${SEGMENT})*|\\/(?:${SEGMENT_NZ}(?:\\/${SEGMENT})*)?|${SEGMENT_NZ}(?:\\/${SEGMENT})*)` +
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

// Unknown formats are refused at arrival (contract/admit.ts); these four are checked.
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

// ---------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------

/** Cross-realm safe: true for `{}`-like objects, false for arrays, null, Dates, … */
function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && Object.prototype.toString.call(v) === '[object Object]';
}

/** Sets an own property even for keys like `__proto__`. */
function setOwn(target: Record<string, FieldValue>, key: string, value: FieldValue): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** JSON Schema string lengths count code points, not UTF-16 units. */
function codePointLength(s: string): number {
  return Array.from(s).length;
}

function describeKind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'object') return Object.prototype.toString.call(v).slice(8, -1).toLowerCase();
  return typeof v;
}

function listOptions(options: string[]): string {
  const shown = options.slice(0, MAX_OPTIONS_SHOWN).map((o) => JSON.stringify(o));
  if (options.length > MAX_OPTIONS_SHOWN) shown.push(`… (${options.length - MAX_OPTIONS_SHOWN} more)`);
  return shown.join(', ');
}

/** A short, unambiguous rendering of an offending value for a message. */
function preview(v: unknown): string {
  if (v === undefined) return 'undefined';
  if (typeof v === 'number') return Object.is(v, -0) ? '-0' : String(v); // keeps NaN / Infinity readable
  if (typeof v === 'bigint') return `${v}n`;
  if (typeof v === 'string') {
    return JSON.stringify(v.length > MAX_PREVIEW ? `${v.slice(0, MAX_PREVIEW)}…` : v);
  }
  if (typeof v === 'function' || typeof v === 'symbol') return typeof v;
  let text: string | undefined;
  try {
    text = JSON.stringify(v);
  } catch {
    text = undefined;
  }
  if (text === undefined) return describeKind(v);
  return text.length > MAX_PREVIEW ? `${text.slice(0, MAX_PREVIEW)}…` : text;
}
