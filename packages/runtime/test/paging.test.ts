/**
 * The walks of list operations, in both of their forms: the functions `pages`, `items` and
 * `sync` of paging.ts, on a list method of any client, and the methods `list.pages`, ... that
 * the clients binding every operation add (`withWalks`). Every case runs in each form.
 */
import { describe, expect, it } from 'vitest';
import {
  type CallOptions,
  ClientConfigError,
  type FetchLike,
  GoogleApiError,
  items,
  type PageIterator,
  pages,
  type SyncOptions,
  type SyncResult,
  sync,
} from '../src/index.ts';
import { boundTestClient, type Thing, type ThingPage, testClient } from './fixture.ts';
import { type Answer, fakeClock, googleError, scriptedFetch } from './support.ts';

const page = (body: ThingPage) => Response.json(body);
const names = (things: Thing[]) => things.map((t) => t.name);

type ListArgs = { ownerId: string; q?: string; timeMin?: string; maxResults?: number };
interface Walks {
  items(args: ListArgs, options?: CallOptions): PageIterator<Thing>;
  pages(args: ListArgs, options?: CallOptions): PageIterator<ThingPage>;
  sync(args: ListArgs, options: SyncOptions<Thing>): Promise<SyncResult>;
}
type Given = { fetch: FetchLike; clock?: ReturnType<typeof fakeClock> };

const forms: [string, (given: Given) => Walks][] = [
  [
    'methods of a client with every operation (list.items(args))',
    (given) => {
      const { list } = testClient(given).things;
      return {
        items: (a, o) => list.items(a, o),
        pages: (a, o) => list.pages(a, o),
        sync: (a, o) => list.sync(a, o),
      };
    },
  ],
  [
    'functions on a client bound to the list alone (items(list, args))',
    (given) => {
      const { list } = boundTestClient(given, ['things.list']).things;
      return {
        items: (a, o) => items(list, a, o),
        pages: (a, o) => pages(list, a, o),
        sync: (a, o) => sync(list, a, o),
      };
    },
  ],
  [
    'functions on a method of a client with every operation',
    (given) => {
      const { list } = testClient(given).things;
      return {
        items: (a, o) => items(list, a, o),
        pages: (a, o) => pages(list, a, o),
        sync: (a, o) => sync(list, a, o),
      };
    },
  ],
];

describe.each(forms)('page iteration, as %s', (_form, walksOf) => {
  const testClient = (given: Given) => ({ things: { list: walksOf(given) } });

  it.each<
    [
      string,
      { given: Answer[]; want: { items: string[]; pageTokens: (string | null)[]; nextSyncToken?: string } },
    ]
  >([
    [
      'follows nextPageToken to the last page and keeps its nextSyncToken',
      {
        given: [
          page({ items: [{ name: 'a' }, { name: 'b' }], nextPageToken: 'p2' }),
          page({ items: [{ name: 'c' }], nextSyncToken: 'sync-1' }),
        ],
        want: { items: ['a', 'b', 'c'], pageTokens: [null, 'p2'], nextSyncToken: 'sync-1' },
      },
    ],
    [
      'goes on past an empty page that carries a nextPageToken',
      {
        given: [
          page({ items: [], nextPageToken: 'p2' }),
          page({ nextPageToken: 'p3' }),
          page({ items: [{ name: 'z' }], nextSyncToken: 's' }),
        ],
        want: { items: ['z'], pageTokens: [null, 'p2', 'p3'], nextSyncToken: 's' },
      },
    ],
    [
      'stops after one page without a token',
      { given: [page({ items: [{ name: 'only' }] })], want: { items: ['only'], pageTokens: [null] } },
    ],
  ])('%s', async (_title, { given, want }) => {
    const { fetch, requests } = scriptedFetch(...given);
    const client = testClient({ fetch });
    const items = client.things.list.items({ ownerId: 'o' });
    const seen: Thing[] = [];
    for await (const item of items) seen.push(item);
    expect(names(seen)).toEqual(want.items);
    expect(requests.map((r) => new URL(r.url).searchParams.get('pageToken'))).toEqual(want.pageTokens);
    expect(items.nextSyncToken).toBe(want.nextSyncToken);
  });

  it('iterates over pages, sending the other parameters unchanged', async () => {
    const { fetch, requests } = scriptedFetch(
      page({ items: [{ name: 'a' }], nextPageToken: 'p2' }),
      page({ items: [] }),
    );
    const pages: ThingPage[] = [];
    for await (const p of testClient({ fetch }).things.list.pages({ ownerId: 'o', maxResults: 1 }))
      pages.push(p);
    expect(pages).toHaveLength(2);
    expect(requests.map((r) => r.url)).toEqual([
      'https://example.test/api/v1/owners/o/things?maxResults=1',
      'https://example.test/api/v1/owners/o/things?maxResults=1&pageToken=p2',
    ]);
  });

  it('stops with an error when the service sends the same page token twice', async () => {
    const { fetch } = scriptedFetch(page({ items: [], nextPageToken: 'loop' }));
    const walk = async () => {
      for await (const _ of testClient({ fetch }).things.list.items({ ownerId: 'o' })) void _;
    };
    await expect(walk()).rejects.toThrow('things.list: the service sent the page token "loop" twice');
  });

  it('fetches nothing until iterated, and again on every iteration', async () => {
    const { fetch, requests } = scriptedFetch(page({ items: [{ name: 'a' }] }));
    const items = testClient({ fetch }).things.list.items({ ownerId: 'o' });
    expect(requests).toHaveLength(0);
    for await (const _ of items) void _;
    for await (const _ of items) void _;
    expect(requests).toHaveLength(2);
  });
});

const fullSyncRequired = () => googleError(410, ['fullSyncRequired']);

describe.each(forms)('incremental sync, as %s', (_form, walksOf) => {
  const testClient = (given: Given) => ({ things: { list: walksOf(given) } });

  it.each<
    [
      string,
      {
        given: { syncToken?: string; answers: Answer[] };
        want: {
          result: { nextSyncToken: string; fullSync: boolean; restarted: boolean };
          sent: string[];
          delivered: [string[], boolean][];
          told: number;
        };
      },
    ]
  >([
    [
      'a full sync without a token, with the full-sync-only parameters',
      {
        given: {
          answers: [
            page({ items: [{ name: 'a' }], nextPageToken: 'p2' }),
            page({ items: [{ name: 'b' }], nextSyncToken: 's1' }),
          ],
        },
        want: {
          result: { nextSyncToken: 's1', fullSync: true, restarted: false },
          sent: ['?q=x&timeMin=2026-01-01', '?q=x&timeMin=2026-01-01&pageToken=p2'],
          delivered: [
            [['a'], true],
            [['b'], true],
          ],
          told: 0,
        },
      },
    ],
    [
      'an incremental sync with the token, without the parameters the service refuses with it',
      {
        given: { syncToken: 's1', answers: [page({ items: [{ name: 'changed' }], nextSyncToken: 's2' })] },
        want: {
          result: { nextSyncToken: 's2', fullSync: false, restarted: false },
          sent: ['?syncToken=s1'],
          delivered: [[['changed'], false]],
          told: 0,
        },
      },
    ],
    [
      'on 410 fullSyncRequired: tells the caller, then a full sync',
      {
        given: {
          syncToken: 'old',
          answers: [fullSyncRequired(), page({ items: [{ name: 'all' }], nextSyncToken: 's3' })],
        },
        want: {
          result: { nextSyncToken: 's3', fullSync: true, restarted: true },
          sent: ['?syncToken=old', '?q=x&timeMin=2026-01-01'],
          delivered: [[['all'], true]],
          told: 1,
        },
      },
    ],
  ])('%s', async (_title, { given, want }) => {
    const { fetch, requests } = scriptedFetch(...given.answers);
    const delivered: [string[], boolean][] = [];
    let told = 0;
    const result = await testClient({ fetch }).things.list.sync(
      { ownerId: 'o', q: 'x', timeMin: '2026-01-01' },
      {
        syncToken: given.syncToken,
        onItems: (items, { fullSync }) => {
          delivered.push([names(items) as string[], fullSync]);
        },
        onFullSyncRequired: (error) => {
          expect(error).toBeInstanceOf(GoogleApiError);
          told++;
        },
      },
    );
    expect(result).toEqual(want.result);
    expect(requests.map((r) => new URL(r.url).search)).toEqual(want.sent);
    expect(delivered).toEqual(want.delivered);
    expect(told).toBe(want.told);
  });

  it.each<[string, Answer[], RegExp | string]>([
    ['a 410 of the full sync itself', [fullSyncRequired()], /failed with 410/],
    [
      'a last page without nextSyncToken',
      [page({ items: [] })],
      'things.list: the last page of the sync carried no nextSyncToken',
    ],
    ['another error', [googleError(404, ['notFound'])], /failed with 404/],
  ])('throws on %s', async (_title, answers, want) => {
    const { fetch } = scriptedFetch(...answers);
    await expect(
      testClient({ fetch, clock: fakeClock() }).things.list.sync({ ownerId: 'o' }, { onItems: () => {} }),
    ).rejects.toThrow(want);
  });

  it('restarts at most once: a refused token during the restarted full sync is thrown', async () => {
    const { fetch, requests } = scriptedFetch(fullSyncRequired());
    await expect(
      testClient({ fetch }).things.list.sync({ ownerId: 'o' }, { syncToken: 'old', onItems: () => {} }),
    ).rejects.toMatchObject({ status: 410 });
    expect(requests).toHaveLength(2);
  });
});

describe('the walk functions', () => {
  it.each<[string, () => unknown, RegExp]>([
    [
      'a method that does not list',
      () => items(boundTestClient().things.get as never, {} as never),
      /items\(\) takes a list method.*does not list/,
    ],
    [
      'something else',
      () => pages('things.list' as never, {} as never),
      /pages\(\) takes a list method.*got string/,
    ],
    ['nothing', () => pages(undefined as never, {} as never), /got undefined/],
  ])('refuse %s with a ClientConfigError before sending anything', (_title, walk, want) => {
    expect(walk).toThrow(ClientConfigError);
    expect(walk).toThrow(want);
  });

  it('refuse to sync a list that does not sync, and give it no sync method', async () => {
    const { fetch, requests } = scriptedFetch(page({ items: [] }));
    const history = boundTestClient({ fetch }, ['things.history']).things.history;
    await expect(sync(history as never, { ownerId: 'o' }, { onItems: () => {} })).rejects.toThrow(
      'sync(): things.history does not sync',
    );
    expect(requests).toEqual([]);
    expect('sync' in testClient().things.history).toBe(false);
    expect(typeof testClient().things.history.items).toBe('function');
  });

  it('give a bound client no walk methods of its own: they are functions the program imports', () => {
    const { list } = boundTestClient({}, ['things.list']).things;
    expect(Object.keys(list)).toEqual([]);
    expect('items' in list || 'pages' in list || 'sync' in list).toBe(false);
  });
});
