import { describe, expect, it } from 'vitest';
import { GoogleApiError } from '../src/index.ts';
import { type Thing, type ThingPage, testClient } from './fixture.ts';
import { type Answer, fakeClock, googleError, scriptedFetch } from './support.ts';

const page = (body: ThingPage) => Response.json(body);
const names = (things: Thing[]) => things.map((t) => t.name);

describe('page iteration', () => {
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

describe('incremental sync', () => {
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
