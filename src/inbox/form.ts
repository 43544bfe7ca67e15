/**
 * A form-mode request's `requestedSchema` as form fields, the posted form back as answer content, and a
 * rejection's reason split by the field it names. Pure: the schema is untrusted input, read defensively.
 */
import { isPlainObject } from '../contract/json.js';

export interface Choice {
  value: string;
  label: string;
}

interface FieldBase {
  key: string;
  title: string;
  description?: string;
  required: boolean;
}
export type Field =
  | (FieldBase & { kind: 'text'; format?: 'email' | 'uri' | 'date' | 'date-time'; minLength?: number; maxLength?: number; default?: string })
  | (FieldBase & { kind: 'number'; integer: boolean; minimum?: number; maximum?: number; default?: number })
  | (FieldBase & { kind: 'boolean'; default?: boolean })
  | (FieldBase & { kind: 'select'; choices: Choice[]; default?: string })
  | (FieldBase & { kind: 'multi'; choices: Choice[]; minItems?: number; maxItems?: number; default?: string[] })
  | (FieldBase & { kind: 'unsupported'; type: string });

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** `[{ const, title }]` (titled enums, `oneOf` / `anyOf`) as choices. */
function titledChoices(list: unknown): Choice[] | undefined {
  if (!Array.isArray(list)) return undefined;
  const out: Choice[] = [];
  for (const item of list) {
    if (!isPlainObject(item) || (typeof item.const !== 'string' && typeof item.const !== 'number')) return undefined;
    out.push({ value: String(item.const), label: str(item.title) ?? String(item.const) });
  }
  return out;
}

function enumChoices(values: unknown, names: unknown): Choice[] | undefined {
  if (!Array.isArray(values)) return undefined;
  const labels = Array.isArray(names) ? names : [];
  return values.map((v, i) => ({ value: String(v), label: typeof labels[i] === 'string' ? (labels[i] as string) : String(v) }));
}

/** The fields of a requested schema, in property order. */
export function schemaFields(schema: unknown): Field[] {
  if (!isPlainObject(schema) || !isPlainObject(schema.properties)) return [];
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((k): k is string => typeof k === 'string') : []);
  const fields: Field[] = [];
  for (const [key, raw] of Object.entries(schema.properties)) {
    const p = isPlainObject(raw) ? raw : {};
    const base: FieldBase = {
      key,
      title: str(p.title) ?? key,
      required: required.has(key),
      ...(str(p.description) !== undefined ? { description: str(p.description) } : {}),
    };
    const type = str(p.type);
    if (type === 'string') {
      const choices = enumChoices(p.enum, p.enumNames) ?? titledChoices(p.oneOf) ?? titledChoices(p.anyOf);
      if (choices) {
        fields.push({ ...base, kind: 'select', choices, default: str(p.default) });
        continue;
      }
      const format = str(p.format);
      fields.push({
        ...base,
        kind: 'text',
        ...(format === 'email' || format === 'uri' || format === 'date' || format === 'date-time' ? { format } : {}),
        minLength: num(p.minLength),
        maxLength: num(p.maxLength),
        default: str(p.default),
      });
    } else if (type === 'number' || type === 'integer') {
      fields.push({ ...base, kind: 'number', integer: type === 'integer', minimum: num(p.minimum), maximum: num(p.maximum), default: num(p.default) });
    } else if (type === 'boolean') {
      fields.push({ ...base, kind: 'boolean', default: typeof p.default === 'boolean' ? p.default : undefined });
    } else if (type === 'array' && isPlainObject(p.items)) {
      const items = p.items;
      const choices = enumChoices(items.enum, items.enumNames) ?? titledChoices(items.anyOf) ?? titledChoices(items.oneOf);
      if (!choices) {
        fields.push({ ...base, kind: 'unsupported', type: 'array' });
        continue;
      }
      const def = Array.isArray(p.default) ? p.default.filter((v): v is string => typeof v === 'string') : undefined;
      fields.push({ ...base, kind: 'multi', choices, minItems: num(p.minItems), maxItems: num(p.maxItems), default: def });
    } else {
      fields.push({ ...base, kind: 'unsupported', type: type ?? String(p.type) });
    }
  }
  return fields;
}

/** What a person typed, by control name (a multi-select has several values). */
export type Posted = Record<string, string[]>;

/** `datetime-local` gives `YYYY-MM-DDTHH:MM[:SS]` without a zone: the inbox says and sends UTC. */
function toDateTime(v: string): string {
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2})(:\d{2}(\.\d+)?)?$/.exec(v);
  return m ? `${m[1]}${m[2] ?? ':00'}Z` : v;
}

/**
 * The answer content of a posted form. Empty controls are left out (the schema's defaults then apply, or
 * the workflow says the field is required); a value that is not what the field wants is sent as typed, so
 * that the workflow's rejection names it next to the field.
 */
export function postedToContent(fields: Field[], posted: Posted): Record<string, unknown> {
  const content: Record<string, unknown> = {};
  for (const f of fields) {
    const values = posted[f.key] ?? [];
    const first = values[0] ?? '';
    switch (f.kind) {
      case 'text':
        if (first !== '') content[f.key] = f.format === 'date-time' ? toDateTime(first) : first;
        break;
      case 'number':
        if (first.trim() !== '') {
          const n = Number(first);
          content[f.key] = Number.isFinite(n) ? n : first;
        }
        break;
      case 'boolean':
        content[f.key] = values.includes('true');
        break;
      case 'select':
        if (first !== '') content[f.key] = first;
        break;
      case 'multi':
        if (values.length > 0 || f.required) content[f.key] = values;
        break;
      case 'unsupported':
        break;
    }
  }
  return content;
}

/** The values to show in a form: what was posted, else the schema's defaults. */
export function initialValues(fields: Field[]): Posted {
  const out: Posted = {};
  for (const f of fields) {
    if (f.kind === 'boolean') out[f.key] = f.default ? ['true'] : [];
    else if (f.kind === 'multi') out[f.key] = f.default ?? [];
    else if (f.kind !== 'unsupported' && f.default !== undefined) out[f.key] = [String(f.default)];
  }
  return out;
}

/**
 * A rejection's reason split by field: validation names each field as `field "key": problem` (issues joined
 * by "; "). What names no field of the form stays in `general`.
 */
export function rejectionByField(reason: string, keys: string[]): { fields: Record<string, string>; general?: string } {
  const fields: Record<string, string> = {};
  const re = /field ("(?:[^"\\]|\\.)*"): (.*?)(?=; field "|$)/gs;
  let m: RegExpExecArray | null;
  let matched = false;
  while ((m = re.exec(reason)) !== null) {
    let name: string;
    try {
      name = JSON.parse(m[1]) as string;
    } catch {
      continue;
    }
    // `tags[1]` or `address.city` belong to the control of their top-level property.
    const key = keys.find((k) => name === k || name.startsWith(`${k}[`) || name.startsWith(`${k}.`));
    if (key === undefined) continue;
    matched = true;
    fields[key] = fields[key] ? `${fields[key]}; ${m[2]}` : m[2];
  }
  return matched ? { fields } : { fields, general: reason };
}
