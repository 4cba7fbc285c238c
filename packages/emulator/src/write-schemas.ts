/**
 * Run by the build (after tsc): writes the published JSON Schemas of the emulator's files to
 * dist/schemas/ (core/config-schemas.ts).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { API_MODULES } from './apis/index.js';
import { CONFIG_FILES, type ConfigFile, configSchema } from './core/config-schemas.js';
import { loadApiSpec } from './core/spec.js';

const out = path.join(path.dirname(fileURLToPath(import.meta.url)), 'schemas');
mkdirSync(out, { recursive: true });
const specs = Object.fromEntries(
  API_MODULES.map((module) => [module.name, loadApiSpec(module.name).document]),
);
for (const file of Object.keys(CONFIG_FILES) as ConfigFile[])
  writeFileSync(
    path.join(out, `${file}.schema.json`),
    `${JSON.stringify(configSchema(file, API_MODULES, specs), null, 2)}\n`,
  );
