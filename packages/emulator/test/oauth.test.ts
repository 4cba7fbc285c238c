/**
 * The token endpoint (src/core/oauth.ts) over HTTP, with assertions signed here so that every
 * claim can be got wrong on purpose: the JWT-bearer grant and each of its refusals, the
 * refresh-token grant and its refusals, tokeninfo and revoke; and what an issued token does at
 * the APIs: it acts as its user, strict mode enforces the scopes asked for, and an expired or
 * revoked one is a 401.
 */
import { createSign, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { seedOAuth } from '../src/core/seed.ts';
import { applySeed, parseSeed } from '../src/index.ts';
import { timedEvent, useEmulator } from './support/harness.ts';

const SA = 'robot@demo-project.iam.gserviceaccount.com';
const OTHER_SA = 'plain@demo-project.iam.gserviceaccount.com';
const CALENDAR = 'https://www.googleapis.com/auth/calendar';
const CALENDAR_READONLY = 'https://www.googleapis.com/auth/calendar.readonly';
const SA360 = 'https://www.googleapis.com/auth/doubleclicksearch';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

const keyPair = () => generateKeyPairSync('rsa', { modulusLength: 2048 });
const robot = keyPair();
const plain = keyPair();
const stranger = keyPair();
const pem = (key: KeyObject) => key.export({ type: 'spki', format: 'pem' }).toString();

const seed = parseSeed({
  users: [
    {
      email: 'ana@example.com',
      refreshTokens: [
        { token: '1//ana-refresh', clientId: 'app.apps.googleusercontent.com', scopes: ['calendar'] },
      ],
    },
    { email: 'bo@example.com' },
  ],
  serviceAccounts: [
    {
      email: SA,
      keys: { k1: pem(robot.publicKey) },
      delegation: { scopes: ['calendar', 'calendar.readonly', 'doubleclicksearch'] },
    },
    { email: OTHER_SA, keys: { k2: pem(plain.publicKey) } },
  ],
  oauthClients: [
    { clientId: 'app.apps.googleusercontent.com', clientSecret: 'app-secret' },
    { clientId: 'other.apps.googleusercontent.com', clientSecret: 'other-secret' },
  ],
});

const emu = useEmulator({ strict: true, oauth: { ...seedOAuth(seed), tokenLifetimeSeconds: 2 } });

const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** An RS256 JWT as a service account's library signs it. */
function sign(
  claims: Record<string, unknown>,
  key: KeyObject = robot.privateKey,
  header: object = { alg: 'RS256', typ: 'JWT', kid: 'k1' },
): string {
  const body = `${b64(header)}.${b64(claims)}`;
  return `${body}.${createSign('RSA-SHA256').update(body).sign(key).toString('base64url')}`;
}

const now = () => Math.floor(Date.now() / 1000);
const claims = (extra: Record<string, unknown> = {}) => ({
  iss: SA,
  scope: CALENDAR,
  aud: 'https://oauth2.googleapis.com/token',
  iat: now(),
  exp: now() + 3600,
  ...extra,
});

async function post(path: string, form: Record<string, string>, headers: Record<string, string> = {}) {
  applySeedOnce();
  const response = await fetch(`${emu.origin}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  });
  return {
    status: response.status,
    body: (await response.json()) as Record<string, unknown>,
    headers: response.headers,
  };
}

let seeded = false;
function applySeedOnce() {
  if (!seeded) applySeed(emu.emulator, seed);
  seeded = true;
}

const exchange = (assertion: string) => post('/token', { grant_type: JWT_BEARER, assertion });

async function tokenFor(extra: Record<string, unknown> = {}): Promise<string> {
  const reply = await exchange(sign(claims(extra)));
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body.access_token as string;
}

describe('the JWT-bearer grant', () => {
  it('issues a bearer token to a service account with a valid assertion', async () => {
    const reply = await exchange(sign(claims()));
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      access_token: expect.stringMatching(/^ya29\./),
      expires_in: 2,
      token_type: 'Bearer',
    });
    expect(reply.headers.get('cache-control')).toBe('no-store');
  });

  it('takes an assertion for the emulator’s own token URL as well as Google’s', async () => {
    expect((await exchange(sign(claims({ aud: `${emu.origin}/token` })))).status).toBe(200);
  });

  const hour = 3600;
  it.each([
    ['a wrong key', () => sign(claims(), stranger.privateKey), 'invalid_grant', /Invalid JWT Signature/],
    [
      'another account’s key',
      () => sign(claims(), plain.privateKey),
      'invalid_grant',
      /Invalid JWT Signature/,
    ],
    [
      'an unknown key id',
      () => sign(claims(), robot.privateKey, { alg: 'RS256', kid: 'nope' }),
      'invalid_grant',
      /not a key of/,
    ],
    ['HS256', () => sign(claims(), robot.privateKey, { alg: 'HS256', kid: 'k1' }), 'invalid_grant', /RS256/],
    [
      'an unknown account',
      () => sign(claims({ iss: 'ghost@demo-project.iam.gserviceaccount.com' })),
      'invalid_grant',
      /account not found/,
    ],
    [
      'an expired assertion',
      () => sign(claims({ iat: now() - 2 * hour, exp: now() - hour })),
      'invalid_grant',
      /iat and exp/,
    ],
    ['one living over an hour', () => sign(claims({ exp: now() + 2 * hour })), 'invalid_grant', /60 minutes/],
    [
      'one issued in the future',
      () => sign(claims({ iat: now() + hour, exp: now() + hour + 60 })),
      'invalid_grant',
      /iat and exp/,
    ],
    [
      'another audience',
      () => sign(claims({ aud: 'https://example.com/token' })),
      'invalid_grant',
      /audience/,
    ],
    ['no scope', () => sign(claims({ scope: undefined })), 'invalid_scope', /scope/],
    ['a scope that is none', () => sign(claims({ scope: 'calendar' })), 'invalid_scope', /"calendar"/],
    [
      'an unknown subject',
      () => sign(claims({ sub: 'nobody@example.com' })),
      'invalid_grant',
      /Invalid email or User ID/,
    ],
    [
      'a subject without delegation',
      () =>
        sign(claims({ iss: OTHER_SA, sub: 'ana@example.com' }), plain.privateKey, {
          alg: 'RS256',
          kid: 'k2',
        }),
      'unauthorized_client',
      /no domain-wide delegation/,
    ],
    [
      'a scope not delegated',
      () =>
        sign(claims({ sub: 'ana@example.com', scope: `${CALENDAR} https://www.googleapis.com/auth/drive` })),
      'unauthorized_client',
      /Not delegated.*drive/,
    ],
    ['no JWT at all', () => 'not-a-jwt', 'invalid_grant', /not a signed JWT/],
  ])('refuses %s as Google does', async (_name, assertion, error, description) => {
    const reply = await exchange(assertion());
    expect(reply.status).toBe(400);
    expect(reply.body.error).toBe(error);
    expect(reply.body.error_description).toMatch(description);
  });

  it.each([
    ['no grant type', {}, 400, 'invalid_request'],
    ['an unknown grant type', { grant_type: 'password' }, 400, 'unsupported_grant_type'],
    ['no assertion', { grant_type: JWT_BEARER }, 400, 'invalid_request'],
  ])('refuses a request with %s', async (_name, form, status, error) => {
    const reply = await post('/token', form as Record<string, string>);
    expect([reply.status, reply.body.error]).toEqual([status, error]);
  });

  it('answers 405 with Allow to a GET of /token', async () => {
    const response = await fetch(`${emu.origin}/token`);
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
    expect(((await response.json()) as { error: string }).error).toBe('invalid_request');
  });
});

describe('what an issued token does at the APIs', () => {
  it('acts as the delegated user, with that user’s calendars', async () => {
    const token = await tokenFor({ sub: 'ana@example.com' });
    const created = await emu.call('POST', '/calendars/primary/events', {
      token,
      body: timedEvent('As Ana'),
    });
    expect(created.status).toBe(200);
    expect(created.body.organizer.email).toBe('ana@example.com');
    const asBo = await tokenFor({ sub: 'bo@example.com' });
    const list = await emu.call('GET', '/calendars/primary/events', { token: asBo });
    expect(list.body.items.map((e: { summary: string }) => e.summary)).not.toContain('As Ana');
  });

  it('acts as the service account itself without a subject', async () => {
    const token = await tokenFor();
    const primary = await emu.call('GET', '/calendars/primary', { token });
    expect(primary.body.id).toBe(SA);
  });

  it('is refused an operation outside the scopes asked for, in strict mode', async () => {
    const token = await tokenFor({ sub: 'ana@example.com', scope: CALENDAR_READONLY });
    expect((await emu.call('GET', '/calendars/primary/events', { token })).status).toBe(200);
    const write = await emu.call('POST', '/calendars/primary/events', { token, body: timedEvent('No') });
    expect(write.status).toBe(403);
    expect(write.body.error.errors[0].reason).toBe('insufficientPermissions');
    const ads = await emu.call('GET', '/agency/1/advertiser/2/savedcolumns', { token, api: 'searchads360' });
    expect(ads.status).toBe(403);
    const adsToken = await tokenFor({ sub: 'ana@example.com', scope: SA360 });
    expect(
      (await emu.call('GET', '/agency/1/advertiser/2/savedcolumns', { token: adsToken, api: 'searchads360' }))
        .status,
    ).not.toBe(403);
  });

  it('is a 401 once expired, and so is a token it never issued', async () => {
    const token = await tokenFor();
    expect((await emu.call('GET', '/colors', { token })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const expired = await emu.call('GET', '/colors', { token });
    expect(expired.status).toBe(401);
    expect(expired.body.error.message).toMatch(/expired/);
    const forged = await emu.call('GET', '/colors', { token: 'ya29.made-up' });
    expect(forged.status).toBe(401);
  });

  it('takes a service account’s self-signed JWT as a bearer token, and refuses a forged one', async () => {
    const self = sign({
      iss: SA,
      sub: SA,
      aud: 'https://www.googleapis.com/',
      iat: now(),
      exp: now() + 3600,
    });
    const primary = await emu.call('GET', '/calendars/primary', { token: self });
    expect(primary.status).toBe(200);
    expect(primary.body.id).toBe(SA);
    const forged = sign(
      { iss: SA, aud: 'https://www.googleapis.com/', iat: now(), exp: now() + 3600 },
      stranger.privateKey,
    );
    expect((await emu.call('GET', '/colors', { token: forged })).status).toBe(401);
  });
});

describe('the refresh-token grant', () => {
  const refresh = (form: Record<string, string>, headers: Record<string, string> = {}) =>
    post('/token', { grant_type: 'refresh_token', ...form }, headers);
  const ana = {
    refresh_token: '1//ana-refresh',
    client_id: 'app.apps.googleusercontent.com',
    client_secret: 'app-secret',
  };

  it('issues a token for the user with the scopes granted, or fewer', async () => {
    const reply = await refresh(ana);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ token_type: 'Bearer', scope: CALENDAR });
    const primary = await emu.call('GET', '/calendars/primary', { token: reply.body.access_token as string });
    expect(primary.body.id).toBe('ana@example.com');
    const basic = Buffer.from('app.apps.googleusercontent.com:app-secret').toString('base64');
    const viaBasic = await refresh({ refresh_token: ana.refresh_token }, { authorization: `Basic ${basic}` });
    expect(viaBasic.status).toBe(200);
  });

  it('refuses HTTP Basic credentials that are not percent-encoded id:secret as invalid_client, with 401', async () => {
    const bad = Buffer.from('app.apps.googleusercontent.com:%E0%A4%A').toString('base64');
    const reply = await refresh({ refresh_token: ana.refresh_token }, { authorization: `Basic ${bad}` });
    expect([reply.status, reply.body.error]).toEqual([401, 'invalid_client']);
    expect(reply.body.error_description).toMatch(/not percent-encoded client_id:client_secret/);
  });

  it.each([
    ['an unknown client', { ...ana, client_id: 'ghost' }, 401, 'invalid_client'],
    ['a wrong secret', { ...ana, client_secret: 'nope' }, 401, 'invalid_client'],
    [
      'another client’s token',
      { ...ana, client_id: 'other.apps.googleusercontent.com', client_secret: 'other-secret' },
      400,
      'unauthorized_client',
    ],
    ['an unknown refresh token', { ...ana, refresh_token: '1//ghost' }, 400, 'invalid_grant'],
    ['a scope not granted', { ...ana, scope: SA360 }, 400, 'invalid_scope'],
  ])('refuses %s', async (_name, form, status, error) => {
    const reply = await refresh(form);
    expect([reply.status, reply.body.error]).toEqual([status, error]);
  });
});

describe('tokeninfo and revoke', () => {
  it('tells what a token was issued for, by parameter or bearer header', async () => {
    const token = await tokenFor({ sub: 'ana@example.com', scope: `${CALENDAR} ${SA360}` });
    const info = await post('/tokeninfo', { access_token: token });
    expect(info.status).toBe(200);
    expect(info.body).toMatchObject({
      email: 'ana@example.com',
      scope: `${CALENDAR} ${SA360}`,
      access_type: 'online',
    });
    expect(Number(info.body.expires_in)).toBeLessThanOrEqual(2);
    const byHeader = await post('/tokeninfo', {}, { authorization: `Bearer ${token}` });
    expect(byHeader.body.email).toBe('ana@example.com');
    expect((await post('/tokeninfo', { access_token: 'ya29.nope' })).body.error).toBe('invalid_token');
  });

  it('revokes an access token, and a refresh token with its access tokens', async () => {
    const token = await tokenFor();
    expect((await post('/revoke', { token })).status).toBe(200);
    expect((await emu.call('GET', '/colors', { token })).status).toBe(401);
    const issued = await post('/token', {
      grant_type: 'refresh_token',
      refresh_token: '1//ana-refresh',
      client_id: 'app.apps.googleusercontent.com',
      client_secret: 'app-secret',
    });
    const access = issued.body.access_token as string;
    expect((await post('/revoke', { token: '1//ana-refresh' })).status).toBe(200);
    expect((await emu.call('GET', '/colors', { token: access })).status).toBe(401);
    const again = await post('/token', {
      grant_type: 'refresh_token',
      refresh_token: '1//ana-refresh',
      client_id: 'app.apps.googleusercontent.com',
      client_secret: 'app-secret',
    });
    expect(again.body.error).toBe('invalid_grant');
    expect((await post('/revoke', { token: 'nothing' })).body.error).toBe('invalid_token');
  });
});

describe('the seed', () => {
  it.each([
    [
      { serviceAccounts: [{ email: SA, keys: { k: 'not a key' } }] },
      /serviceAccounts\[0\]\.keys\["k"\]: expected a PEM public key/,
    ],
    [{ serviceAccounts: [{ email: SA, keys: {} }] }, /keys/],
    [
      {
        oauthClients: [],
        users: [{ email: 'a@example.com', refreshTokens: [{ token: 't', clientId: 'c', scopes: [] }] }],
      },
      /users\[0\]\.refreshTokens\[0\]\.clientId: "c" is not one of oauthClients/,
    ],
    [
      {
        serviceAccounts: [
          { email: SA, keys: { k: pem(robot.publicKey) } },
          { email: SA, keys: { k: pem(robot.publicKey) } },
        ],
      },
      /serviceAccounts\[1\]\.email: .* registered twice/,
    ],
  ])('refuses a bad entry and names it: %j', (value, message) => {
    expect(() => seedOAuth(parseSeed(value))).toThrow(message);
  });
});
