#!/usr/bin/env node
// Writes the JSON Schemas generated from the zod schemas into schemas/. Run after tsc
// (`npm run schemas -w @baton/manifest`); test/schemas.test.ts fails when the files are stale.
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import process from 'node:process';
import { generateJsonSchemas } from '../dist/index.js';

const outDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'schemas');
await mkdir(outDir, { recursive: true });
const schemas = generateJsonSchemas();
for (const name of await readdir(outDir)) {
  if (name.endsWith('.schema.json') && !(name in schemas)) await rm(join(outDir, name));
}
for (const [name, schema] of Object.entries(schemas)) {
  await writeFile(join(outDir, name), `${JSON.stringify(schema, null, 2)}\n`);
}
process.stdout.write(`wrote ${Object.keys(schemas).length} schemas to ${outDir}\n`);
