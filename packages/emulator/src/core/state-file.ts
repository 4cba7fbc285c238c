/**
 * Loading a state (PUT /__emulator/state): the document is checked against the shape of
 * `State` and every stored resource against the spec's own schema, so a hand-edited file is
 * refused with the place at fault instead of breaking later answers.
 */
import type { ErrorObject } from 'ajv';
import {
  checkSearchAds360Links,
  SEARCHADS360_SPEC_ID,
  searchAds360StateSchema,
} from '../apis/searchads360/state-schema.js';
import { createAjv, SPEC_ID } from './schemas.js';
import { type ApiSpec, type CalendarSpec, loadApiSpec } from './spec.js';
import type { State } from './state.js';

export class StateFileError extends Error {
  override name = 'StateFileError';
}

const resource = (name: string) => ({ $ref: `${SPEC_ID}#/components/schemas/${name}` });
const record = (value: object) => ({ type: 'object', additionalProperties: value });
const count = { type: 'integer', minimum: 0 };

/** A dumped state's shape (published as dist/schemas/state.schema.json, see config-schemas.ts). */
export const STATE_SCHEMA = {
  type: 'object',
  required: [
    'version',
    'epoch',
    'revision',
    'lastTime',
    'nextSeq',
    'users',
    'calendars',
    'events',
    'calendarList',
  ],
  additionalProperties: false,
  properties: {
    $schema: { type: 'string', description: 'Where an editor finds this schema; ignored by the emulator.' },
    version: { const: 1 },
    epoch: { type: 'string', pattern: '^[0-9a-f]{1,12}$' },
    revision: count,
    lastTime: count,
    nextSeq: count,
    users: record({
      type: 'object',
      required: ['email', 'settings', 'settingsRevision'],
      properties: {
        email: { type: 'string' },
        settings: record({ type: 'string' }),
        settingsRevision: count,
      },
    }),
    calendars: record({
      type: 'object',
      required: ['id', 'owner', 'primary', 'revision', 'resource'],
      properties: {
        id: { type: 'string' },
        owner: { type: 'string' },
        primary: { type: 'boolean' },
        revision: count,
        resource: resource('Calendar'),
      },
    }),
    events: record(
      record({
        type: 'object',
        required: ['id', 'seq', 'revision', 'resource'],
        properties: { id: { type: 'string' }, seq: count, revision: count, resource: resource('Event') },
      }),
    ),
    calendarList: record(
      record({
        type: 'object',
        required: ['calendarId', 'revision', 'deleted', 'resource'],
        properties: {
          calendarId: { type: 'string' },
          revision: count,
          deleted: { type: 'boolean' },
          resource: resource('CalendarListEntry'),
        },
      }),
    ),
    // Optional: states dumped before sharing rules existed load with the owners' rules added.
    acl: record(
      record({
        type: 'object',
        required: ['id', 'revision', 'deleted', 'resource'],
        properties: {
          id: { type: 'string' },
          revision: count,
          deleted: { type: 'boolean' },
          resource: resource('AclRule'),
        },
      }),
    ),
    // Optional: absent until Search Ads 360 is first written (and in states dumped before it).
    searchads360: searchAds360StateSchema(SEARCHADS360_SPEC_ID),
  },
};

const where = (error: ErrorObject) =>
  `${error.instancePath || '(the document)'}: ${error.message ?? 'invalid'}${
    error.keyword === 'additionalProperties'
      ? ` (${(error.params as { additionalProperty: string }).additionalProperty})`
      : ''
  }`;

export function createStateChecker(
  spec: CalendarSpec,
  searchAdsSpec: ApiSpec = loadApiSpec('searchads360'),
): (value: unknown) => State {
  const ajv = createAjv();
  ajv.addSchema(spec.document, SPEC_ID);
  ajv.addSchema(searchAdsSpec.document, SEARCHADS360_SPEC_ID);
  const validate = ajv.compile(STATE_SCHEMA);
  return (value) => {
    if (!validate(value))
      throw new StateFileError(`invalid state: ${(validate.errors ?? []).slice(0, 5).map(where).join('; ')}`);
    const state = value as unknown as State & { $schema?: string };
    delete state.$schema;
    state.acl ??= {};
    for (const [id, calendar] of Object.entries(state.calendars)) {
      if (calendar.id !== id)
        throw new StateFileError(`invalid state: /calendars/${id}/id: must be the key, ${id}`);
      if (!state.users[calendar.owner])
        throw new StateFileError(`invalid state: /calendars/${id}/owner: no user ${calendar.owner}`);
      const rules = state.acl[id] ?? {};
      state.acl[id] = rules;
      rules[`user:${calendar.owner}`] ??= {
        id: `user:${calendar.owner}`,
        revision: 0,
        deleted: false,
        resource: { role: 'owner', scope: { type: 'user', value: calendar.owner } },
      };
    }
    for (const calendarId of Object.keys(state.acl)) {
      if (!state.calendars[calendarId])
        throw new StateFileError(`invalid state: /acl/${calendarId}: no such calendar`);
    }
    for (const calendarId of Object.keys(state.events)) {
      if (!state.calendars[calendarId])
        throw new StateFileError(`invalid state: /events/${calendarId}: no such calendar`);
    }
    for (const [email, user] of Object.entries(state.users)) {
      if (user.email !== email)
        throw new StateFileError(`invalid state: /users/${email}/email: must be the key, ${email}`);
      if (!state.calendars[email]?.primary)
        throw new StateFileError(`invalid state: /users/${email}: no primary calendar ${email}`);
    }
    if (state.searchads360)
      checkSearchAds360Links(state.searchads360, (message) => {
        throw new StateFileError(`invalid state: ${message}`);
      });
    return state;
  };
}
