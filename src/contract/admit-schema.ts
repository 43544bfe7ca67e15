/**
 * Admission of a form-mode elicitation's `requestedSchema` (part of the arrival rules of admit.ts): is it
 * the restricted schema, does durable-mcp apply each of its validation keywords exactly as the server's own
 * check (Ajv) does, and can any answer satisfy it. Pure; runs in the workflow sandbox.
 */
import { buildField, readStringOptions } from './fields.js';
import { formatCheck } from './formats.js';
import { isPlainObject, preview } from './json.js';

/**
 * Every keyword with which Ajv (the MCP SDK server's check of an answer: draft-07, `strict: false`,
 * formats from ajv-formats) constrains a value. Any other key is an annotation to both validators.
 */
const AJV_KEYWORDS = new Set([
  '$ref',
  '$defs',
  'definitions',
  '$id',
  '$schema',
  '$dynamicRef',
  '$dynamicAnchor',
  '$recursiveRef',
  '$recursiveAnchor',
  '$anchor',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'if',
  'then',
  'else',
  'const',
  'enum',
  'type',
  'nullable',
  'discriminator',
  'multipleOf',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'format',
  'items',
  'additionalItems',
  'prefixItems',
  'maxItems',
  'minItems',
  'uniqueItems',
  'contains',
  'maxContains',
  'minContains',
  'unevaluatedItems',
  'maxProperties',
  'minProperties',
  'required',
  'properties',
  'patternProperties',
  'additionalProperties',
  'dependencies',
  'dependentRequired',
  'dependentSchemas',
  'propertyNames',
  'unevaluatedProperties',
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
  if (additional !== undefined && typeof additional !== 'boolean') {
    problems.push(`uses a schema for "additionalProperties", which durable-mcp cannot validate exactly as the server does`);
  }
  const props = schema['properties'];
  if (props !== undefined && !isPlainObject(props)) problems.push(`"properties" must be an object, got ${preview(props)}`);
  const properties = isPlainObject(props) ? props : {};
  const req = schema['required'];
  if (req !== undefined) {
    if (!Array.isArray(req)) problems.push(`"required" must be an array of property names, got ${preview(req)}`);
    else {
      for (const name of req) {
        if (typeof name !== 'string') problems.push(`"required" must list property names (strings), got ${preview(name)}`);
        else if (!Object.hasOwn(properties, name)) {
          problems.push(`requires ${JSON.stringify(name)}, which is not among its properties: no answer can satisfy it`);
        }
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
      if (format !== undefined && formatCheck(format) === undefined) {
        problems.push(`uses format ${preview(format)}; only email, uri, date and date-time are validated`);
      }
      ordered(field, 'minLength', 'maxLength', problems);
    }
  } else if (type === 'number' || type === 'integer') {
    unfaithful(field, FAITHFUL.number, '', problems);
    const min = field['minimum'] as number | undefined;
    const max = field['maximum'] as number | undefined;
    if (min !== undefined && max !== undefined) {
      if (min > max) problems.push(`has minimum ${min} above maximum ${max}: no answer can satisfy it`);
      else if (type === 'integer' && Math.ceil(min) > Math.floor(max)) {
        problems.push(`has no integer between minimum ${min} and maximum ${max}: no answer can satisfy it`);
      }
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
    const distinct = new Set(options).size;
    if (minItems !== undefined && minItems > distinct) {
      problems.push(`requires at least ${minItems} distinct items but offers ${distinct}: no answer can satisfy it`);
    }
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
