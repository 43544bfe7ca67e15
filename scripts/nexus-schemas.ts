/**
 * Writes the JSON Schemas of the Nexus service's contract (src/contract/nexus.ts) to docs/nexus/, one file per input and
 * output. test/contract/nexus.test.ts fails when the committed files differ from what this writes.
 * Usage (from the built tree): `node dist/scripts/nexus-schemas.js`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nexusJsonSchemas } from '../src/contract/nexus.js';

/** Where the schemas are committed. */
export const NEXUS_SCHEMA_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'docs', 'nexus');

/** A schema file's text: two-space JSON and a final newline. */
export function schemaText(schema: unknown): string {
  return `${JSON.stringify(schema, null, 2)}\n`;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  mkdirSync(NEXUS_SCHEMA_DIR, { recursive: true });
  for (const [file, schema] of Object.entries(nexusJsonSchemas())) {
    writeFileSync(join(NEXUS_SCHEMA_DIR, file), schemaText(schema));
    console.log(`wrote docs/nexus/${file}`);
  }
}
