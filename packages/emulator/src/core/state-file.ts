/**
 * Loading a state (PUT /__emulator/state, --state): the document is checked against the
 * state's shape (the core's fields and every API's part under its name, `ApiModule.state`)
 * with each stored resource against its spec's own schema, then each API checks what a schema
 * cannot say, so a hand-edited file is refused with the place at fault instead of breaking
 * later answers. A version-1 document, dumped before each API's part had a key of its own, is
 * read as version 2 first (`readVersion1`).
 */
import type { ErrorObject } from 'ajv';
import type { AnyApiModule, Fail } from './api-module.js';
import { createAjv } from './schemas.js';
import { type ApiName, type ApiSpec, isObject } from './spec.js';
import type { State } from './state.js';

export class StateFileError extends Error {
  override name = 'StateFileError';
  /**
   * What the checks found, each `pointer: what is wrong` (`(the document): ...` for the whole),
   * so that a caller can say where in its own terms (core/storage.ts names the stored rows).
   */
  readonly problems: readonly string[];
  constructor(message: string, problems: readonly string[] = []) {
    super(message);
    this.problems = problems;
  }
}

const count = { type: 'integer', minimum: 0 };

/** The id under which the state and seed checkers register an API's spec: `calendar.json`. */
export const specFileId = (api: ApiName): string => `${api}.json`;

/** A schema of an API's spec, as the state and seed schemas refer to it. */
export const specSchema = (api: ApiName, name: string) => ({
  $ref: `${specFileId(api)}#/components/schemas/${name}`,
});

/**
 * A dumped state's shape (published as dist/schemas/state.schema.json, see config-schemas.ts):
 * the core's fields, the users, and each API's part under its name.
 */
export function stateSchema(modules: readonly AnyApiModule[]): object {
  return {
    type: 'object',
    required: [
      'version',
      'epoch',
      'revision',
      'lastTime',
      'nextSeq',
      'users',
      ...modules.filter((m) => m.state.empty() !== undefined).map((m) => m.name),
    ],
    additionalProperties: false,
    properties: {
      $schema: { type: 'string', description: 'Where an editor finds this schema; ignored by the emulator.' },
      version: { const: 2 },
      epoch: { type: 'string', pattern: '^[0-9a-f]{1,12}$' },
      revision: count,
      lastTime: count,
      nextSeq: count,
      users: {
        type: 'object',
        additionalProperties: {
          type: 'object',
          required: ['email'],
          additionalProperties: false,
          properties: { email: { type: 'string' } },
        },
      },
      ...Object.fromEntries(modules.map((m) => [m.name, m.state.schema])),
    },
  };
}

/**
 * A version-1 document as version 2, the document itself left as it is: each API takes its
 * part out of a copy (`ApiStateShape.fromVersion1`: its top-level keys and its fields of the
 * user records; by default its key, as Search Ads 360's already was) and the part goes under
 * the API's name. What no API took stays where it was, for the schema to refuse by name.
 */
export function readVersion1(document: Record<string, unknown>, modules: readonly AnyApiModule[]) {
  const old = structuredClone(document);
  const upgraded: Record<string, unknown> = {};
  for (const module of modules) {
    let part: unknown;
    if (module.state.fromVersion1) part = module.state.fromVersion1(old);
    else {
      part = old[module.name];
      delete old[module.name];
    }
    if (part !== undefined) upgraded[module.name] = part;
  }
  return { ...old, ...upgraded, version: 2 };
}

/** Each user record of a version-1 document, for an API to take its fields from. */
export function version1Users(document: Record<string, unknown>): [string, Record<string, unknown>][] {
  return isObject(document.users)
    ? Object.entries(document.users).flatMap(([email, user]) => (isObject(user) ? [[email, user]] : []))
    : [];
}

const where = (error: ErrorObject) =>
  `${error.instancePath || '(the document)'}: ${error.message ?? 'invalid'}${
    error.keyword === 'additionalProperties'
      ? ` (${(error.params as { additionalProperty: string }).additionalProperty})`
      : ''
  }`;

/** The checker of dumped states for the APIs of `modules`, with their specs. */
export function createStateChecker(
  modules: readonly AnyApiModule[],
  specs: Readonly<Record<ApiName, ApiSpec>>,
): (value: unknown) => State {
  const ajv = createAjv();
  for (const module of modules) {
    const spec = specs[module.name];
    if (spec) ajv.addSchema(spec.document, specFileId(module.name));
  }
  const validate = ajv.compile<State & { $schema?: string }>(stateSchema(modules));
  return (given) => {
    const upgraded = isObject(given) && given.version === 1;
    const value = upgraded ? readVersion1(given, modules) : given;
    // A version-1 document's places are named as version 2 has them: the message says so.
    const what = upgraded ? 'invalid state (version 1, read as version 2)' : 'invalid state';
    const fail: Fail = (message) => {
      throw new StateFileError(`${what}: ${message}`, [message]);
    };
    if (!validate(value)) {
      const problems = (validate.errors ?? []).slice(0, 5).map(where);
      throw new StateFileError(`${what}: ${problems.join('; ')}`, problems);
    }
    const state: State = value;
    delete value.$schema;
    for (const [email, user] of Object.entries(state.users)) {
      if (user.email !== email) fail(`/users/${email}/email: must be the key, ${email}`);
    }
    for (const module of modules) module.state.check?.(state, fail);
    return state;
  };
}
