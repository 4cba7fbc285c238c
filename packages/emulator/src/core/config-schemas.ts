/**
 * The JSON Schemas of the emulator's files, published in the package (dist/schemas/) so that an
 * editor checks and completes a file that names one with `$schema`: users (`--users`), seed
 * (`--seed`) and state (`--state`, `GET`/`PUT /__emulator/state`). They are made at build from
 * the schemas the emulator checks the files with, so the two cannot part ways. Where those
 * refer to a spec's schemas (an event, a conversion), the published file carries a copy of
 * them under `$defs`, so it stands alone: no reference to resolve elsewhere.
 */
import type { AnyApiModule } from './api-module.js';
import { seedSchema } from './seed.js';
import { fieldsDocument, fieldsFileId } from './seed-fields.js';
import { type ApiName, isObject, type Json, type JsonObject } from './spec.js';
import { stateSchema } from './state-file.js';
import { USERS_SCHEMA } from './users.js';

/** Each file's schema for the APIs of `modules`, with its title and description. */
export const CONFIG_FILES = {
  users: {
    schema: () => USERS_SCHEMA,
    title: 'gspec emulator users file (--users)',
    description: 'Bearer tokens and the users they stand for, with the OAuth scopes each is granted.',
  },
  seed: {
    schema: seedSchema,
    title: 'gspec emulator seed file (--seed)',
    description: 'Users, and what each API starts with (see the emulator README for every section).',
  },
  state: {
    schema: stateSchema,
    title: 'gspec emulator state (--state, GET and PUT /__emulator/state)',
    description: 'The whole state of an emulator as it dumps it.',
  },
} as const satisfies Record<
  string,
  { schema: (modules: readonly AnyApiModule[]) => object; title: string; description: string }
>;

export type ConfigFile = keyof typeof CONFIG_FILES;

/** OpenAPI's keywords that JSON Schema does not have, left out of the copies. */
const OPENAPI_ONLY = new Set(['example', 'examples', 'externalDocs', 'discriminator', 'xml']);

/**
 * `schema` standing alone: every `$ref` into a spec (`calendar.json#/components/schemas/Event`)
 * points at a copy of that schema in `$defs` (`#/$defs/calendar.Event`), and so do the
 * references between the copies.
 */
export function standalone(schema: object, specs: Readonly<Record<string, JsonObject>>): JsonObject {
  const defs: JsonObject = {};
  const pending: [file: string, name: string][] = [];
  const defName = (file: string, name: string) => `${file.replace(/\.json$/, '')}.${name}`;
  const rewrite = (value: Json, file: string | undefined): Json => {
    if (Array.isArray(value)) return value.map((item) => rewrite(item, file));
    if (!isObject(value)) return value;
    const out: JsonObject = {};
    for (const [key, member] of Object.entries(value)) {
      if (file !== undefined && (OPENAPI_ONLY.has(key) || key.startsWith('x-'))) continue;
      if (key === '$ref' && typeof member === 'string') {
        // A schema of the spec, or a place inside one (`.../Conversion/properties/deviceType`).
        const match = /^([^#]*)#\/components\/schemas\/([^/]+)(\/.*)?$/.exec(member);
        const target = match?.[1] || file;
        if (!match || target === undefined || !specs[target])
          throw new Error(`cannot make a standalone schema: a reference to ${member}`);
        const name = match[2] as string;
        if (!(defName(target, name) in defs) && !pending.some(([f, n]) => f === target && n === name))
          pending.push([target, name]);
        out.$ref = `#/$defs/${defName(target, name)}${match[3] ?? ''}`;
        continue;
      }
      out[key] = rewrite(member as Json, file);
    }
    return out;
  };
  const root = rewrite(schema as Json, undefined) as JsonObject;
  for (let next = pending.shift(); next; next = pending.shift()) {
    const [file, name] = next;
    const components = (specs[file] as JsonObject).components;
    const found = isObject(components) && isObject(components.schemas) ? components.schemas[name] : undefined;
    if (found === undefined)
      throw new Error(`cannot make a standalone schema: ${file} has no schema ${name}`);
    defs[defName(file, name)] = null; // taken, before its own references are followed
    defs[defName(file, name)] = rewrite(found, file);
  }
  return Object.keys(defs).length > 0 ? { ...root, $defs: defs } : root;
}

/**
 * The published schema of a file for the APIs of `modules`, given the documents of their
 * specs by API name; the checkers register each as `<name>.json`, which is how their schemas
 * refer to it.
 */
export function configSchema(
  file: ConfigFile,
  modules: readonly AnyApiModule[],
  specs: Readonly<Record<ApiName, JsonObject>>,
): JsonObject {
  const { title, description } = CONFIG_FILES[file];
  const schema = CONFIG_FILES[file].schema(modules);
  // A seed's events, rules and conversions take the fields of the spec's schemas (seed-fields.ts).
  const byFile = Object.fromEntries(
    Object.entries(specs).flatMap(([name, document]) => [
      [`${name}.json`, document],
      [fieldsFileId(name), fieldsDocument(document)],
    ]),
  );
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title,
    description,
    ...standalone(schema, byFile),
  };
}
