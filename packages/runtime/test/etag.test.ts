import { describe, expect, it } from 'vitest';
import { isPreconditionFailed, updateWithEtag, withoutReadOnly } from '../src/index.ts';
import { type Thing, testClient } from './fixture.ts';
import { type Answer, googleError, scriptedFetch } from './support.ts';

describe('withoutReadOnly', () => {
  it.each<[string, { given: unknown; shape: Record<string, unknown>; want: unknown }]>([
    [
      'drops read-only fields',
      { given: { id: 'x', etag: 'e', name: 'n' }, shape: { etag: true, id: true }, want: { name: 'n' } },
    ],
    [
      'inside nested objects',
      {
        given: { creator: { self: true, email: 'a' } },
        shape: { creator: { self: true } },
        want: { creator: { email: 'a' } },
      },
    ],
    [
      'inside arrays of objects',
      {
        given: { attendees: [{ self: true, email: 'a' }, { email: 'b' }] },
        shape: { attendees: { self: true } },
        want: { attendees: [{ email: 'a' }, { email: 'b' }] },
      },
    ],
    [
      'keeps everything else as it is',
      {
        given: { start: { date: '2026-01-01' }, n: null },
        shape: { start: { x: true } },
        want: { start: { date: '2026-01-01' }, n: null },
      },
    ],
  ])('%s', (_title, { given, shape, want }) => {
    expect(withoutReadOnly(given, shape as never)).toEqual(want);
  });
});

describe('updateWithEtag on a client', () => {
  const thing = (etag: string, name: string) => Response.json({ id: 't', etag, name });
  const conflict = () => googleError(412, ['conditionNotMet']);

  it.each<[string, { given: Answer[]; maxAttempts?: number; want: { outcome: string; sent: string[] } }]>([
    [
      'reads, changes, writes with If-Match',
      {
        given: [thing('"1"', 'old'), thing('"2"', 'old!')],
        want: { outcome: 'old!', sent: ['GET', 'PUT "1" old!'] },
      },
    ],
    [
      'reads again and redoes the change after a 412',
      {
        given: [thing('"1"', 'a'), conflict(), thing('"2"', 'b'), thing('"3"', 'b!')],
        want: { outcome: 'b!', sent: ['GET', 'PUT "1" a!', 'GET', 'PUT "2" b!'] },
      },
    ],
    [
      'gives up with the last 412 after maxAttempts',
      {
        given: [thing('"1"', 'a'), conflict(), thing('"2"', 'b'), conflict()],
        maxAttempts: 2,
        want: { outcome: '412', sent: ['GET', 'PUT "1" a!', 'GET', 'PUT "2" b!'] },
      },
    ],
    [
      'does not retry other errors',
      {
        given: [thing('"1"', 'a'), googleError(403, ['forbidden'])],
        want: { outcome: '403', sent: ['GET', 'PUT "1" a!'] },
      },
    ],
  ])('%s', async (_title, { given, maxAttempts, want }) => {
    const { fetch, requests } = scriptedFetch(...given);
    const client = testClient({ fetch, retry: false });
    const ids = { ownerId: 'o', thingId: 't' };
    const outcome = await updateWithEtag({
      read: () => client.things.get(ids),
      change: (current: Thing) => ({ name: `${current.name}!` }),
      write: (next, etag) => client.things.update({ ...ids, ...next, ifMatch: etag }),
      ...(maxAttempts ? { maxAttempts } : {}),
    }).then(
      (t) => t.name,
      (e: unknown) => (isPreconditionFailed(e) ? '412' : String((e as { status?: number }).status)),
    );
    expect(outcome).toBe(want.outcome);
    expect(
      requests.map((r) =>
        r.method === 'GET' ? 'GET' : `${r.method} ${r.headers['if-match']} ${(r.body as Thing).name}`,
      ),
    ).toEqual(want.sent);
  });

  it.each<[string, { etag?: string }, number | undefined, string | RegExp]>([
    ['a resource read without etag', {}, undefined, /read without an etag/],
    ['maxAttempts below 1', { etag: '"1"' }, 0, 'maxAttempts must be a whole number of at least 1; got 0'],
  ])('refuses %s', async (_title, current, maxAttempts, want) => {
    await expect(
      updateWithEtag({
        read: async () => current,
        change: (c) => c,
        write: async () => 'written',
        ...(maxAttempts !== undefined ? { maxAttempts } : {}),
      }),
    ).rejects.toThrow(want);
  });
});
