import { describe, expect, it } from 'vitest';
import {
  bindOperations,
  type CallFetch,
  ClientConfigError,
  GoogleApiError,
  type GoogleClientOptions,
  items,
} from '../src/index.ts';
import { boundTestClient, leanTestClient, testClient } from './fixture.ts';
import { BASE, fakeClock, googleError, scriptedFetch, table } from './support.ts';

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
    // A client bound to every operation, with the walk functions for the walk.
    const bound = await outcome((options) => {
      const client = boundTestClient(options as never);
      const things = {
        ...client.things,
        list: Object.assign(client.things.list, { items: (a: never) => items(client.things.list, a) }),
      };
      return { ...client, things } as never;
    });
    expect(bound).toEqual(lean);
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

describe('bindOperations: a client of the operations named (createCalendarWith)', () => {
  it('has the operations given and no other, in their resources', () => {
    const client = boundTestClient({}, ['things.get', 'things.list']);
    expect(Object.keys(client)).toEqual(['things']);
    expect(Object.keys(client.things).sort()).toEqual(['get', 'list']);
  });

  it('sends what createApiClient sends for the same call', async () => {
    const bound = scriptedFetch(Response.json({ id: 't' }));
    const full = scriptedFetch(Response.json({ id: 't' }));
    const args = { ownerId: 'o', thingId: 't', ifMatch: '"e1"', sendUpdates: 'all', name: 'n', fields: 'id' };
    await boundTestClient({ fetch: bound.fetch, accessToken: 'tok' }, ['things.update']).things.update(args);
    await testClient({ fetch: full.fetch, accessToken: 'tok' }).things.update(args);
    expect(bound.requests).toEqual(full.requests);
    expect(bound.requests[0]).toMatchObject({
      method: 'PUT',
      url: `${BASE}/owners/o/things/t?sendUpdates=all&fields=id`,
      headers: { 'if-match': '"e1"', authorization: 'Bearer tok' },
      body: { name: 'n' },
    });
  });

  it.each<[string, unknown[]]>([
    ['no operations', []],
    ['an operationId instead of an operation', ['things.get']],
    ['the whole table instead of its operations', [table]],
  ])('refuses %s with a ClientConfigError that says what it takes', (_title, ops) => {
    const make = () => bindOperations(BASE, {}, ops as never);
    expect(make).toThrow(ClientConfigError);
    expect(make).toThrow('name the operations to bind after the options, such as eventsList');
  });

  it('checks its options as the other clients do', () => {
    expect(() => boundTestClient({ baseUrl: 'calendar/v3' })).toThrow(ClientConfigError);
    expect(() => boundTestClient({ timeoutMs: -1 })).toThrow(/timeoutMs/);
  });
});
