/**
 * Loading a state (PUT /__emulator/state, --state): the document is checked against the
 * state's shape (the core's fields and every API's parts, `ApiModule.state`) with each stored
 * resource against its spec's own schema, then each API checks what a schema cannot say, so a
 * hand-edited file is refused with the place at fault instead of breaking later answers.
 */
import type { ErrorObject } from 'ajv';
import type { AnyApiModule, Fail } from './api-module.js';
import { createAjv } from './schemas.js';
import type { ApiName, ApiSpec } from './spec.js';
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
 * the core's fields, the users with what each API keeps in them, and each API's keys.
 */
export function stateSchema(modules: readonly AnyApiModule[]): object {
  const userParts = modules.flatMap((m) => (m.state.user ? [m.state.user] : []));
  return {
    type: 'object',
    required: [
      'version',
      'epoch',
      'revision',
      'lastTime',
      'nextSeq',
      'users',
      ...modules.flatMap((m) => m.state.required),
    ],
    additionalProperties: false,
    properties: {
      $schema: { type: 'string', description: 'Where an editor finds this schema; ignored by the emulator.' },
      version: { const: 1 },
      epoch: { type: 'string', pattern: '^[0-9a-f]{1,12}$' },
      revision: count,
      lastTime: count,
      nextSeq: count,
      users: {
        type: 'object',
        additionalProperties: {
          type: 'object',
          required: ['email', ...userParts.flatMap((part) => part.required)],
          properties: {
            email: { type: 'string' },
            ...Object.assign({}, ...userParts.map((part) => part.properties)),
          },
        },
      },
      ...Object.assign({}, ...modules.map((m) => m.state.properties)),
    },
  };
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
  const fail: Fail = (message) => {
    throw new StateFileError(`invalid state: ${message}`, [message]);
  };
  return (value) => {
    if (!validate(value)) {
      const problems = (validate.errors ?? []).slice(0, 5).map(where);
      throw new StateFileError(`invalid state: ${problems.join('; ')}`, problems);
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
