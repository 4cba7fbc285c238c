import { describe, expect, it } from 'vitest';
import { type CallFetch, ClientConfigError, GoogleApiError, type GoogleClientOptions } from '../src/index.ts';
import { leanTestClient, testClient } from './fixture.ts';
import { fakeClock, googleError, scriptedFetch } from './support.ts';

type Resources = ReturnType<typeof leanTestClient>;

describe('createResourceClient: the resource methods without the raw client', () => {
  it('has the resource namespaces and nothing of openapi-fetch', () => {
    const client = leanTestClient();
    expect(Object.keys(client).sort()).toEqual(['colors', 'things']);
    expect(typeof client.things.list.items).toBe('function');
    expect(typeof client.things.list.sync).toBe('function');
  });

  it.each<[string, { answers: Response[]; call: (c: Resources) => Promise<unknown> }]>([
    [
      'a GET with path and query parameters',
      {
        answers: [Response.json({ items: [{ id: 'a' }] })],
        call: (c) => c.things.list({ ownerId: 'me@example.com', q: 'a b', maxResults: 5 }),
      },
    ],
    [
      'a POST with query parameters and body fields',
      {
        answers: [Response.json({ id: 'n' })],
        call: (c) => c.things.insert({ ownerId: 'o', sendUpdates: 'all', name: 'Standup', tags: ['x'] }),
      },
    ],
    [
      'a header parameter',
      {
        answers: [Response.json({ id: 't' })],
        call: (c) => c.things.update({ ownerId: 'o', thingId: 't', ifMatch: '"e1"', name: 'n' }),
      },
    ],
    [
      'a retried 503, then the answer',
      { answers: [googleError(503), Response.json({ kind: 'x' })], call: (c) => c.colors.get() },
    ],
    ['a thrown 404', { answers: [googleError(404, ['notFound'])], call: (c) => c.colors.get() }],
    [
      'every page of a list',
      {
        answers: [
          Response.json({ items: [{ id: '1' }], nextPageToken: 'p2' }),
          Response.json({ items: [{ id: '2' }], nextSyncToken: 's' }),
        ],
        call: async (c) => {
          const items = [];
          for await (const item of c.things.list.items({ ownerId: 'o' })) items.push(item);
          return items;
        },
      },
    ],
    [
      'a text answer',
      { answers: [new Response('a,b\n1,2\n')], call: (c) => c.things.export({ ownerId: 'o' }) },
    ],
  ])('sends and answers as createApiClient does: %s', async (_title, { answers, call }) => {
    const outcome = async (make: (options: GoogleClientOptions) => Resources) => {
      const { fetch, requests } = scriptedFetch(...answers);
      const result = await call(make({ accessToken: 'tok', apiKey: 'k', fetch, clock: fakeClock() })).then(
        (value) => ({ value }),
        (error: unknown) => ({
          error: error instanceof GoogleApiError ? [error.status, error.reasons] : error,
        }),
      );
      return { result, requests };
    };
    const lean = await outcome(leanTestClient);
    expect(lean.requests.length).toBeGreaterThan(0);
    expect(lean).toEqual(await outcome(testClient));
  });

  it('takes a fetch that answers with only what the resource methods read', async () => {
    const sent: Parameters<CallFetch>[] = [];
    const fetch: CallFetch = async (url, init) => {
      sent.push([url, init]);
      return { status: 200, headers: { get: () => null }, text: async () => '{"kind":"calendar#colors"}' };
    };
    await expect(leanTestClient({ fetch }).colors.get({ fields: 'kind' })).resolves.toEqual({
      kind: 'calendar#colors',
    });
    expect(sent).toEqual([
      ['https://example.test/api/v1/colors?fields=kind', { method: 'GET', headers: {} }],
    ]);
  });

  it('checks its options as createApiClient does', () => {
    expect(() => leanTestClient({ baseUrl: 'calendar/v3' })).toThrow(ClientConfigError);
    expect(() => leanTestClient({ retry: { maxAttempts: 0 } })).toThrow(/retry.maxAttempts/);
  });
});
