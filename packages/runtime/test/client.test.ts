import { describe, expect, it } from 'vitest';
import {
  type AccessToken,
  ClientConfigError,
  createGoogleClient,
  type GoogleClientOptions,
} from '../src/index.ts';
import { testClient } from './fixture.ts';
import { scriptedFetch } from './support.ts';

interface TestPaths {
  '/things/{id}': {
    parameters: { query?: never; header?: never; path: { id: string }; cookie?: never };
    get: {
      parameters: { query?: never; header?: never; path: { id: string }; cookie?: never };
      requestBody?: never;
      responses: {
        200: { headers: Record<string, unknown>; content: { 'application/json': { id: string } } };
        404: {
          headers: Record<string, unknown>;
          content: { 'application/json': { error: { code: number } } };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
}

describe('the raw client (openapi-fetch)', () => {
  it.each<[string, { given: AccessToken; want: string }]>([
    ['a static token', { given: 'tok-static', want: 'Bearer tok-static' }],
    ['a token provider', { given: () => 'tok-sync', want: 'Bearer tok-sync' }],
    ['an async token provider', { given: async () => 'tok-async', want: 'Bearer tok-async' }],
  ])('sends %s as a bearer token', async (_title, { given, want }) => {
    const { requests, fetch } = scriptedFetch(Response.json({ id: 'x' }));
    const client = createGoogleClient<TestPaths>('https://example.test/api/v1', {
      accessToken: given,
      fetch,
    });
    await client.GET('/things/{id}', { params: { path: { id: 'a' } } });
    expect(requests[0]?.headers.authorization).toBe(want);
  });

  it('sends no Authorization header without a token', async () => {
    const { requests, fetch } = scriptedFetch(Response.json({ id: 'x' }));
    await createGoogleClient<TestPaths>('https://example.test/api/v1', { fetch }).GET('/things/{id}', {
      params: { path: { id: 'a' } },
    });
    expect(requests[0]?.headers.authorization).toBeUndefined();
  });

  it('returns errors as openapi-fetch does, without retrying or throwing', async () => {
    const { requests, fetch } = scriptedFetch(Response.json({ error: { code: 503 } }, { status: 503 }));
    const { data, error, response } = await testClient({ fetch }).request(
      'get',
      '/colors' as never,
      {} as never,
    );
    expect({ data, error, status: response.status, attempts: requests.length }).toEqual({
      data: undefined,
      error: { error: { code: 503 } },
      status: 503,
      attempts: 1,
    });
  });

  it.each<[string, { given: string | undefined; want: string }]>([
    ['the default base URL', { given: undefined, want: 'https://example.test/api/v1/things/a' }],
    [
      'a given base URL',
      { given: 'http://127.0.0.1:4010/api/v1', want: 'http://127.0.0.1:4010/api/v1/things/a' },
    ],
    [
      'a base URL with a trailing slash',
      { given: 'http://127.0.0.1:4010/api/v1/', want: 'http://127.0.0.1:4010/api/v1/things/a' },
    ],
  ])('resolves paths against %s', async (_title, { given, want }) => {
    const { requests, fetch } = scriptedFetch(Response.json({ id: 'x' }));
    const client = createGoogleClient<TestPaths>('https://example.test/api/v1', {
      fetch,
      ...(given ? { baseUrl: given } : {}),
    });
    await client.GET('/things/{id}', { params: { path: { id: 'a' } } });
    expect(requests[0]?.url).toBe(want);
  });

  it('fails the request, without the token in the message, when the provider returns nothing', async () => {
    const { fetch } = scriptedFetch(Response.json({ id: 'x' }));
    const client = createGoogleClient<TestPaths>('https://example.test/v1', {
      accessToken: async () => '',
      fetch,
    });
    await expect(client.GET('/things/{id}', { params: { path: { id: 'a' } } })).rejects.toThrow(
      'the access token provider returned no token',
    );
  });
});

describe('options', () => {
  it.each<[string, { given: GoogleClientOptions; want: RegExp }]>([
    ['a relative URL', { given: { baseUrl: 'calendar/v3' }, want: /an http or https URL/ }],
    ['another scheme', { given: { baseUrl: 'ftp://example.test/v3' }, want: /http or https/ }],
    [
      'a query in the base URL',
      { given: { baseUrl: 'https://example.test/v3?key=1' }, want: /query or a fragment/ },
    ],
    ['an empty token', { given: { accessToken: '' }, want: /empty string/ }],
    ['a token that is not a string', { given: { accessToken: 42 as never }, want: /string or a function/ }],
    ['an empty API key', { given: { apiKey: '' }, want: /apiKey is empty/ }],
    ['a timeout of 0', { given: { timeoutMs: 0 }, want: /timeoutMs must be a positive number/ }],
    [
      'maxAttempts of 0',
      { given: { retry: { maxAttempts: 0 } }, want: /retry.maxAttempts must be a number of at least 1/ },
    ],
    [
      'a negative budget',
      { given: { retry: { budgetMs: -1 } }, want: /retry.budgetMs must be a number of at least 0/ },
    ],
  ])('refuses %s with a ClientConfigError that says what is wrong', (_title, { given, want }) => {
    expect(() => testClient(given)).toThrow(ClientConfigError);
    expect(() => testClient(given)).toThrow(want);
  });

  it('puts the resource namespaces next to the raw methods', () => {
    const client = testClient();
    expect(Object.keys(client).sort()).toEqual(
      [
        'DELETE',
        'GET',
        'HEAD',
        'OPTIONS',
        'PATCH',
        'POST',
        'PUT',
        'TRACE',
        'colors',
        'eject',
        'request',
        'things',
        'use',
      ].sort(),
    );
    expect(typeof client.things.list.pages).toBe('function');
    expect('pages' in client.things.get).toBe(false);
  });
});
