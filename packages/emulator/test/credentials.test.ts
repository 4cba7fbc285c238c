/**
 * Credentials for the token endpoint: writeServiceAccount and writeUserCredentials
 * (src/credentials.ts), and the built `gspec-emulator credentials` (dist/credentials-cli.js,
 * which the test task builds first). What they add to a seed and what they keep of it, the key
 * file's private key against the public key the seed registers, the files they refuse to touch
 * (an existing credentials file without --force; a seed that is no JSON object or that the
 * emulator would refuse), the command's one-line refusals and its help, and a seed it wrote
 * that `gspec-emulator --seed --strict` starts on and counts.
 */
import { spawnSync } from 'node:child_process';
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stopAll } from '@gspec/scripts/child-process';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { numericId } from '../src/core/oauth.ts';
import {
  CredentialsError,
  DEFAULT_CLIENT_ID,
  writeServiceAccount,
  writeUserCredentials,
} from '../src/credentials.ts';
import { parseSeed } from '../src/emulator.ts';
import { startCli } from './support/cli-process.ts';
import { timedEvent } from './support/harness.ts';

const CREDENTIALS_CLI = path.resolve(import.meta.dirname, '..', 'dist', 'cli.js');
const SA = 'robot@demo-project.iam.gserviceaccount.com';
const OTHER_SA = 'plain@demo-project.iam.gserviceaccount.com';
const scope = (name: string) => `https://www.googleapis.com/auth/${name}`;

/** A seed with some of everything: $schema, users with tokens, scopes and settings, a calendar, Search Ads 360. */
const SEED = {
  $schema: './node_modules/@gspec/emulator/dist/schemas/seed.schema.json',
  users: [
    {
      email: 'ana@example.com',
      tokens: ['token-ana'],
      scopes: ['calendar'],
      settings: { timezone: 'Europe/Zurich' },
    },
    { email: 'bo@example.com', tokens: ['token-bo'] },
  ],
  calendars: [
    {
      id: 'team',
      owner: 'ana@example.com',
      summary: 'Team',
      acl: [{ role: 'reader', scope: { type: 'user', value: 'bo@example.com' } }],
      listedBy: ['bo@example.com'],
      events: [timedEvent('Standup')],
    },
  ],
  searchads360: {
    agencies: [
      {
        id: '100',
        name: 'Agency, Inc.',
        advertisers: [{ id: '200', name: 'Shop', currencyCode: 'CHF' }],
      },
    ],
  },
};

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'gspec-credentials-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});
afterAll(() => stopAll('SIGKILL'));

const file = (name: string) => path.join(dir, name);
const readJson = (name: string) => JSON.parse(readFileSync(file(name), 'utf8'));
/** Written as the command writes a seed (two spaces, a closing newline), so that the text can be compared too. */
const writeJson = (name: string, value: unknown) =>
  writeFileSync(file(name), `${JSON.stringify(value, null, 2)}\n`);

type Kind = 'service-account' | 'user';
const KINDS: Kind[] = ['service-account', 'user'];

/** Each kind with the options of a plain run, writing `out` into `seed.json`. */
function write(kind: Kind, out: string, options: { force?: boolean } = {}) {
  return kind === 'service-account'
    ? writeServiceAccount({ email: SA, keyFile: file(out), seedFile: file('seed.json'), ...options })
    : writeUserCredentials({
        email: 'ana@example.com',
        file: file(out),
        seedFile: file('seed.json'),
        scopes: ['calendar.readonly'],
        ...options,
      });
}

/** A copy of a seed without what `kind` adds to it. */
function withoutAdded(kind: Kind, seed: Record<string, unknown>): Record<string, unknown> {
  const copy = structuredClone(seed);
  if (kind === 'service-account') delete copy.serviceAccounts;
  else {
    delete copy.oauthClients;
    for (const user of copy.users as Record<string, unknown>[]) delete user.refreshTokens;
  }
  return copy;
}

describe('writeServiceAccount and writeUserCredentials', () => {
  it('the seed of these tests is one the emulator takes', () => {
    expect(parseSeed(structuredClone(SEED)).users).toHaveLength(2);
  });

  it.each(KINDS)(
    '%s: keeps the rest of the seed ($schema, users, calendars, searchads360) as it was, in order',
    (kind) => {
      writeJson('seed.json', SEED);
      write(kind, 'out.json');
      const after = readJson('seed.json');
      expect(withoutAdded(kind, after)).toEqual(SEED);
      // Nothing reordered either: the text without the additions is the text before.
      expect(`${JSON.stringify(withoutAdded(kind, after), null, 2)}\n`).toBe(
        `${JSON.stringify(SEED, null, 2)}\n`,
      );
      // And something was added (so the comparison above is not of a seed left alone).
      expect(after).not.toEqual(SEED);
      expect(parseSeed(after).users).toHaveLength(2);
    },
  );

  it.each(KINDS)('%s: makes the seed when there is none', (kind) => {
    write(kind, 'out.json');
    const seed = parseSeed(readJson('seed.json'));
    if (kind === 'service-account') expect(seed.serviceAccounts?.map((a) => a.email)).toEqual([SA]);
    else expect(seed.users?.map((u) => u.email)).toEqual(['ana@example.com']);
  });

  it.each(KINDS)(
    '%s: refuses a credentials file that exists, leaving it and the seed alone; replaces it with force',
    (kind) => {
      writeJson('seed.json', SEED);
      writeFileSync(file('out.json'), 'precious');
      const seedBefore = readFileSync(file('seed.json'));
      expect(() => write(kind, 'out.json')).toThrow(
        new CredentialsError(
          `${file('out.json')} exists already; choose another file, or pass --force to replace it`,
        ),
      );
      expect(readFileSync(file('out.json'), 'utf8')).toBe('precious');
      expect(readFileSync(file('seed.json'))).toEqual(seedBefore);
      const written = write(kind, 'out.json', { force: true });
      expect(readJson('out.json')).toEqual(written);
      expect(readFileSync(file('seed.json'))).not.toEqual(seedBefore);
      expect(readdirSync(dir).sort()).toEqual(['out.json', 'seed.json']);
    },
  );

  it.each(KINDS)(
    '%s: the credentials file is readable by its owner only; the seed keeps its own mode',
    (kind) => {
      writeJson('seed.json', SEED);
      chmodSync(file('seed.json'), 0o600);
      write(kind, 'out.json');
      expect(statSync(file('out.json')).mode & 0o777).toBe(0o600);
      expect(statSync(file('seed.json')).mode & 0o777).toBe(0o600);
      chmodSync(file('seed.json'), 0o640);
      write(kind, 'out.json', { force: true });
      expect(statSync(file('seed.json')).mode & 0o777).toBe(0o640);
    },
  );

  it.each(KINDS)(
    '%s: a credentials file that cannot be written changes neither file and leaves no temporary file',
    (kind) => {
      writeJson('seed.json', SEED);
      const before = readFileSync(file('seed.json'));
      const out = file(path.join('missing-folder', 'out.json'));
      expect(() => write(kind, path.join('missing-folder', 'out.json'))).toThrow(
        `could not write ${file('seed.json')} and ${out}: ENOENT`,
      );
      expect(() => write(kind, path.join('missing-folder', 'out.json'))).toThrow(/; neither was changed$/);
      expect(readFileSync(file('seed.json'))).toEqual(before);
      expect(readdirSync(dir)).toEqual(['seed.json']);
    },
  );

  const BAD_SEEDS: [what: string, text: string, says: RegExp][] = [
    ['is not JSON', '{ "users": [', /seed\.json:1:13: .*; not a JSON seed file, left as it is$/],
    ['is empty', '', /seed\.json: the file is empty.*; not a JSON seed file, left as it is$/],
    ['is a list', '[]', /: a seed file is a JSON object; left as it is$/],
    ['is null', 'null', /: a seed file is a JSON object/],
    ['is a string', '"ana@example.com"', /: a seed file is a JSON object/],
    [
      'has a user who is no email',
      JSON.stringify({ users: [{ email: 'ana' }] }),
      /users\[0\]\.email: expected an email address/,
    ],
    ['has users that are no list', JSON.stringify({ users: 'ana@example.com' }), /users: must be array/],
    [
      'gives a user twice',
      JSON.stringify({ users: [{ email: 'ana@example.com' }, { email: 'Ana@example.com' }] }),
      /users\[1\]\.email: ana@example\.com is already users\[0\]/,
    ],
    ['has a key the emulator does not know', JSON.stringify({ calendar: [] }), /unknown field "calendar"/],
    [
      'has a calendar owned by no email',
      JSON.stringify({ calendars: [{ owner: 'ana' }] }),
      /calendars\[0\]\.owner: expected an email address/,
    ],
    [
      'has an advertiser without its currency',
      JSON.stringify({ searchads360: { agencies: [{ id: '1', advertisers: [{ id: '2' }] }] } }),
      /searchads360/,
    ],
    [
      'has service accounts that are no list',
      JSON.stringify({ serviceAccounts: {} }),
      /serviceAccounts: must be array/,
    ],
    [
      'has a service account key that is no public key',
      JSON.stringify({ serviceAccounts: [{ email: OTHER_SA, keys: { k: 'not a key' } }] }),
      /serviceAccounts\[0\]\.keys\["k"\]: expected a PEM public key/,
    ],
    [
      'has a refresh token for a client it does not list',
      JSON.stringify({
        users: [
          {
            email: 'bo@example.com',
            refreshTokens: [{ token: '1//t', clientId: 'nobody', scopes: ['calendar'] }],
          },
        ],
      }),
      /users\[0\]\.refreshTokens\[0\]\.clientId: "nobody" is not one of oauthClients/,
    ],
    [
      'gives an OAuth client twice',
      JSON.stringify({
        oauthClients: [
          { clientId: 'a', clientSecret: 's' },
          { clientId: 'a', clientSecret: 't' },
        ],
      }),
      /oauthClients\[1\]\.clientId: a is registered twice/,
    ],
  ];

  it.each(KINDS.flatMap((kind) => BAD_SEEDS.map(([what, text, says]) => [kind, what, text, says] as const)))(
    '%s: refuses a seed that %s, naming the file, and leaves it byte for byte',
    (kind, _what, text, says) => {
      writeFileSync(file('seed.json'), text);
      const before = readFileSync(file('seed.json'));
      let error: unknown;
      try {
        write(kind, 'out.json');
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(CredentialsError);
      const { message } = error as CredentialsError;
      // A syntax error is named FILE:LINE:COLUMN, as editors do.
      expect(
        message.startsWith(`${file('seed.json')}: `) || message.startsWith(`${file('seed.json')}:1:`),
      ).toBe(true);
      expect(message).toMatch(says);
      expect(readFileSync(file('seed.json'))).toEqual(before);
      // No credentials file, no temporary file left.
      expect(readdirSync(dir)).toEqual(['seed.json']);
    },
  );
});

describe('writeServiceAccount', () => {
  it('writes a key file as Google does, whose private key signs what the public key in the seed verifies', () => {
    writeJson('seed.json', SEED);
    const key = writeServiceAccount({
      email: 'Robot@Demo-Project.iam.gserviceaccount.com',
      keyFile: file('key.json'),
      seedFile: file('seed.json'),
      origin: 'http://localhost:9999',
    });
    expect(readJson('key.json')).toEqual(key);
    expect(key).toEqual({
      type: 'service_account',
      project_id: 'demo-project',
      private_key_id: expect.stringMatching(/^[0-9a-f]{40}$/),
      private_key: expect.stringMatching(/^-----BEGIN PRIVATE KEY-----\n/),
      client_email: SA,
      client_id: numericId(SA),
      auth_uri: 'https://accounts.google.com/o/oauth2/auth',
      token_uri: 'http://localhost:9999/token',
      auth_provider_x509_cert_url: 'https://www.googleapis.com/oauth2/v1/certs',
      client_x509_cert_url: `https://www.googleapis.com/robot/v1/metadata/x509/${encodeURIComponent(SA)}`,
      universe_domain: 'googleapis.com',
    });
    // Only its owner may read the private key.
    expect(statSync(file('key.json')).mode & 0o777).toBe(0o600);

    const [account] = readJson('seed.json').serviceAccounts;
    expect(account).toEqual({ email: SA, keys: { [key.private_key_id]: expect.any(String) } });
    const registered = createPublicKey(account.keys[key.private_key_id]);
    const data = Buffer.from('header.claims');
    const signature = sign('RSA-SHA256', data, createPrivateKey(key.private_key));
    expect(verify('RSA-SHA256', data, registered, signature)).toBe(true);
    // The check can fail: another key's signature, or other bytes, do not verify.
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    expect(verify('RSA-SHA256', data, registered, sign('RSA-SHA256', data, other))).toBe(false);
    expect(verify('RSA-SHA256', Buffer.from('header.other'), registered, signature)).toBe(false);
  });

  it('adds a second key of the same account beside the first (its email in any case), each verifying its own file', () => {
    const first = writeServiceAccount({ email: SA, keyFile: file('one.json'), seedFile: file('seed.json') });
    const second = writeServiceAccount({
      email: SA.toUpperCase(),
      keyFile: file('two.json'),
      seedFile: file('seed.json'),
    });
    expect(second.private_key_id).not.toBe(first.private_key_id);
    const accounts = readJson('seed.json').serviceAccounts;
    expect(accounts).toHaveLength(1);
    expect(Object.keys(accounts[0].keys)).toEqual([first.private_key_id, second.private_key_id]);
    const data = Buffer.from('payload');
    for (const key of [first, second]) {
      const signature = sign('RSA-SHA256', data, createPrivateKey(key.private_key));
      expect(
        verify('RSA-SHA256', data, createPublicKey(accounts[0].keys[key.private_key_id]), signature),
      ).toBe(true);
    }
    // Another account is another entry.
    writeServiceAccount({ email: OTHER_SA, keyFile: file('three.json'), seedFile: file('seed.json') });
    expect(readJson('seed.json').serviceAccounts.map((a: { email: string }) => a.email)).toEqual([
      SA,
      OTHER_SA,
    ]);
  });

  it.each<[string, (string[] | undefined)[], string[] | undefined]>([
    ['one grant', [['calendar']], [scope('calendar')]],
    [
      'a second grant merged with the first, each scope once and in full',
      [
        ['calendar', 'doubleclicksearch'],
        [scope('calendar'), 'calendar.readonly'],
      ],
      [scope('calendar'), scope('doubleclicksearch'), scope('calendar.readonly')],
    ],
    [
      'a key added without delegation keeps what was delegated',
      [['calendar'], undefined],
      [scope('calendar')],
    ],
    ['no delegation at all', [undefined, undefined], undefined],
  ])('delegates scopes: %s', (_name, grants, scopes) => {
    grants.forEach((delegate, i) => {
      writeServiceAccount({
        email: SA,
        keyFile: file(`key-${i}.json`),
        seedFile: file('seed.json'),
        ...(delegate ? { delegate } : {}),
      });
    });
    const [account] = readJson('seed.json').serviceAccounts;
    expect(account.delegation?.scopes).toEqual(scopes);
    expect(Object.keys(account.keys)).toHaveLength(grants.length);
  });

  it.each<[string, Partial<Parameters<typeof writeServiceAccount>[0]>, string]>([
    ['an email that is not one', { email: 'robot' }, 'email: expected an email address, found "robot"'],
    ['no scope to delegate', { delegate: [] }, 'delegate: give at least one scope, such as calendar'],
    ['a scope with a space', { delegate: ['calendar events'] }, 'delegate: "calendar events" is not a scope'],
    ['an origin with no scheme', { origin: '127.0.0.1:4011' }, "emulator: expected the emulator's origin"],
    [
      'an origin with a path',
      { origin: 'http://127.0.0.1:4011/token' },
      'emulator: expected a bare http(s) origin',
    ],
    [
      'an origin of another scheme',
      { origin: 'ftp://127.0.0.1:4011' },
      'emulator: expected a bare http(s) origin',
    ],
  ])('refuses %s and writes nothing', (_name, change, message) => {
    expect(() =>
      writeServiceAccount({ email: SA, keyFile: file('key.json'), seedFile: file('seed.json'), ...change }),
    ).toThrow(message);
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('writeUserCredentials', () => {
  it('makes the user and the OAuth client when missing, and writes an authorized_user file they agree with', () => {
    const written = writeUserCredentials({
      email: 'Cy@Example.com',
      file: file('cy.json'),
      seedFile: file('seed.json'),
      scopes: ['calendar.readonly', 'doubleclicksearch'],
    });
    expect(readJson('cy.json')).toEqual(written);
    expect(statSync(file('cy.json')).mode & 0o777).toBe(0o600);
    const seed = readJson('seed.json');
    expect(seed).toEqual({
      oauthClients: [{ clientId: DEFAULT_CLIENT_ID, clientSecret: expect.stringMatching(/^GOCSPX-\S+$/) }],
      users: [
        {
          email: 'cy@example.com',
          refreshTokens: [
            {
              token: expect.stringMatching(/^1\/\/\S+$/),
              clientId: DEFAULT_CLIENT_ID,
              scopes: [scope('calendar.readonly'), scope('doubleclicksearch')],
            },
          ],
        },
      ],
    });
    expect(written).toEqual({
      type: 'authorized_user',
      client_id: DEFAULT_CLIENT_ID,
      client_secret: seed.oauthClients[0].clientSecret,
      refresh_token: seed.users[0].refreshTokens[0].token,
      account: 'cy@example.com',
      universe_domain: 'googleapis.com',
    });
  });

  it("reuses an existing client's secret and an existing user (email in any case), a new refresh token beside the first", () => {
    const client = { clientId: 'app.apps.googleusercontent.com', clientSecret: 'GOCSPX-existing' };
    writeJson('seed.json', { ...SEED, oauthClients: [client] });
    const request = { seedFile: file('seed.json'), scopes: ['calendar'], clientId: client.clientId };
    const first = writeUserCredentials({ ...request, email: 'ANA@example.com', file: file('one.json') });
    const second = writeUserCredentials({ ...request, email: 'ana@example.com', file: file('two.json') });
    expect([first.client_secret, second.client_secret]).toEqual(['GOCSPX-existing', 'GOCSPX-existing']);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    const seed = readJson('seed.json');
    expect(seed.oauthClients).toEqual([client]);
    expect(seed.users.map((u: { email: string }) => u.email)).toEqual(['ana@example.com', 'bo@example.com']);
    expect(seed.users[0].refreshTokens).toEqual([
      { token: first.refresh_token, clientId: client.clientId, scopes: [scope('calendar')] },
      { token: second.refresh_token, clientId: client.clientId, scopes: [scope('calendar')] },
    ]);
    // The user's own tokens, scopes and settings are kept.
    expect(withoutAdded('user', seed)).toEqual({ ...SEED, oauthClients: undefined });
  });

  it.each<[string, Partial<Parameters<typeof writeUserCredentials>[0]>, string]>([
    ['an email that is not one', { email: 'ana@' }, 'email: expected an email address, found "ana@"'],
    ['no scopes', { scopes: [] }, 'scopes: give at least one scope, such as calendar'],
    ['a scope with a space', { scopes: ['calendar readonly'] }, 'scopes: "calendar readonly" is not a scope'],
    ['a client id with a space', { clientId: 'my app' }, 'client-id: "my app" is not a client id'],
  ])('refuses %s and writes nothing', (_name, change, message) => {
    expect(() =>
      writeUserCredentials({
        email: 'ana@example.com',
        file: file('ana.json'),
        seedFile: file('seed.json'),
        scopes: ['calendar'],
        ...change,
      }),
    ).toThrow(message);
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('gspec-emulator credentials (the built command)', () => {
  /** The command as a user runs it, in the test's folder. */
  function credentials(...args: string[]) {
    if (!existsSync(CREDENTIALS_CLI))
      throw new Error(
        `${CREDENTIALS_CLI} is missing: build it first with npx turbo run build --filter=@gspec/emulator...`,
      );
    const run = spawnSync(process.execPath, [CREDENTIALS_CLI, 'credentials', ...args], {
      cwd: dir,
      encoding: 'utf8',
    });
    return { status: run.status, out: run.stdout, err: run.stderr };
  }
  const serviceAccount = (email: string, keyFile: string, ...more: string[]) =>
    credentials('service-account', '--email', email, '--key-file', keyFile, '--seed', 'seed.json', ...more);
  const user = (email: string, out: string, scopes: string, ...more: string[]) =>
    credentials('user', '--email', email, '--file', out, '--seed', 'seed.json', '--scopes', scopes, ...more);

  it.each<[string, () => void, string]>([
    [
      'one of each',
      () => {
        serviceAccount(SA, 'key.json');
        user('ana@example.com', 'ana.json', 'calendar');
      },
      '1 service account, 1 OAuth client, 1 refresh token',
    ],
    [
      'two accounts (one with two keys), two clients, three refresh tokens',
      () => {
        serviceAccount(SA, 'key-1.json', '--delegate', 'calendar');
        serviceAccount(SA, 'key-2.json', '--delegate', 'calendar.readonly');
        serviceAccount(OTHER_SA, 'plain.json');
        user('ana@example.com', 'ana.json', 'calendar');
        user('bo@example.com', 'bo.json', 'calendar.readonly');
        user(
          'ana@example.com',
          'ana-app.json',
          'doubleclicksearch',
          '--client-id',
          'app.apps.googleusercontent.com',
        );
      },
      '2 service accounts, 2 OAuth clients, 3 refresh tokens',
    ],
  ])(
    'writes a seed (%s) that gspec-emulator --seed --strict starts on, with the seed it had, counting them on its "OAuth 2.0 tokens" line',
    async (_name, commands, counts) => {
      writeJson('seed.json', SEED);
      commands();
      const seed = readJson('seed.json');
      expect(withoutAdded('user', withoutAdded('service-account', seed))).toEqual(SEED);
      const run = startCli(['--seed', file('seed.json'), '--strict']);
      try {
        const origin = await run.ready;
        const line = run
          .output()
          .out.split('\n')
          .find((text) => text.includes('OAuth 2.0 tokens'));
        expect(line).toBe(`  OAuth 2.0 tokens      ${origin}/token (${counts})`);
        // The rest of the seed is there too: the calendar, to a token the seed gave.
        const team = await fetch(`${origin}/calendar/v3/calendars/team`, {
          headers: { authorization: 'Bearer token-bo' },
        });
        expect(team.status).toBe(200);
        expect(((await team.json()) as { summary: string }).summary).toBe('Team');
      } finally {
        await run.stop();
      }
    },
  );

  it('says what it wrote, on one line each', () => {
    const sa = serviceAccount(SA, 'key.json', '--emulator', 'http://127.0.0.1:4999');
    expect(sa).toEqual({
      status: 0,
      out: expect.stringMatching(
        /^Wrote key\.json \(key [0-9a-f]{40} of robot@demo-project\.iam\.gserviceaccount\.com, token_uri http:\/\/127\.0\.0\.1:4999\/token\) and registered it in seed\.json\n$/,
      ),
      err: '',
    });
    expect(readJson('key.json').token_uri).toBe('http://127.0.0.1:4999/token');
    const ana = user('ana@example.com', 'ana.json', 'calendar, calendar.readonly');
    expect(ana).toEqual({
      status: 0,
      out: `Wrote ana.json (a refresh token of ana@example.com for ${DEFAULT_CLIENT_ID}) and registered it in seed.json\n`,
      err: '',
    });
    expect(readJson('seed.json').users[0].refreshTokens[0].scopes).toEqual([
      scope('calendar'),
      scope('calendar.readonly'),
    ]);
  });

  it('merges --delegate scopes into what the account was delegated', () => {
    expect(serviceAccount(SA, 'one.json', '--delegate', 'calendar').status).toBe(0);
    expect(serviceAccount(SA, 'two.json', '--delegate', 'doubleclicksearch,calendar').status).toBe(0);
    const [account] = readJson('seed.json').serviceAccounts;
    expect(account.delegation.scopes).toEqual([scope('calendar'), scope('doubleclicksearch')]);
    expect(Object.keys(account.keys)).toHaveLength(2);
  });

  it.each<[Kind, (out: string, ...more: string[]) => ReturnType<typeof credentials>]>([
    ['service-account', (out, ...more) => serviceAccount(SA, out, ...more)],
    ['user', (out, ...more) => user('ana@example.com', out, 'calendar', ...more)],
  ])('%s: refuses a file that exists without --force, and replaces it with --force', (_kind, run) => {
    writeFileSync(file('out.json'), 'precious');
    const refused = run('out.json');
    expect(refused).toEqual({
      status: 1,
      out: '',
      err: 'gspec-emulator credentials: out.json exists already; choose another file, or pass --force to replace it\n',
    });
    expect(readFileSync(file('out.json'), 'utf8')).toBe('precious');
    expect(readdirSync(dir)).toEqual(['out.json']);
    expect(run('out.json', '--force').status).toBe(0);
    expect(readJson('out.json').type).toBe(_kind === 'user' ? 'authorized_user' : 'service_account');
  });

  it.each<[string, string]>([
    ['not JSON', '{"users": ['],
    ['not an object', '["ana@example.com"]'],
    [
      'refused by the emulator',
      JSON.stringify({ users: [{ email: 'ana@example.com', tokens: 'token-ana' }] }),
    ],
  ])('refuses a seed that is %s in one line naming it, and leaves it as it was', (_name, text) => {
    writeFileSync(file('seed.json'), text);
    for (const run of [serviceAccount(SA, 'key.json'), user('ana@example.com', 'ana.json', 'calendar')]) {
      expect(run.status).toBe(1);
      expect(run.out).toBe('');
      expect(run.err).toMatch(/^gspec-emulator credentials: seed\.json(:\d+:\d+)?: [^\n]+\n$/);
      expect(readFileSync(file('seed.json'), 'utf8')).toBe(text);
      expect(readdirSync(dir)).toEqual(['seed.json']);
    }
  });

  const SA_ARGS = ['--email', SA, '--key-file', 'key.json', '--seed', 'seed.json'];
  const USER_ARGS = [
    '--email',
    'ana@example.com',
    '--file',
    'ana.json',
    '--seed',
    'seed.json',
    '--scopes',
    'calendar',
  ];
  /** The arguments without `--name` and its value. */
  const without = (args: string[], name: string) =>
    args.filter((_, i) => args[i] !== name && args[i - 1] !== name);

  it.each<[string, string[], string]>([
    [
      'an unknown kind',
      ['robot', ...SA_ARGS],
      'unknown kind "robot": expected service-account or user (see gspec-emulator credentials --help)',
    ],
    [
      'a misspelt kind',
      ['service-acount', ...SA_ARGS],
      'unknown kind "service-acount": expected service-account or user; did you mean service-account? (see gspec-emulator credentials --help)',
    ],
    [
      'an email that is not one (service account)',
      ['service-account', ...SA_ARGS.slice(2), '--email', 'robot'],
      'email: expected an email address, found "robot"',
    ],
    [
      'an email that is not one (user)',
      ['user', ...USER_ARGS.slice(2), '--email', 'ana@'],
      'email: expected an email address, found "ana@"',
    ],
    [
      'no scopes',
      ['user', ...without(USER_ARGS, '--scopes'), '--scopes', ' , '],
      'scopes: give at least one scope, such as calendar',
    ],
    [
      'an empty --scopes',
      ['user', ...without(USER_ARGS, '--scopes'), '--scopes', ''],
      'user needs --scopes (see gspec-emulator credentials user --help)',
    ],
    [
      'no scope to delegate',
      ['service-account', ...SA_ARGS, '--delegate', ','],
      'delegate: give at least one scope, such as calendar',
    ],
    [
      'a bad --emulator',
      ['service-account', ...SA_ARGS, '--emulator', 'http://127.0.0.1:4011/x'],
      'emulator: expected a bare http(s) origin',
    ],
    [
      'no --email (service account)',
      ['service-account', ...without(SA_ARGS, '--email')],
      'service-account needs --email',
    ],
    [
      'no --key-file',
      ['service-account', ...without(SA_ARGS, '--key-file')],
      'service-account needs --key-file',
    ],
    [
      'no --seed (service account)',
      ['service-account', ...without(SA_ARGS, '--seed')],
      'service-account needs --seed',
    ],
    ['no --email (user)', ['user', ...without(USER_ARGS, '--email')], 'user needs --email'],
    ['no --file', ['user', ...without(USER_ARGS, '--file')], 'user needs --file'],
    ['no --seed (user)', ['user', ...without(USER_ARGS, '--seed')], 'user needs --seed'],
    ['no --scopes', ['user', ...without(USER_ARGS, '--scopes')], 'user needs --scopes'],
    [
      'an option of the other kind',
      ['service-account', ...SA_ARGS, '--scopes', 'calendar'],
      'unknown option --scopes',
    ],
    [
      'an option with no value',
      ['user', ...without(USER_ARGS, '--scopes'), '--scopes'],
      '--scopes needs a value',
    ],
  ])('refuses %s: status 1, one line naming the problem, nothing written', (_name, args, problem) => {
    const run = credentials(...args);
    expect(run.status).toBe(1);
    expect(run.out).toBe('');
    expect(run.err).toMatch(/^gspec-emulator credentials[^\n]*: [^\n]+\n$/);
    expect(run.err).toContain(problem);
    expect(readdirSync(dir)).toEqual([]);
  });

  const OPTIONS = /^ {2}(?:-\w, )? *--([\w-]+)/gm;
  it.each<[string[], string, string[]]>([
    [['--help'], 'usage: gspec-emulator credentials service-account|user [options]', []],
    [['-h'], 'usage: gspec-emulator credentials service-account|user [options]', []],
    [
      ['service-account', '--help'],
      'usage: gspec-emulator credentials service-account [options]',
      ['email', 'seed', 'force', 'key-file', 'emulator', 'delegate', 'help'],
    ],
    [
      ['user', '-h', '--email', 'not-even-checked'],
      'usage: gspec-emulator credentials user [options]',
      ['email', 'seed', 'force', 'file', 'scopes', 'client-id', 'help'],
    ],
  ])('%j prints its usage and exits 0, writing nothing', (args, usage, options) => {
    const run = credentials(...args);
    expect(run.status).toBe(0);
    expect(run.err).toBe('');
    expect(run.out.split('\n')[0]).toBe(usage);
    expect([...run.out.matchAll(OPTIONS)].map((m) => m[1])).toEqual(options);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('with no kind, prints its usage as an error and exits 1', () => {
    const run = credentials();
    expect(run.status).toBe(1);
    expect(run.out).toBe('');
    expect(run.err).toMatch(/^usage: gspec-emulator credentials service-account\|user/);
    expect(readdirSync(dir)).toEqual([]);
  });
});
