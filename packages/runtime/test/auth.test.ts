/**
 * The `auth` option with the real google-auth-library, majors 9, 10 and 11: only the network is
 * fake. The library's clients get a `fetchImplementation` (gaxios 6, 7 and 8 all take one) that
 * plays Google's token endpoint, and our client an injected fetch that plays the API.
 *
 * Major 11 needs Node 22, so it is no dev dependency (that would make `npm install` warn on
 * Node 20, decision 0061): on Node 22 and later it is installed on demand, once, into
 * node_modules/.cache; on Node 20 its tests are skipped, saying why. CI runs them on Node 24.
 */
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { installOnDemand, notOnThisNode, requireFrom } from '@gspec/scripts/installed-on-demand';
import { onAnotherNodeLine } from '@gspec/scripts/node-lines';
import { createTypeProbe, type TypeProbe } from '@gspec/scripts/type-probe';
import * as v10 from 'google-auth-library';
import type * as V9 from 'google-auth-library-v9';
import * as v9 from 'google-auth-library-v9';
import { describe, expect, it } from 'vitest';
import {
  type CallFetch,
  ClientConfigError,
  type ClientOptions,
  GoogleApiError,
  type GoogleAuthLike,
  type GoogleClientOptions,
  googleAuth,
  type ResourceClientOptions,
} from '../src/index.ts';
import { batchingTestClient, boundTestClient, leanTestClient, testClient } from './fixture.ts';
import { fakeClock, googleError, type Recorded, scriptedFetch } from './support.ts';

// Type level, checked by `tsc --noEmit`: the clients of every supported major fit the option
// as they are, with no cast and no import of the library in the runtime. Major 11's are checked
// below, once it is installed.
type Fits<T extends NonNullable<ResourceClientOptions['auth']>> = T;
export type ClientsOfEveryMajor = [
  Fits<V9.GoogleAuth>,
  Fits<V9.JWT>,
  Fits<V9.OAuth2Client>,
  Fits<V9.UserRefreshClient>,
  Fits<V9.Impersonated>,
  Fits<v10.GoogleAuth>,
  Fits<v10.JWT>,
  Fits<v10.OAuth2Client>,
  Fits<v10.UserRefreshClient>,
  Fits<v10.Impersonated>,
];
export const notAnAuthClient: ResourceClientOptions = {
  // @ts-expect-error a token is not an auth client (that is accessToken)
  auth: 'ya29.a-token',
};
export const noHeadersMethod: ResourceClientOptions = {
  // @ts-expect-error getAccessToken alone is not enough: the headers are what is sent
  auth: { getAccessToken: async () => ({ token: 'ya29.a-token' }) },
};

const V11 = { name: 'google-auth-library', version: '11.3.4', nodeMajor: 22 };
const v11Skipped = notOnThisNode(V11);
const v11Folder = v11Skipped ? undefined : await installOnDemand(V11);

/** The library as the tests use it; majors 9 and 11 are run through the same calls. */
type Library = typeof v10;
const libraries: [major: string, library: Library | undefined][] = [
  ['9', v9 as unknown as Library],
  ['10', v10],
  ['11', v11Folder ? requireFrom<Library>(v11Folder, V11.name) : undefined],
];

// Types are the same on every line: checked where the whole suite runs (decision 0051).
const typesSkipped =
  v11Skipped ?? (onAnotherNodeLine() ? 'types are checked on the newest Node line only' : undefined);
describe.skipIf(typesSkipped !== undefined)(
  `google-auth-library 11's types${typesSkipped ? ` (skipped: ${typesSkipped})` : ''}`,
  () => {
    let probe: TypeProbe | undefined;
    const check = (clients: string[]) => {
      // The library's declarations, by path: the workspace's google-auth-library is major 10.
      const library = path.join(v11Folder as string, 'node_modules', V11.name);
      const { types } = JSON.parse(readFileSync(path.join(library, 'package.json'), 'utf8')) as {
        types: string;
      };
      probe ??= createTypeProbe(path.resolve(import.meta.dirname, '..'));
      return probe.errors(
        [
          `import type * as V11 from ${JSON.stringify(path.join(library, types).replace(/\.d\.ts$/, '.js'))};`,
          `import type { ResourceClientOptions } from '../src/index.ts';`,
          `type Fits<T extends NonNullable<ResourceClientOptions['auth']>> = T;`,
          `export type Clients = [${clients.map((c) => `Fits<V11.${c}>`).join(', ')}];`,
        ].join('\n'),
      );
    };

    it('its clients fit the option as they are, with no cast', () => {
      expect(check(['GoogleAuth', 'JWT', 'OAuth2Client', 'UserRefreshClient', 'Impersonated'])).toEqual([]);
    });

    it('what is not a client does not (the check sees the library)', () => {
      expect(check(['CredentialBody']).join('\n')).toMatch(
        /CredentialBody.*does not satisfy the constraint/s,
      );
    });
  },
);

const { privateKey } = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
});
const EMAIL = 'robot@project.iam.gserviceaccount.com';
const SCOPE = 'https://www.googleapis.com/auth/calendar';
const API = 'https://example.test/api/v1/colors';
// Major 9's JWT (gtoken 7) still posts to the older address of the token endpoint.
const TOKEN_URLS = ['https://oauth2.googleapis.com/token', 'https://www.googleapis.com/oauth2/v4/token'];

/** Google's token endpoint: issues `token-1`, `token-2`, ... and records each grant's form. */
function tokenEndpoint({ refuse = false } = {}) {
  const grants: Record<string, string>[] = [];
  const fetchImplementation = async (input: unknown, init?: { body?: unknown }): Promise<Response> => {
    const url = input instanceof Request ? input.url : String(input);
    if (!TOKEN_URLS.includes(url)) throw new Error(`the library asked for ${url}`);
    grants.push(Object.fromEntries(new URLSearchParams(String(init?.body))));
    if (refuse) {
      return Response.json(
        { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' },
        { status: 400 },
      );
    }
    return Response.json({ access_token: `token-${grants.length}`, expires_in: 3600, token_type: 'Bearer' });
  };
  return { grants, transporterOptions: { fetchImplementation } };
}

/** The claims of a signed JWT (no check of the signature: the tests only read who asked). */
function claims(jwt: string | undefined): Record<string, unknown> {
  return JSON.parse(Buffer.from(jwt?.split('.')[1] ?? '', 'base64url').toString());
}

const ok = () => Response.json({ kind: 'calendar#colors' });
const refused = () => googleError(401, ['authError']);
const authorizations = (requests: Recorded[]) => requests.map((r) => r.headers.authorization);

for (const [major, lib] of libraries) {
  const title = lib
    ? `google-auth-library ${major}`
    : `google-auth-library ${major} (skipped: ${v11Skipped})`;

  describe.skipIf(!lib)(title, () => {
    const library = lib as Library;
    const serviceAccount = (
      endpoint: ReturnType<typeof tokenEndpoint>,
      more: { quotaProjectId?: string } = {},
    ) =>
      new library.JWT({
        email: EMAIL,
        key: privateKey,
        scopes: [SCOPE],
        transporterOptions: endpoint.transporterOptions,
        ...more,
      });

    it('a service account (JWT) gets a token, and the call carries it as a bearer token', async () => {
      const endpoint = tokenEndpoint();
      const { fetch, requests } = scriptedFetch(ok());
      await testClient({ auth: serviceAccount(endpoint), fetch }).colors.get();
      expect(endpoint.grants.map((g) => g.grant_type)).toEqual([
        'urn:ietf:params:oauth:grant-type:jwt-bearer',
      ]);
      expect(claims(endpoint.grants[0]?.assertion)).toMatchObject({ iss: EMAIL, scope: SCOPE });
      expect(authorizations(requests)).toEqual(['Bearer token-1']);
    });

    it('passes the request URL to getRequestHeaders (a JWT without scopes signs its token for it)', async () => {
      const { fetch, requests } = scriptedFetch(ok());
      const jwt = new library.JWT({ email: EMAIL, key: privateKey });
      await testClient({ auth: jwt, fetch }).colors.get();
      const [scheme, token] = (requests[0]?.headers.authorization ?? '').split(' ');
      expect({ scheme, aud: claims(token).aud, iss: claims(token).iss }).toEqual({
        scheme: 'Bearer',
        aud: API,
        iss: EMAIL,
      });
    });

    it.each<
      [string, (client: GoogleAuthLike, fetch: ReturnType<typeof scriptedFetch>['fetch']) => Promise<unknown>]
    >([
      ['a resource method', (auth, fetch) => testClient({ auth, fetch }).colors.get()],
      ['a resource method of the lean client', (auth, fetch) => leanTestClient({ auth, fetch }).colors.get()],
      [
        'a client bound to the operation, given googleAuth(client)',
        (auth, fetch) => boundTestClient({ auth: googleAuth(auth), fetch }, ['colors.get']).colors.get(),
      ],
      [
        'the lean client, given googleAuth(client)',
        (auth, fetch) => leanTestClient({ auth: googleAuth(auth), fetch }).colors.get(),
      ],
      ['the raw GET', (auth, fetch) => testClient({ auth, fetch }).GET('/colors' as never, {} as never)],
    ])('%s sends every header the client gives: x-goog-user-project too', async (_title, call) => {
      const { fetch, requests } = scriptedFetch(ok());
      await call(serviceAccount(tokenEndpoint(), { quotaProjectId: 'billing-project' }), fetch);
      expect(requests[0]?.url).toBe(API);
      expect(requests[0]?.headers).toMatchObject({
        authorization: 'Bearer token-1',
        'x-goog-user-project': 'billing-project',
      });
    });

    it.each<
      [
        string,
        (
          auth: GoogleAuthLike,
          fetch: CallFetch,
        ) => Pick<ReturnType<typeof leanTestClient>, 'colors' | 'things'>,
      ]
    >([
      ['given as it is', (auth, fetch) => leanTestClient({ auth, fetch, clock: fakeClock() })],
      [
        'given as googleAuth(client) to a bound client',
        (auth, fetch) => boundTestClient({ auth: googleAuth(auth), fetch, clock: fakeClock() }) as never,
      ],
    ])(
      'after a 401, gets exactly one new token and repeats the call once, on a POST too: a client %s',
      async (_title, make) => {
        const endpoint = tokenEndpoint();
        const { fetch, requests } = scriptedFetch(refused(), ok());
        const client = make(serviceAccount(endpoint), fetch as never);
        await client.things.insert({ ownerId: 'o', name: 'n' });
        expect(endpoint.grants).toHaveLength(2);
        expect(authorizations(requests)).toEqual(['Bearer token-1', 'Bearer token-2']);
      },
    );

    it('throws a second 401 after the refresh as GoogleApiError 401, without refreshing again', async () => {
      const endpoint = tokenEndpoint();
      const { fetch, requests } = scriptedFetch(refused());
      const error = await testClient({ auth: serviceAccount(endpoint), fetch, clock: fakeClock() })
        .colors.get()
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(GoogleApiError);
      expect(error).toMatchObject({ status: 401, reason: 'authError' });
      expect((error as Error).cause).toBeUndefined();
      expect(endpoint.grants).toHaveLength(2);
      expect(authorizations(requests)).toEqual(['Bearer token-1', 'Bearer token-2']);
    });

    it('throws the 401 with the reason as cause, and leaves the credentials as they were, when only an access token is held', async () => {
      const endpoint = tokenEndpoint();
      const { fetch, requests } = scriptedFetch(refused());
      const oauth2 = new library.OAuth2Client({ transporterOptions: endpoint.transporterOptions });
      const expiry = Date.now() + 3_600_000;
      oauth2.setCredentials({ access_token: 'bare-secret-token', expiry_date: expiry });
      const error = await testClient({ auth: oauth2, fetch, clock: fakeClock() })
        .colors.get()
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(GoogleApiError);
      expect(error).toMatchObject({ status: 401, cause: { message: 'No refresh token is set.' } });
      expect(oauth2.credentials).toMatchObject({ access_token: 'bare-secret-token', expiry_date: expiry });
      expect(requests).toHaveLength(1);
      expect(endpoint.grants).toHaveLength(0);
      expect(`${String(error)} ${(error as Error).stack} ${JSON.stringify(error)}`).not.toContain(
        'bare-secret-token',
      );
    });

    it('throws the 401 with the refusal as cause when the token endpoint refuses the refresh', async () => {
      const endpoint = tokenEndpoint({ refuse: true });
      const { fetch, requests } = scriptedFetch(refused());
      const oauth2 = new library.OAuth2Client({
        clientId: 'client-id',
        clientSecret: 'client-secret',
        transporterOptions: endpoint.transporterOptions,
      });
      const held = {
        access_token: 'old-token',
        refresh_token: 'revoked-refresh-token',
        expiry_date: Date.now() + 3_600_000,
      };
      oauth2.setCredentials(held);
      const error = await testClient({ auth: oauth2, fetch, clock: fakeClock() })
        .colors.get()
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ status: 401, cause: expect.any(Error) });
      expect(oauth2.credentials).toMatchObject(held);
      expect(endpoint.grants.map((g) => g.refresh_token)).toEqual(['revoked-refresh-token']);
      expect(requests).toHaveLength(1);
    });

    it.each<[string, (endpoint: ReturnType<typeof tokenEndpoint>) => InstanceType<Library['OAuth2Client']>]>([
      [
        'an OAuth2Client',
        (endpoint) =>
          new library.OAuth2Client({
            clientId: 'client-id',
            clientSecret: 'client-secret',
            transporterOptions: endpoint.transporterOptions,
          }),
      ],
      [
        'a UserRefreshClient',
        (endpoint) =>
          new library.UserRefreshClient({
            clientId: 'client-id',
            clientSecret: 'client-secret',
            refreshToken: 'the-refresh-token',
            transporterOptions: endpoint.transporterOptions,
          }),
      ],
    ])('%s with a refresh token refreshes through the refresh grant', async (_title, make) => {
      const endpoint = tokenEndpoint();
      const { fetch, requests } = scriptedFetch(refused(), ok());
      const client = make(endpoint);
      client.setCredentials({
        access_token: 'old-token',
        refresh_token: 'the-refresh-token',
        expiry_date: Date.now() + 3_600_000,
      });
      await testClient({ auth: client, fetch, clock: fakeClock() }).colors.get();
      expect(endpoint.grants).toEqual([
        expect.objectContaining({ grant_type: 'refresh_token', refresh_token: 'the-refresh-token' }),
      ]);
      expect(authorizations(requests)).toEqual(['Bearer old-token', 'Bearer token-1']);
      expect(client.credentials).toMatchObject({
        access_token: 'token-1',
        refresh_token: 'the-refresh-token',
      });
    });

    it('refreshes GoogleAuth through the client getClient() gives', async () => {
      const endpoint = tokenEndpoint();
      const { fetch, requests } = scriptedFetch(refused(), ok());
      const auth = new library.GoogleAuth({
        credentials: { client_email: EMAIL, private_key: privateKey },
        scopes: [SCOPE],
        clientOptions: { transporterOptions: endpoint.transporterOptions },
      });
      await testClient({ auth, fetch, clock: fakeClock() }).colors.get();
      expect(endpoint.grants).toHaveLength(2);
      expect(authorizations(requests)).toEqual(['Bearer token-1', 'Bearer token-2']);
      const delegate = (await auth.getClient()) as InstanceType<Library['JWT']>;
      expect(delegate.credentials.access_token).toBe('token-2');
    });

    it('does not refresh again for a call refused with a token the client has replaced since', async () => {
      const endpoint = tokenEndpoint();
      let release = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      const requests: string[] = [];
      const fetch = async (url: string, init: { headers: Record<string, string> }) => {
        const authorization = new Headers(init.headers).get('authorization') ?? '';
        requests.push(`${new URL(url).pathname} ${authorization}`);
        // The slow call's first answer comes after the other call has refreshed the token.
        if (url.endsWith('/things/slow') && authorization === 'Bearer token-1') await held;
        return url.includes('/things/') && authorization === 'Bearer token-1' ? refused() : ok();
      };
      const client = leanTestClient({ auth: serviceAccount(endpoint), fetch, clock: fakeClock() });
      await client.colors.get();
      const slow = client.things.get({ ownerId: 'o', thingId: 'slow' });
      await client.things.get({ ownerId: 'o', thingId: 'fast' });
      release();
      await slow;
      expect(endpoint.grants).toHaveLength(2);
      expect(requests.slice(1)).toEqual([
        '/api/v1/owners/o/things/slow Bearer token-1',
        '/api/v1/owners/o/things/fast Bearer token-1',
        '/api/v1/owners/o/things/fast Bearer token-2',
        '/api/v1/owners/o/things/slow Bearer token-2',
      ]);
    });
  });
}

describe('auth with any object that has getRequestHeaders', () => {
  const record = { Authorization: 'Bearer t', 'x-goog-user-project': 'p' };
  it.each<[string, () => unknown]>([
    ['a Headers object', () => new Headers(record)],
    ['a plain record (google-auth-library 9)', () => ({ ...record })],
    ['a Map', () => new Map(Object.entries(record))],
    ['an array of pairs', () => Object.entries(record)],
  ])('sends every header of %s, on resource and raw calls', async (_title, give) => {
    const { fetch, requests } = scriptedFetch(ok());
    const auth = { getRequestHeaders: async () => give() } as GoogleAuthLike;
    const client = testClient({ auth, fetch });
    await client.colors.get();
    await client.GET('/colors' as never, {} as never);
    for (const sent of requests) {
      expect(sent.headers).toMatchObject({ authorization: 'Bearer t', 'x-goog-user-project': 'p' });
    }
    expect(requests).toHaveLength(2);
  });

  it('replaces a header of the headers option with the one the auth client gives, whatever the case', async () => {
    const { fetch, requests } = scriptedFetch(ok());
    const auth: GoogleAuthLike = {
      getRequestHeaders: async () =>
        new Headers({ authorization: 'Bearer t', 'x-goog-user-project': 'theirs' }),
    };
    const client = testClient({ auth, fetch, headers: { 'X-Goog-User-Project': 'mine', 'X-Other': 'kept' } });
    await client.colors.get();
    await client.GET('/colors' as never, {} as never);
    for (const sent of requests) {
      expect(sent.headers).toMatchObject({ 'x-goog-user-project': 'theirs', 'x-other': 'kept' });
    }
    expect(requests).toHaveLength(2);
  });

  it.each<[string, { headers: string[]; want: number }]>([
    ['the same headers again: the 401 stands', { headers: ['Bearer same', 'Bearer same'], want: 1 }],
    ['different headers: the call is repeated once', { headers: ['Bearer first', 'Bearer second'], want: 2 }],
  ])('after a 401, a client without credentials to expire gives %s', async (_title, { headers, want }) => {
    const { fetch, requests } = scriptedFetch(refused());
    let asked = 0;
    const auth: GoogleAuthLike = {
      getRequestHeaders: async () => ({
        Authorization: headers[Math.min(asked++, headers.length - 1)] as string,
      }),
    };
    const error = await testClient({ auth, fetch, clock: fakeClock() })
      .colors.get()
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 401 });
    expect((error as Error).cause).toBeUndefined();
    expect(authorizations(requests)).toEqual(headers.slice(0, want));
  });

  it.each<[string, unknown]>([
    ['nothing', undefined],
    ['an empty record', {}],
    ['an empty Headers', new Headers()],
    ['a string', 'Bearer secret-token-7'],
    ['empty values', { Authorization: '' }],
  ])('refuses %s from getRequestHeaders, naming the problem and no value', async (_title, given) => {
    const { fetch, requests } = scriptedFetch(ok());
    const auth = { getRequestHeaders: async () => given } as GoogleAuthLike;
    const client = testClient({ auth, fetch });
    for (const call of [() => client.colors.get(), () => client.GET('/colors' as never, {} as never)]) {
      const error = await call().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ClientConfigError);
      expect(String(error)).toMatch(/getRequestHeaders\(\) gave no headers to send/);
      expect(String(error)).not.toContain('secret-token-7');
    }
    expect(requests).toHaveLength(0);
  });
});

describe('a token provider that fails to refresh', () => {
  it('throws the 401 with the provider error as cause', async () => {
    const { fetch, requests } = scriptedFetch(refused());
    const failure = new Error('the refresh token was revoked');
    const accessToken = ({ refresh }: { refresh: boolean }) => {
      if (refresh) throw failure;
      return 'stale';
    };
    const error = await testClient({ accessToken, fetch, clock: fakeClock() })
      .colors.get()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GoogleApiError);
    expect(error).toMatchObject({ status: 401 });
    expect((error as Error).cause).toBe(failure);
    expect(requests).toHaveLength(1);
  });
});

describe('auth options', () => {
  it.each<[string, { given: GoogleClientOptions; want: RegExp }]>([
    [
      'auth with accessToken',
      { given: { auth: { getRequestHeaders: async () => ({}) }, accessToken: 't' }, want: /pick one/ },
    ],
    [
      'an object without getRequestHeaders',
      { given: { auth: {} as GoogleAuthLike }, want: /getRequestHeaders\(url\)/ },
    ],
    [
      'a token string as auth',
      { given: { auth: 'ya29.secret-value' as never }, want: /google-auth-library client/ },
    ],
    ['null as auth', { given: { auth: null as never }, want: /google-auth-library client/ }],
  ])('refuses %s with a ClientConfigError that says what is expected', (_title, { given, want }) => {
    for (const make of [
      () => testClient(given),
      () => leanTestClient(given),
      () => boundTestClient(given as ClientOptions),
      () => batchingTestClient(given),
    ]) {
      const error = (() => {
        try {
          make();
        } catch (e) {
          return e;
        }
      })();
      expect(error).toBeInstanceOf(ClientConfigError);
      expect(String(error)).toMatch(want);
      expect(String(error)).not.toContain('secret-value');
    }
  });
});

describe('googleAuth(client)', () => {
  it.each<[string, unknown]>([
    ['nothing', undefined],
    ['a token string', 'ya29.secret-value'],
    ['an object without getRequestHeaders', { getAccessToken: async () => 'ya29.secret-value' }],
  ])('refuses %s, naming what it takes and no value', (_title, given) => {
    const refused = () => googleAuth(given as GoogleAuthLike);
    expect(refused).toThrow(ClientConfigError);
    expect(refused).toThrow(/googleAuth\(\) takes a google-auth-library client .*getRequestHeaders\(url\)/);
    expect(refused).not.toThrow(/secret-value/);
  });

  it('is what a client bound to some operations takes: a library client as it is is refused, saying how to give it', () => {
    const library = { getRequestHeaders: async () => ({ Authorization: 'Bearer t' }) };
    const refused = () => boundTestClient({ auth: library as never });
    expect(refused).toThrow(ClientConfigError);
    expect(refused).toThrow(
      /auth must be googleAuth\(client\), with googleAuth imported from the client package/,
    );
  });

  it('gives the same credentials to every client, the batch included', async () => {
    const { fetch, requests } = scriptedFetch(ok());
    const auth = googleAuth({
      getRequestHeaders: async () => new Headers({ Authorization: 'Bearer from-library' }),
    });
    await boundTestClient({ auth, fetch }, ['colors.get']).colors.get();
    await testClient({ auth, fetch }).colors.get();
    await testClient({ auth, fetch }).GET('/colors' as never, {} as never);
    expect(authorizations(requests)).toEqual([
      'Bearer from-library',
      'Bearer from-library',
      'Bearer from-library',
    ]);
  });
});
