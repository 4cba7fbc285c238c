/**
 * Google sign-in end to end, offline, as a user sets it up: `gspec-emulator credentials`
 * writes a service account key file and a user's `authorized_user` file with their seed
 * entries, `gspec-emulator --seed --strict` starts on that seed, and Google's own clients
 * (googleapis on google-auth-library, reading the files through
 * GOOGLE_APPLICATION_CREDENTIALS) and ours (`auth`) sign in at the emulator's token endpoint.
 * The only change from a program against Google is the transport of the auth client
 * (`@gspec/emulator/google-auth`). A wrong key, an expired assertion, a scope not granted and
 * an unknown subject fail as they do at Google.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createCalendar } from '@gspec/calendar';
import { freePort, stopAll } from '@gspec/scripts/child-process';
import { createSearchAds360 } from '@gspec/searchads360';
import { GoogleAuth } from 'google-auth-library';
import { JWT as JWTv9 } from 'google-auth-library-v9';
import { google } from 'googleapis';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { emulatorFetch, emulatorTransporterOptions } from '../src/google-auth.ts';
import { type CliRun, startCli } from './support/cli-process.ts';
import { ADVERTISER, AGENCY, ENGINE, purchase } from './support/searchads360.ts';

const CREDENTIALS_CLI = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'cli.js');
const SA = 'robot@demo-project.iam.gserviceaccount.com';
const CALENDAR = 'https://www.googleapis.com/auth/calendar';
const CALENDAR_READONLY = 'https://www.googleapis.com/auth/calendar.readonly';
const SA360 = 'https://www.googleapis.com/auth/doubleclicksearch';

let dir: string;
let origin: string;
let run: CliRun;
const file = (name: string) => path.join(dir, name);

/** `gspec-emulator credentials ARGS` as a user runs it. */
const credentials = (...args: string[]) =>
  execFileSync(process.execPath, [CREDENTIALS_CLI, 'credentials', ...args], { cwd: dir, encoding: 'utf8' });

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'gspec-google-auth-'));
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  // The seed starts with its users; the command adds the credentials to it.
  execFileSync(process.execPath, [
    '-e',
    `require('node:fs').writeFileSync(${JSON.stringify(file('seed.json'))}, JSON.stringify({ users: [{ email: 'ana@example.com' }, { email: 'bo@example.com' }] }))`,
  ]);
  const delegate = ['calendar', 'calendar.readonly', 'doubleclicksearch'].join(',');
  credentials(
    'service-account',
    '--email',
    SA,
    '--key-file',
    'key.json',
    '--seed',
    'seed.json',
    '--emulator',
    origin,
    '--delegate',
    delegate,
  );
  credentials(
    'user',
    '--email',
    'ana@example.com',
    '--file',
    'ana.json',
    '--seed',
    'seed.json',
    '--scopes',
    'calendar',
  );
  // A key of the same account that the emulator never hears of: another seed gets it.
  credentials(
    'service-account',
    '--email',
    SA,
    '--key-file',
    'stray-key.json',
    '--seed',
    'other-seed.json',
    '--emulator',
    origin,
  );
  run = startCli(['--port', String(port), '--seed', file('seed.json'), '--strict'], { anyPort: false });
  expect(await run.ready).toBe(origin);
}, 120_000);

afterAll(async () => {
  await stopAll();
  rmSync(dir, { recursive: true, force: true });
});

afterEach(() => {
  vi.unstubAllEnvs();
  vi.useRealTimers();
});

/** GoogleAuth as a program makes it, reading GOOGLE_APPLICATION_CREDENTIALS, sent to the emulator. */
function googleAuth(keyFile: string, scopes: string[], subject?: string): GoogleAuth {
  vi.stubEnv('GOOGLE_APPLICATION_CREDENTIALS', file(keyFile));
  // No look for a Compute Engine metadata server (a request off this machine) on the way.
  vi.stubEnv('METADATA_SERVER_DETECTION', 'none');
  return new GoogleAuth({
    scopes,
    clientOptions: {
      ...(subject ? { subject } : {}),
      transporterOptions: emulatorTransporterOptions(origin),
    },
  });
}

/** What google-auth-library throws when the token endpoint refuses: Google's error code and text. */
async function refusal(
  promise: Promise<unknown>,
): Promise<{ status?: number; error?: string; text: string }> {
  try {
    await promise;
  } catch (error) {
    const failure = error as {
      response?: { status?: number; data?: { error?: string; error_description?: string } };
      message: string;
    };
    return {
      ...(failure.response?.status !== undefined ? { status: failure.response.status } : {}),
      ...(failure.response?.data?.error ? { error: failure.response.data.error } : {}),
      text: `${failure.message} ${failure.response?.data?.error_description ?? ''}`,
    };
  }
  throw new Error('expected the call to be refused');
}

describe('emulatorFetch', () => {
  it.each([
    ['no scheme', '127.0.0.1:4011', "expected the emulator's origin"],
    ['a path', 'http://127.0.0.1:4011/calendar/v3', 'expected a bare http(s) origin'],
    ['another scheme', 'ftp://127.0.0.1:4011', 'expected a bare http(s) origin'],
  ])('refuses an origin with %s, naming it', (_what, bad, says) => {
    expect(() => emulatorFetch(bad)).toThrow(
      new TypeError(`${says}, such as http://127.0.0.1:4011; found "${bad}"`),
    );
  });

  it('refuses a Google host it does not emulate, without a request', async () => {
    await expect(emulatorFetch(origin)('https://sheets.googleapis.com/v4/spreadsheets/x')).rejects.toThrow(
      'https://sheets.googleapis.com is not emulated',
    );
  });

  it('sends the emulated hosts to the emulator, path and query kept', async () => {
    const colors = await emulatorFetch(origin)(
      'https://www.googleapis.com/calendar/v3/colors?prettyPrint=false',
    );
    // The emulator answers (a 401 without a token), not Google.
    expect(colors.status).toBe(401);
    expect(((await colors.json()) as { error: { code: number } }).error.code).toBe(401);
  });
});

describe('the files gspec-emulator credentials writes', () => {
  it('are a key file with token_uri at the emulator, and an authorized_user file, both in the seed', () => {
    const key = JSON.parse(readFileSync(file('key.json'), 'utf8'));
    expect(key).toMatchObject({ type: 'service_account', client_email: SA, token_uri: `${origin}/token` });
    expect(key.private_key).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    const user = JSON.parse(readFileSync(file('ana.json'), 'utf8'));
    expect(user).toMatchObject({ type: 'authorized_user', account: 'ana@example.com' });
    const seed = JSON.parse(readFileSync(file('seed.json'), 'utf8'));
    expect(Object.keys(seed.serviceAccounts[0].keys)).toEqual([key.private_key_id]);
    expect(seed.users.map((u: { email: string }) => u.email)).toEqual(['ana@example.com', 'bo@example.com']);
    expect(seed.users[0].refreshTokens[0].token).toBe(user.refresh_token);
  });
});

describe("googleapis with google-auth-library's GoogleAuth", () => {
  it('runs a Calendar flow as a delegated user, who sees only their own calendars', async () => {
    const calendar = google.calendar({
      version: 'v3',
      auth: googleAuth('key.json', [CALENDAR], 'ana@example.com'),
    });
    const created = await calendar.events.insert({
      calendarId: 'primary',
      requestBody: {
        summary: 'Signed in',
        start: { dateTime: '2026-12-01T10:00:00Z' },
        end: { dateTime: '2026-12-01T11:00:00Z' },
      },
    });
    expect(created.data.organizer?.email).toBe('ana@example.com');
    const listed = await calendar.events.list({ calendarId: 'primary' });
    expect(listed.data.items?.map((e) => e.id)).toContain(created.data.id);
    const asBo = google.calendar({
      version: 'v3',
      auth: googleAuth('key.json', [CALENDAR], 'bo@example.com'),
    });
    const bo = await asBo.events.list({ calendarId: 'primary' });
    expect(bo.data.items?.map((e) => e.id)).not.toContain(created.data.id);
  });

  it('runs the Search Ads 360 flow: insert, read back, update availability, the ID-mapping file', async () => {
    const ads = google.doubleclicksearch({
      version: 'v2',
      auth: googleAuth('key.json', [SA360], 'ana@example.com'),
    });
    const inserted = await ads.conversion.insert({
      requestBody: { kind: 'doubleclicksearch#conversionList', conversion: [purchase('signed-in-1')] },
    });
    expect(inserted.data.conversion?.[0]?.conversionId).toBe('signed-in-1');
    const read = await ads.conversion.get({
      agencyId: AGENCY,
      advertiserId: ADVERTISER,
      engineAccountId: ENGINE,
      startDate: 20091101,
      endDate: 99991231,
      startRow: 0,
      rowCount: 10,
    });
    expect(read.data.conversion?.map((c) => c.conversionId)).toContain('signed-in-1');
    const availability = await ads.conversion.updateAvailability({
      requestBody: {
        availabilities: [
          {
            agencyId: AGENCY,
            advertiserId: ADVERTISER,
            segmentationType: 'FLOODLIGHT',
            segmentationName: 'Online purchase',
            availabilityTimestamp: '1763627400000',
          },
        ],
      },
    });
    expect(availability.status).toBe(200);
    const mapping = await ads.reports.getIdMappingFile({ agencyId: AGENCY, advertiserId: ADVERTISER });
    expect(String(mapping.data)).toMatch(/^Entity type,/);
  });

  it('signs in a user with a refresh token (an authorized_user file)', async () => {
    const auth = googleAuth('ana.json', [CALENDAR]);
    const calendar = google.calendar({ version: 'v3', auth });
    const primary = await calendar.calendars.get({ calendarId: 'primary' });
    expect(primary.data.id).toBe('ana@example.com');
    const client = await auth.getClient();
    const token = (await client.getAccessToken()).token as string;
    const info = await (
      client as unknown as { getTokenInfo(t: string): Promise<{ email: string; scopes: string[] }> }
    ).getTokenInfo(token);
    expect(info).toMatchObject({ email: 'ana@example.com', scopes: [CALENDAR] });
  });

  it('is held to the scopes it asked for: a read-only token cannot write', async () => {
    const calendar = google.calendar({
      version: 'v3',
      auth: googleAuth('key.json', [CALENDAR_READONLY], 'ana@example.com'),
    });
    expect((await calendar.events.list({ calendarId: 'primary' })).status).toBe(200);
    const write = await refusal(calendar.calendars.insert({ requestBody: { summary: 'No' } }));
    expect(write.status).toBe(403);
    expect(write.text).toMatch(/insufficient authentication scopes/);
  });

  it.each([
    [
      'a key the emulator does not know',
      () => googleAuth('stray-key.json', [CALENDAR], 'ana@example.com'),
      'invalid_grant',
      /Invalid JWT Signature/,
    ],
    [
      'an unknown subject',
      () => googleAuth('key.json', [CALENDAR], 'nobody@example.com'),
      'invalid_grant',
      /Invalid email or User ID/,
    ],
    [
      'a scope not delegated',
      () => googleAuth('key.json', ['https://www.googleapis.com/auth/drive'], 'ana@example.com'),
      'unauthorized_client',
      /unauthorized/,
    ],
  ])('fails with %s as it would against Google', async (_name, auth, error, text) => {
    const calendar = google.calendar({ version: 'v3', auth: auth() });
    const failure = await refusal(calendar.calendarList.list());
    expect(failure.error ?? failure.text).toBe(error);
    expect(failure.text).toMatch(text);
  });

  it('fails with an expired assertion as it would against Google', async () => {
    // The library signs with the time it reads: two hours ago, its assertion has expired.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() - 2 * 3600_000);
    const calendar = google.calendar({
      version: 'v3',
      auth: googleAuth('key.json', [CALENDAR], 'ana@example.com'),
    });
    const failure = await refusal(calendar.calendarList.list());
    expect(failure.error ?? failure.text).toBe('invalid_grant');
    expect(failure.text).toMatch(/iat and exp/);
  });
});

describe('our clients with auth: a google-auth-library client', () => {
  it('run Calendar as a delegated user and Search Ads 360 as the service account', async () => {
    const calendar = createCalendar({
      auth: googleAuth('key.json', [CALENDAR], 'ana@example.com'),
      baseUrl: `${origin}/calendar/v3`,
    });
    const made = await calendar.calendars.insert({ summary: 'Through auth' });
    const entry = await calendar.calendarList.get({ calendarId: made.id ?? '' });
    expect(entry.accessRole).toBe('owner');
    expect((await calendar.calendars.get({ calendarId: 'primary' })).id).toBe('ana@example.com');
    const ads = createSearchAds360({
      auth: googleAuth('key.json', [SA360]),
      baseUrl: `${origin}/doubleclicksearch/v2`,
    });
    const columns = await ads.savedColumns.list({ agencyId: AGENCY, advertiserId: ADVERTISER });
    expect(columns.kind).toBe('doubleclicksearch#savedColumnList');
  });

  it('sign in with google-auth-library 9, which posts to the older token address', async () => {
    const key = JSON.parse(readFileSync(file('key.json'), 'utf8'));
    const auth = new JWTv9({
      email: key.client_email,
      key: key.private_key,
      keyId: key.private_key_id,
      scopes: [CALENDAR],
      subject: 'bo@example.com',
      transporterOptions: emulatorTransporterOptions(origin),
    });
    const calendar = createCalendar({ auth, baseUrl: `${origin}/calendar/v3` });
    expect((await calendar.calendars.get({ calendarId: 'primary' })).id).toBe('bo@example.com');
  });

  it('sign in with a refresh token, and after a revoked token refresh once and go on', async () => {
    const auth = googleAuth('ana.json', [CALENDAR]);
    const calendar = createCalendar({ auth, baseUrl: `${origin}/calendar/v3` });
    expect((await calendar.calendars.get({ calendarId: 'primary' })).id).toBe('ana@example.com');
    const client = await auth.getClient();
    const before = (await client.getAccessToken()).token as string;
    const revoked = await fetch(`${origin}/revoke?token=${encodeURIComponent(before)}`, { method: 'POST' });
    expect(revoked.status).toBe(200);
    // The library still holds the revoked token; the 401 makes it get a new one.
    expect((await calendar.calendars.get({ calendarId: 'primary' })).id).toBe('ana@example.com');
    expect((await client.getAccessToken()).token).not.toBe(before);
  });

  it('throw the 401 when the token cannot be renewed', async () => {
    const auth = googleAuth('ana.json', [CALENDAR]);
    const calendar = createCalendar({ auth, baseUrl: `${origin}/calendar/v3` });
    await calendar.calendars.get({ calendarId: 'primary' });
    const user = JSON.parse(readFileSync(file('ana.json'), 'utf8'));
    const client = await auth.getClient();
    const access = (await client.getAccessToken()).token as string;
    // Revoking the refresh token revokes its access tokens too: nothing can be renewed.
    await fetch(`${origin}/revoke?token=${encodeURIComponent(user.refresh_token)}`, { method: 'POST' });
    expect(access).toMatch(/^ya29\./);
    await expect(calendar.calendars.get({ calendarId: 'primary' })).rejects.toMatchObject({ status: 401 });
  });
});
