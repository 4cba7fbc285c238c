import { describe, expect, it } from 'vitest';
import { type AccessToken, ClientConfigError, createGoogleClient } from '../src/index.ts';

interface TestPaths {
  '/things/{id}': {
    parameters: { query?: never; header?: never; path: { id: string }; cookie?: never };
    get: {
      parameters: { query?: never; header?: never; path: { id: string }; cookie?: never };
      requestBody?: never;
      responses: {
        200: { headers: Record<string, unknown>; content: { 'application/json': { id: string } } };
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

function recordingFetch(): { requests: Request[]; fetch: (request: Request) => Promise<Response> } {
  const requests: Request[] = [];
  const fetch = async (request: Request): Promise<Response> => {
    requests.push(request);
    return Response.json({ id: 'x' });
  };
  return { requests, fetch };
}

describe('createGoogleClient', () => {
  const tokens: [string, AccessToken, string][] = [
    ['a static token', 'tok-static', 'Bearer tok-static'],
    ['a token provider', () => 'tok-sync', 'Bearer tok-sync'],
    ['an async token provider', async () => 'tok-async', 'Bearer tok-async'],
  ];
  it.each(tokens)('sends %s as a bearer token', async (_title, accessToken, want) => {
    const { requests, fetch } = recordingFetch();
    const client = createGoogleClient<TestPaths>('https://example.test/api/v1', { accessToken, fetch });
    await client.GET('/things/{id}', { params: { path: { id: 'a' } } });
    expect(requests[0]?.headers.get('authorization')).toBe(want);
  });

  it('sends no Authorization header without a token', async () => {
    const { requests, fetch } = recordingFetch();
    const client = createGoogleClient<TestPaths>('https://example.test/api/v1', { fetch });
    await client.GET('/things/{id}', { params: { path: { id: 'a' } } });
    expect(requests[0]?.headers.has('authorization')).toBe(false);
  });

  it.each([
    ['the default base URL', undefined, 'https://example.test/api/v1/things/a'],
    ['a given base URL', 'http://127.0.0.1:4010/api/v1', 'http://127.0.0.1:4010/api/v1/things/a'],
    [
      'a base URL with a trailing slash',
      'http://127.0.0.1:4010/api/v1/',
      'http://127.0.0.1:4010/api/v1/things/a',
    ],
  ])('resolves paths against %s', async (_title, baseUrl, want) => {
    const { requests, fetch } = recordingFetch();
    const client = createGoogleClient<TestPaths>('https://example.test/api/v1', {
      fetch,
      ...(baseUrl ? { baseUrl } : {}),
    });
    await client.GET('/things/{id}', { params: { path: { id: 'a' } } });
    expect(requests[0]?.url).toBe(want);
  });

  it.each([
    ['a relative URL', { baseUrl: 'calendar/v3' }, /absolute http\(s\) URL/],
    ['another scheme', { baseUrl: 'ftp://example.test/v3' }, /http or https/],
    ['a query in the base URL', { baseUrl: 'https://example.test/v3?key=1' }, /query or a fragment/],
    ['an empty token', { accessToken: '' }, /empty string/],
  ])('refuses %s with a clear error', (_title, options, message) => {
    expect(() => createGoogleClient<TestPaths>('https://example.test/v1', options)).toThrow(
      ClientConfigError,
    );
    expect(() => createGoogleClient<TestPaths>('https://example.test/v1', options)).toThrow(message);
  });

  it('fails the request, without the token in the message, when the provider returns nothing', async () => {
    const { fetch } = recordingFetch();
    const client = createGoogleClient<TestPaths>('https://example.test/v1', {
      accessToken: async () => '',
      fetch,
    });
    await expect(client.GET('/things/{id}', { params: { path: { id: 'a' } } })).rejects.toThrow(
      'the access token provider returned no token',
    );
  });
});
