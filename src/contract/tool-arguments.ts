/**
 * A call's arguments checked before a person is asked to approve them (docs/approvals.md, "What you see is what you
 * approve"): they must fit on the approver's screen in full (APPROVAL_ARGUMENTS_MAX characters of JSON), and match the
 * tool's input schema, with no key the schema does not declare (a key outside `properties` is in no form field, so a
 * person would approve it unseen in the form). The tool's schema comes from the MCP server (untrusted): the check is
 * bounded in depth and work, and a `pattern` runs in the linear-time engine. Pure: unit tests need no server.
 */
import { compilePattern } from './pattern.js';
import { isPlainObject, preview } from './json.js';

/** The most characters of JSON (the arguments as `JSON.stringify` writes them) an approval shows; larger is refused. */
export const APPROVAL_ARGUMENTS_MAX = 4_096;
/** How deep the check follows a schema (deeper parts are not checked: the server checks them again). */
const MAX_DEPTH = 16;

/** What is wrong with a call's arguments: the field (a path like `to` or `items[2].sku`) and the problem. */
export interface ArgumentsProblem {
  field: string;
  problem: string;
}

/** The arguments as an approver sees them: JSON, whole. */
export function argumentsJson(args: Record<string, unknown>): string {
  return JSON.stringify(args) ?? '{}';
}

/** Whether the arguments are too large for an approval to show in full (undefined: they fit). */
export function argumentsSizeProblem(args: Record<string, unknown>): ArgumentsProblem | undefined {
  const size = argumentsJson(args).length;
  if (size <= APPROVAL_ARGUMENTS_MAX) return undefined;
  return {
    field: 'arguments',
    problem: `are ${size} characters of JSON, over the ${APPROVAL_ARGUMENTS_MAX} an approval shows in full: a person must see every character they approve`,
  };
}

const TYPES = ['string', 'number', 'integer', 'boolean', 'array', 'object', 'null'] as const;

function typeMatches(type: string, v: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof v === 'string';
    case 'number':
      return typeof v === 'number' && Number.isFinite(v);
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v);
    case 'boolean':
      return typeof v === 'boolean';
    case 'array':
      return Array.isArray(v);
    case 'object':
      return isPlainObject(v);
    case 'null':
      return v === null;
    default:
      return true;
  }
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function fieldOf(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

/** What is wrong with `v` under `schema` at `path` (the first problem found), or undefined. */
function valueProblem(schema: unknown, v: unknown, path: string, depth: number, top: boolean): ArgumentsProblem | undefined {
  if (!isPlainObject(schema) || depth > MAX_DEPTH) return undefined;
  const at = path === '' ? 'arguments' : path;
  const bad = (problem: string): ArgumentsProblem => ({ field: at, problem: `${problem}, got ${preview(v, { max: 60 })}` });
  const types = typeof schema.type === 'string' ? [schema.type] : Array.isArray(schema.type) ? schema.type.filter((t) => typeof t === 'string') : [];
  const known = types.filter((t) => (TYPES as readonly string[]).includes(t));
  if (known.length > 0 && !known.some((t) => typeMatches(t, v))) return bad(`must be ${known.join(' or ')}`);
  if (Object.hasOwn(schema, 'const') && !sameJson(schema.const, v)) return bad(`must be ${preview(schema.const, { max: 40 })}`);
  if (Array.isArray(schema.enum) && !schema.enum.some((e) => sameJson(e, v))) {
    return bad(`must be one of ${schema.enum.map((e) => preview(e, { max: 30 })).join(', ')}`);
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = schema[key];
    if (Array.isArray(branches) && branches.length > 0 && branches.every((b) => valueProblem(b, v, path, depth + 1, false) !== undefined)) {
      return bad(`matches none of the ${branches.length} forms its schema allows (${key})`);
    }
  }
  if (Array.isArray(schema.allOf)) {
    for (const b of schema.allOf) {
      const p = valueProblem(b, v, path, depth + 1, top);
      if (p) return p;
    }
  }
  if (typeof v === 'string') {
    if (typeof schema.minLength === 'number' && [...v].length < schema.minLength) return bad(`must be at least ${schema.minLength} characters`);
    if (typeof schema.maxLength === 'number' && [...v].length > schema.maxLength) return bad(`must be at most ${schema.maxLength} characters`);
    if (typeof schema.pattern === 'string') {
      const compiled = compilePattern(schema.pattern);
      if (compiled.ok && v.length <= compiled.pattern.maxText && !compiled.pattern.test(v))
        return bad(`must match the pattern ${preview(schema.pattern, { max: 60 })}`);
    }
  }
  if (typeof v === 'number') {
    if (typeof schema.minimum === 'number' && v < schema.minimum) return bad(`must be at least ${schema.minimum}`);
    if (typeof schema.maximum === 'number' && v > schema.maximum) return bad(`must be at most ${schema.maximum}`);
    if (typeof schema.exclusiveMinimum === 'number' && v <= schema.exclusiveMinimum) return bad(`must be over ${schema.exclusiveMinimum}`);
    if (typeof schema.exclusiveMaximum === 'number' && v >= schema.exclusiveMaximum) return bad(`must be under ${schema.exclusiveMaximum}`);
  }
  if (Array.isArray(v)) {
    if (typeof schema.minItems === 'number' && v.length < schema.minItems) return bad(`must have at least ${schema.minItems} items`);
    if (typeof schema.maxItems === 'number' && v.length > schema.maxItems) return bad(`must have at most ${schema.maxItems} items`);
    if (isPlainObject(schema.items)) {
      for (let i = 0; i < v.length; i++) {
        const p = valueProblem(schema.items, v[i], `${at}[${i}]`, depth + 1, false);
        if (p) return p;
      }
    }
  }
  if (isPlainObject(v)) return objectProblem(schema, v, path, depth, top);
  return undefined;
}

/**
 * An object's keys: every `required` one present; none outside `properties` unless `additionalProperties` allows it
 * (at the top, where a form shows the arguments, only an explicit `true` or schema does, or a schema with no
 * `properties` at all; deeper, JSON Schema's default).
 */
function objectProblem(schema: Record<string, unknown>, v: Record<string, unknown>, path: string, depth: number, top: boolean): ArgumentsProblem | undefined {
  const props = isPlainObject(schema.properties) ? schema.properties : undefined;
  if (Array.isArray(schema.required)) {
    for (const key of schema.required) {
      if (typeof key === 'string' && !Object.hasOwn(v, key)) return { field: fieldOf(path, key), problem: 'is required by the tool, and missing' };
    }
  }
  const extra = schema.additionalProperties;
  // A schema that declares no `properties` at all describes no keys: the server takes any (they are all shown as JSON).
  const extraAllowed = extra === true || isPlainObject(extra) || props === undefined || (!top && extra === undefined);
  for (const [key, value] of Object.entries(v)) {
    const declared = props !== undefined && Object.hasOwn(props, key);
    if (declared) {
      const p = valueProblem(props[key], value, fieldOf(path, key), depth + 1, false);
      if (p) return p;
    } else if (!extraAllowed) {
      const allowed = props ? Object.keys(props) : [];
      const takes = allowed.length > 0 ? `it takes ${allowed.map((k) => JSON.stringify(k)).join(', ')}` : 'it takes no arguments';
      return { field: fieldOf(path, key), problem: `is not an argument of the tool (its input schema does not declare it; ${takes})` };
    } else if (isPlainObject(extra)) {
      const p = valueProblem(extra, value, fieldOf(path, key), depth + 1, false);
      if (p) return p;
    }
  }
  return undefined;
}

/**
 * What is wrong with `args` for a tool whose input schema is `inputSchema` (undefined: nothing found). A tool with no
 * schema known (not listed), or whose schema is not an object schema, is not checked here (the server checks it).
 */
export function argumentsSchemaProblem(inputSchema: unknown, args: Record<string, unknown>): ArgumentsProblem | undefined {
  if (!isPlainObject(inputSchema)) return undefined;
  if (inputSchema.type !== undefined && inputSchema.type !== 'object') return undefined;
  return objectProblem(inputSchema, args, '', 0, true);
}

/** The arguments' problem as one line: `field "cc" is not an argument of the tool (…)`, `its arguments are … characters`. */
export function argumentsProblemText(p: ArgumentsProblem): string {
  return p.field === 'arguments' ? `its arguments ${p.problem}` : `field "${p.field}" ${p.problem}`;
}
