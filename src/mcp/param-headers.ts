/**
 * MCP 2026-07-28 streamable HTTP, "custom headers" (SEP-2243): a tool may mark parameters of its `inputSchema` with
 * `"x-mcp-header": "<Name>"`, and the client mirrors each such argument of a `tools/call` into an `Mcp-Param-<Name>`
 * header (so that a gateway can route on it without reading the body), beside the standard `Mcp-Method` and
 * `Mcp-Name` headers that the SDK's transport derives from the body itself.
 *
 * The SDK's `Client.callTool` does this, but durable-mcp sends `tools/call` through `client.request` (callTool checks
 * the result against the tool's outputSchema after the tool ran and throws, which would run the tool again on retry
 * or lose its result; see McpSession.callToolRound), and the SDK exports neither its scan nor its encoder. So the
 * rules are here, as the spec states them and the conformance scenarios `http-custom-headers` and
 * `http-invalid-tool-headers` check them:
 * - a declaration is valid only on a property reached from the root through `properties` alone (any depth), with a
 *   name that is a non-empty RFC 9110 token, unique case-insensitively within the tool, on a property of type
 *   `string`, `integer` or `boolean` (`number` is not allowed); a tool with an invalid declaration is excluded
 *   (the client MUST NOT call it), and the other tools stay;
 * - a null or absent argument sends no header; a boolean is `true`/`false`, an integer its decimal digits;
 * - a value that is not plain printable ASCII (0x20-0x7E: so any control character, tab included, and anything
 *   non-ASCII), has leading or trailing whitespace, or itself looks like the sentinel, is sent as
 *   `=?base64?<base64 of its UTF-8>?=`.
 */

const PREFIX = 'Mcp-Param-';
const KEY = 'x-mcp-header';
/** RFC 9110 §5.1 `token` (1*tchar). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const TYPES = new Set(['string', 'integer', 'boolean']);
/** Keywords whose subschemas are not reached through `properties` alone: a declaration under one is invalid. */
const UNREACHABLE = [
  'items',
  'prefixItems',
  'contains',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'propertyNames',
  'patternProperties',
  'dependentSchemas',
  'oneOf',
  'anyOf',
  'allOf',
  'not',
  'if',
  'then',
  'else',
  '$defs',
  'definitions',
];
/** Of those, the keywords whose value maps names to subschemas. */
const NAMED = new Set(['patternProperties', 'dependentSchemas', '$defs', 'definitions']);

export interface ParamHeader {
  /** The argument's path from the root of `arguments`. */
  path: string[];
  /** The name after `Mcp-Param-`, as the tool declared it. */
  name: string;
}

/** A tool's `x-mcp-header` declarations, or why they make the tool invalid. */
export type ParamHeaderScan = { valid: true; headers: ParamHeader[] } | { valid: false; reason: string };

/** Scans a tool's `inputSchema` for `x-mcp-header` declarations and checks each rule of the spec. */
export function scanParamHeaders(inputSchema: unknown): ParamHeaderScan {
  const headers: ParamHeader[] = [];
  const seen = new Map<string, string>();
  const where = (path: string[]) => (path.length === 0 ? 'the schema root' : `property "${path.join('.')}"`);
  const visit = (node: unknown, path: string[], reachable: boolean): string | undefined => {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return undefined;
    const schema = node as Record<string, unknown>;
    if (KEY in schema) {
      const name = schema[KEY];
      if (!reachable || path.length === 0) return `${where(path)}: x-mcp-header is only allowed on a property reached through "properties" alone`;
      if (typeof name !== 'string' || name.length === 0) return `${where(path)}: x-mcp-header must be a non-empty string`;
      if (!TOKEN.test(name)) return `${where(path)}: x-mcp-header ${JSON.stringify(name)} is not an HTTP token (no spaces, controls, delimiters or non-ASCII)`;
      const type = schema.type;
      if (typeof type !== 'string' || !TYPES.has(type)) {
        return `${where(path)}: x-mcp-header is only allowed on a string, integer or boolean property, not ${JSON.stringify(type ?? null)}`;
      }
      const prior = seen.get(name.toLowerCase());
      if (prior !== undefined) return `x-mcp-header ${JSON.stringify(name)} is declared twice (also as ${JSON.stringify(prior)}); names are case-insensitive`;
      seen.set(name.toLowerCase(), name);
      headers.push({ path, name });
    }
    const properties = schema.properties;
    if (properties !== null && typeof properties === 'object' && !Array.isArray(properties)) {
      for (const [key, child] of Object.entries(properties)) {
        const fault = visit(child, [...path, key], reachable);
        if (fault) return fault;
      }
    }
    for (const keyword of UNREACHABLE) {
      const sub = schema[keyword];
      if (sub === undefined) continue;
      const branches = Array.isArray(sub) ? sub : NAMED.has(keyword) && sub !== null && typeof sub === 'object' ? Object.values(sub) : [sub];
      for (const branch of branches) {
        const fault = visit(branch, [...path, `<${keyword}>`], false);
        if (fault) return fault;
      }
    }
    return undefined;
  };
  const fault = visit(inputSchema, [], true);
  return fault ? { valid: false, reason: fault } : { valid: true, headers };
}

const SENTINEL = /^=\?base64\?.*\?=$/s;

/** A header value as the spec encodes it: plain when it is printable ASCII without edge whitespace, else the base64 sentinel. */
export function encodeParamValue(value: string): string {
  const plain = /^[\x20-\x7e]*$/.test(value) && value === value.trim() && !SENTINEL.test(value);
  return plain ? value : `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

/** The `Mcp-Param-*` headers of one `tools/call`: one per declared argument that is present, not null, and of a primitive kind. */
export function paramHeaders(headers: ParamHeader[], args: Record<string, unknown> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { path, name } of headers) {
    let value: unknown = args;
    for (const key of path) value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
    let text: string | undefined;
    if (typeof value === 'string') text = value;
    else if (typeof value === 'boolean') text = value ? 'true' : 'false';
    else if (typeof value === 'number' && Number.isSafeInteger(value)) text = String(value);
    if (text !== undefined) out[`${PREFIX}${name}`] = encodeParamValue(text);
  }
  return out;
}
