/** Run by the build (after tsc): writes the fault file's JSON Schema to dist/schemas/. */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FAULTS_SCHEMA } from './faults.js';

const out = path.join(path.dirname(fileURLToPath(import.meta.url)), 'schemas');
mkdirSync(out, { recursive: true });
writeFileSync(path.join(out, 'faults.schema.json'), `${JSON.stringify(FAULTS_SCHEMA, null, 2)}\n`);
