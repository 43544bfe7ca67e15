/**
 * Validation of the `content` a human gives for an MCP form-mode elicitation against the elicitation's
 * `requestedSchema` (MCP spec 2025-11-25, the "restricted schema": an object with flat primitive
 * `properties` and an optional `required` list).
 *
 * This module runs inside the Temporal workflow sandbox: it is pure and deterministic, never throws on bad
 * input, and never mutates its arguments. It does not use zod on purpose: the reusable V8 context evaluates
 * a workflow's modules once per cached workflow, and zod alone cost about 0.7 MB and several ms per
 * workflow there.
 *
 * Each property of the restricted schema is compiled into a check (fields.ts); the object level (unknown
 * keys, required fields, defaults) is handled here so that every issue names exactly one field.
 */
import { buildField, type FieldSpec, type FieldValue } from './fields.js';
import { describeKind, isPlainObject } from './json.js';

export interface ValidationIssue {
  field: string;
  message: string;
}

export type ContentValidation =
  | { ok: true; data: Record<string, string | number | boolean | string[]> } // defaults applied
  | { ok: false; issues: ValidationIssue[]; message: string }; // message = issues joined by '; '

/** Validate `content` against `requestedSchema`: the data with the schema's defaults applied, or every issue, each naming its field. */
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

/** Sets an own property even for keys like `__proto__`. */
function setOwn(target: Record<string, FieldValue>, key: string, value: FieldValue): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
