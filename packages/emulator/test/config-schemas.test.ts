/**
 * The published JSON Schemas of the emulator's files (dist/schemas/, core/config-schemas.ts):
 * each stands alone (a plain JSON Schema validator with no other file, as an editor has, checks
 * with it), it is the schema the emulator checks the file with, it takes what the emulator takes
 * and refuses what it refuses, and a file that names it with `$schema` is taken as it is.
 */
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { API_MODULES } from '../src/apis/index.ts';
import { CONFIG_FILES, type ConfigFile, configSchema } from '../src/core/config-schemas.ts';
import { SeedError, seedOAuth } from '../src/core/seed.ts';
import { loadApiSpec } from '../src/core/spec.ts';
import { parseUsersFile } from '../src/core/users.ts';
import { parseSeed } from '../src/emulator.ts';
import { timedEvent, useEmulator } from './support/harness.ts';
import { example } from './support/searchads360.ts';

const dist = path.resolve(import.meta.dirname, '../dist/schemas');
const published = (file: ConfigFile) =>
  JSON.parse(readFileSync(path.join(dist, `${file}.schema.json`), 'utf8'));
const specs = {
  calendar: loadApiSpec('calendar').document,
  searchads360: loadApiSpec('searchads360').document,
};

/** A validator that knows nothing but the published file, as an editor; formats are the spec's own business. */
function editorCheck(file: ConfigFile) {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  const validate = ajv.compile(published(file));
  return (value: unknown) => validate(value);
}

const emu = useEmulator();

describe('the published schemas', () => {
  it.each(Object.keys(CONFIG_FILES) as ConfigFile[])(
    '%s: the built file is the schema the emulator checks with, standing alone',
    (file) => {
      const schema = published(file);
      expect(schema).toEqual(configSchema(file, API_MODULES, specs));
      expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
      // No reference leads out of the file.
      const refs = JSON.stringify(schema).match(/"\$ref":"[^"]*"/g) ?? [];
      expect(refs.filter((ref) => !ref.startsWith('"$ref":"#/'))).toEqual([]);
    },
  );

  it('the package exports them', () => {
    const manifest = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../package.json'), 'utf8'));
    expect(manifest.exports['./schemas/*.json']).toBe('./dist/schemas/*.json');
  });
});

describe('users.schema.json and the users file reader give the same verdicts', () => {
  const check = editorCheck('users');
  const reads = (value: unknown) => {
    try {
      parseUsersFile(value);
      return true;
    } catch {
      return false;
    }
  };
  it.each<[string, unknown]>([
    ['a token to an email', { 'token-a': 'ana@example.com' }],
    ['a token to an email and scopes', { t: { email: 'ana@example.com', scopes: ['calendar.readonly'] } }],
    [
      'with $schema',
      { $schema: './node_modules/@gspec/emulator/dist/schemas/users.schema.json', t: 'a@b.co' },
    ],
    ['not an email', { t: 'ana' }],
    ['an unknown field', { t: { email: 'ana@example.com', role: 'admin' } }],
    ['no email', { t: { scopes: [] } }],
    ['a scope with a space', { t: { email: 'ana@example.com', scopes: ['calendar readonly'] } }],
    ['scopes not a list', { t: { email: 'ana@example.com', scopes: 'calendar' } }],
    ['a token with a space', { 'token a': 'ana@example.com' }],
    ['an array', ['ana@example.com']],
    ['$schema not a string', { $schema: 1 }],
  ])('%s', (_name, value) => {
    expect(check(value)).toBe(reads(value));
  });
});

describe('seed.schema.json', () => {
  const check = editorCheck('seed');
  const seed = {
    $schema: './node_modules/@gspec/emulator/dist/schemas/seed.schema.json',
    users: [{ email: 'ana@example.com', tokens: ['token-ana'], settings: { timezone: 'Europe/Zurich' } }],
    calendars: [{ id: 'primary', owner: 'ana@example.com', events: [timedEvent('Standup')] }],
  };

  it('leaves open the maps the spec leaves open (extended properties)', () => {
    const open = {
      calendars: [{ owner: 'a@b.co', events: [{ extendedProperties: { private: { anyName: '1' } } }] }],
    };
    expect(check(open)).toBe(true);
    expect(() => parseSeed(open)).not.toThrow();
  });

  it('takes a seed the emulator takes, $schema included, and the emulator takes it with $schema', () => {
    expect(check(seed)).toBe(true);
    expect(parseSeed(seed).users?.[0]?.email).toBe('ana@example.com');
  });

  it.each<[string, Record<string, unknown>]>([
    ['an unknown field', { calendar: [] }],
    [
      "a misspelt field of an event's start",
      { calendars: [{ owner: 'a@b.co', events: [{ start: { datetime: '2026-03-02T09:00:00Z' } }] }] },
    ],
    ['a misspelt field of a conversion', { searchads360: { conversions: [{ conversionID: '1' }] } }],
    ['an owner that is not an email', { calendars: [{ owner: 'ana' }] }],
    [
      'a Search Ads 360 advertiser without its currency',
      { searchads360: { agencies: [{ id: '1', advertisers: [{ id: '2' }] }] } },
    ],
  ])('refuses %s, as the emulator does', (_name, value) => {
    expect(check(value)).toBe(false);
    expect(() => parseSeed(value)).toThrow();
  });
});

describe("seed.schema.json: the token endpoint's keys (serviceAccounts, oauthClients, users' refreshTokens)", () => {
  const check = editorCheck('seed');
  const SA = 'robot@demo-project.iam.gserviceaccount.com';
  const PUBLIC_KEY = generateKeyPairSync('rsa', { modulusLength: 2048 })
    .publicKey.export({ type: 'spki', format: 'pem' })
    .toString();
  const account = { email: SA, keys: { k1: PUBLIC_KEY } };
  const client = { clientId: 'app.apps.googleusercontent.com', clientSecret: 'GOCSPX-secret' };
  const grant = { token: '1//ana-refresh', clientId: client.clientId, scopes: ['calendar'] };
  /** A seed with all three, each entry changed by `change`. */
  const seed = (change: { account?: object; client?: object; grant?: object } = {}) => ({
    users: [
      { email: 'ana@example.com', tokens: ['token-ana'], refreshTokens: [{ ...grant, ...change.grant }] },
    ],
    serviceAccounts: [{ ...account, ...change.account }],
    oauthClients: [{ ...client, ...change.client }],
  });
  const emulatorTakes = (value: unknown) => {
    try {
      parseSeed(value);
      return true;
    } catch {
      return false;
    }
  };

  it('are in the published schema', () => {
    const schema = published('seed');
    expect(Object.keys(schema.properties)).toEqual(
      expect.arrayContaining(['serviceAccounts', 'oauthClients']),
    );
    expect(Object.keys(schema.properties.users.items.properties)).toContain('refreshTokens');
  });

  it.each<[string, 'take' | 'refuse', unknown]>([
    ['all three', 'take', seed()],
    [
      'a service account with its numeric id, two keys and delegation',
      'take',
      seed({
        account: {
          clientId: '112233445566778899',
          keys: { k1: PUBLIC_KEY, k2: PUBLIC_KEY },
          delegation: { scopes: ['calendar'] },
        },
      }),
    ],
    [
      'a refresh token of several scopes',
      'take',
      seed({ grant: { scopes: ['calendar.readonly', 'doubleclicksearch'] } }),
    ],
    ['service accounts alone', 'take', { serviceAccounts: [account] }],
    ['with $schema', 'take', { $schema: './seed.schema.json', ...seed() }],
    ['serviceAccounts not a list', 'refuse', { serviceAccounts: account }],
    ['a service account without keys', 'refuse', { serviceAccounts: [{ email: SA }] }],
    ['a service account with no key', 'refuse', seed({ account: { keys: {} } })],
    ['a service account key that is empty', 'refuse', seed({ account: { keys: { k1: '' } } })],
    ['a service account email that is not one', 'refuse', seed({ account: { email: 'robot' } })],
    ['a service account id that is not a number', 'refuse', seed({ account: { clientId: 'robot' } })],
    ['an unknown field of a service account', 'refuse', seed({ account: { privateKey: 'x' } })],
    ['delegation without scopes', 'refuse', seed({ account: { delegation: {} } })],
    [
      'a delegated scope with a space',
      'refuse',
      seed({ account: { delegation: { scopes: ['calendar events'] } } }),
    ],
    ['an OAuth client without its secret', 'refuse', { oauthClients: [{ clientId: client.clientId }] }],
    ['an OAuth client with an empty secret', 'refuse', seed({ client: { clientSecret: '' } })],
    ['an OAuth client id with a space', 'refuse', seed({ client: { clientId: 'my app' } })],
    [
      'a refresh token without scopes',
      'refuse',
      { users: [{ email: 'ana@example.com', refreshTokens: [{ token: 't', clientId: 'c' }] }] },
    ],
    ['a refresh token with a space', 'refuse', seed({ grant: { token: '1// ana' } })],
    ['an unknown field of a refresh token', 'refuse', seed({ grant: { email: 'ana@example.com' } })],
    ['refreshTokens not a list', 'refuse', { users: [{ email: 'ana@example.com', refreshTokens: grant }] }],
  ])('%s: the schema and the seed reader both %s it', (_name, verdict, value) => {
    expect(check(value)).toBe(verdict === 'take');
    expect(emulatorTakes(value)).toBe(verdict === 'take');
  });

  it('takes a seed that only the token endpoint refuses (it cannot say that a client is listed, or a key is one), as the emulator reads it; seedOAuth refuses it', () => {
    for (const value of [
      seed({ grant: { clientId: 'other.apps.googleusercontent.com' } }),
      seed({ account: { keys: { k1: 'not a key' } } }),
    ]) {
      expect(check(value)).toBe(true);
      expect(() => seedOAuth(parseSeed(value))).toThrow(SeedError);
    }
    expect(Object.keys(seedOAuth(parseSeed(seed())))).toEqual([
      'serviceAccounts',
      'clients',
      'refreshTokens',
    ]);
  });
});

describe('state.schema.json', () => {
  const check = editorCheck('state');

  it('takes what the emulator dumps (Calendar and Search Ads 360), and the emulator loads it back with $schema', async () => {
    await emu.reset();
    await emu.call('POST', '/calendars/primary/events', { body: timedEvent('dumped') });
    await emu.call('POST', '/conversion', { api: 'searchads360', body: example('ConversionBatchInsert') });
    const dump = (await emu.call('GET', '/__emulator/state')).body;
    expect(dump.searchads360).toBeDefined();
    expect(check(dump)).toBe(true);
    const named = { $schema: './node_modules/@gspec/emulator/dist/schemas/state.schema.json', ...dump };
    expect(check(named)).toBe(true);
    expect((await emu.call('PUT', '/__emulator/state', { body: named })).status).toBe(204);
    // `$schema` names the file's schema; it is no part of the state.
    expect((await emu.call('GET', '/__emulator/state')).body).toEqual(dump);
  });

  it('refuses a stored event that breaks the spec, as the emulator does', async () => {
    await emu.reset();
    await emu.call('POST', '/calendars/primary/events', { body: timedEvent('x') });
    const dump = (await emu.call('GET', '/__emulator/state')).body;
    const [event] = Object.values(
      dump.calendar.events['ana@example.com'] ??
        dump.calendar.events[Object.keys(dump.calendar.events)[0] as string],
    ) as {
      resource: Record<string, unknown>;
    }[];
    if (!event) throw new Error('no event dumped');
    event.resource.start = 'tomorrow';
    expect(check(dump)).toBe(false);
    expect((await emu.call('PUT', '/__emulator/state', { body: dump })).status).toBe(400);
  });
});
