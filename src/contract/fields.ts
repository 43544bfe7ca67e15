/**
 * Compiling one property of the restricted schema (a string, with its length bounds, pattern and format;
 * a number or integer with its bounds; a boolean; a single-select enum; a multi-select array of enum
 * strings) into a check whose messages name the problem and show the offending value. A malformed
 * keyword is reported as a problem of the property, never thrown. Pure; runs in the workflow sandbox.
 */
import { formatCheck } from './formats.js';
import { isPlainObject, preview } from './json.js';
import { compilePattern, type CompiledPattern } from './pattern.js';

export type FieldValue = string | number | boolean | string[];

/** Checks one value: the problems found (none: valid). A failed type gate returns only its own problem. */
export type FieldCheck = (value: unknown) => string[];

export interface FieldSpec {
  check: FieldCheck;
  hasDefault: boolean;
  default: unknown;
}

export type Built = { ok: true; spec: FieldSpec } | { ok: false; problems: string[] };

const MAX_OPTIONS_SHOWN = 10;

export function buildField(raw: unknown): Built {
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
  const formatRule = formatCheck(format);
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
    if (formatRule !== undefined && !formatRule.test(s)) fail(`must be ${formatRule.description}, got ${preview(s)}`);
    if (pattern !== undefined && s.length > pattern.maxText) {
      fail(`is too long to check against pattern ${preview(pattern.source)}: ${s.length} UTF-16 code units, at most ${pattern.maxText}`);
    } else if (pattern !== undefined && !pattern.test(s)) fail(`must match pattern ${preview(pattern.source)}, got ${preview(s)}`);
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
export function readStringOptions(raw: Record<string, unknown>, problems: string[]): string[] | undefined {
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

function readPattern(raw: Record<string, unknown>, problems: string[]): CompiledPattern | undefined {
  const p = raw['pattern'];
  if (p === undefined) return undefined;
  if (typeof p !== 'string') {
    problems.push(`has an invalid schema: pattern must be a string, got ${preview(p)}`);
    return undefined;
  }
  // Run by a linear-time engine: a server's pattern meets its own default and every person's answer.
  const compiled = compilePattern(p);
  if (compiled.ok) return compiled.pattern;
  problems.push(`${compiled.invalid ? 'has an invalid schema' : 'unsupported schema'}: pattern ${preview(p)} ${compiled.problem}`);
  return undefined;
}

function rejectKeywords(raw: Record<string, unknown>, keys: string[], context: string, problems: string[]): void {
  for (const k of keys) {
    if (raw[k] !== undefined) problems.push(`unsupported schema: "${k}" is not supported on ${context}`);
  }
}

/** JSON Schema string lengths count code points, not UTF-16 units. */
function codePointLength(s: string): number {
  return Array.from(s).length;
}

function listOptions(options: string[]): string {
  const shown = options.slice(0, MAX_OPTIONS_SHOWN).map((o) => JSON.stringify(o));
  if (options.length > MAX_OPTIONS_SHOWN) shown.push(`… (${options.length - MAX_OPTIONS_SHOWN} more)`);
  return shown.join(', ');
}
