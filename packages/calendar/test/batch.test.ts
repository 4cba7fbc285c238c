/**
 * Calendar's batches: where they go, Calendar's limit of 50 calls, and the types of the builder
 * and the results (checked by `tsc --noEmit` of this package, which includes the tests). The
 * behaviour shared by every API's batches is tested in @gspec/runtime (test/batch.test.ts).
 */
import { type BatchPartResponse, encodeBatchResponse, parseBatchRequest } from '@gspec/runtime/multipart';
import { loadSpec } from '@gspec/specs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  type BatchCallError,
  type BatchResult,
  type CalendarListEntry,
  type Colors,
  calendarBatchLimit,
  createCalendarBatch,
  type Event,
  type Events,
  type GoogleApiError,
  type NotModified,
  type Trimmed,
} from '../src/index.ts';

/** A fetch that answers every batch part 200 with `{ id: <Content-ID> }`, recording what it was sent. */
function batchFetch() {
  const requests: { url: string; contentIds: string[]; targets: string[] }[] = [];
  const fetch = async (url: string, init: { headers: Record<string, string>; body?: string }) => {
    const parts = parseBatchRequest(init.headers['Content-Type'], init.body ?? '');
    requests.push({
      url,
      contentIds: parts.map((p) => p.contentId ?? ''),
      targets: parts.map((p) => `${p.method} ${p.target}`),
    });
    const { contentType, body } = encodeBatchResponse(
      parts.map(
        (part): BatchPartResponse => ({
          status: 200,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ id: part.contentId }),
          contentId: `response-${part.contentId}`,
        }),
      ),
    );
    return new Response(body, { headers: { 'content-type': contentType } });
  };
  return { fetch, requests };
}

describe('createCalendarBatch', () => {
  it('posts to /batch/calendar/v3 at the host of the live service, with the paths of the calls', async () => {
    const { fetch, requests } = batchFetch();
    const batch = createCalendarBatch({ accessToken: 't', fetch });
    await batch((b) => [
      b.events.get({ calendarId: 'primary', eventId: 'e1' }),
      b.calendarList.list({ maxResults: 5 }),
    ]);
    expect(requests).toEqual([
      {
        url: 'https://www.googleapis.com/batch/calendar/v3',
        contentIds: ['call-1', 'call-2'],
        targets: [
          'GET /calendar/v3/calendars/primary/events/e1',
          'GET /calendar/v3/users/me/calendarList?maxResults=5',
        ],
      },
    ]);
  });

  it('posts to /batch and the base path at the host of another base URL', async () => {
    const { fetch, requests } = batchFetch();
    const batch = createCalendarBatch({ baseUrl: 'http://127.0.0.1:4011/calendar/v3', fetch });
    await batch((b) => [b.colors.get()]);
    expect(requests.map((r) => [r.url, r.targets])).toEqual([
      ['http://127.0.0.1:4011/batch/calendar/v3', ['GET /calendar/v3/colors']],
    ]);
  });

  it("keeps to the spec's limit (x-batch.maxCalls of batch.execute)", () => {
    const { paths } = loadSpec('calendar') as unknown as {
      paths: Record<string, { post?: { 'x-batch'?: { maxCalls?: number } } }>;
    };
    expect(paths['/batch/calendar/v3']?.post?.['x-batch']?.maxCalls).toBe(calendarBatchLimit);
  });

  it('sends at most 50 calls in one request, and no more when asked', async () => {
    expect(calendarBatchLimit).toBe(50);
    const { fetch, requests } = batchFetch();
    const batch = createCalendarBatch({ fetch });
    const ids = Array.from({ length: 120 }, (_, i) => `e${i}`);
    const results = await batch((b) =>
      ids.map((eventId) => b.events.get({ calendarId: 'primary', eventId })),
    );
    expect(requests.map((r) => r.contentIds.length)).toEqual([50, 50, 20]);
    expect(results.map((r) => r.ok && r.value.id)).toEqual(ids.map((_, i) => `call-${i + 1}`));
    await expect(batch((b) => [b.colors.get()], { maxCalls: 51 })).rejects.toThrow(
      'maxCalls must be a whole number from 1 to 50',
    );
  });
});

describe('the types of a batch', () => {
  const calendarBatch = createCalendarBatch();

  it('takes each call’s argument as its resource method does, and types its result by the answer', () => {
    const batch = () =>
      calendarBatch((b) => [
        b.events.insert({
          calendarId: 'primary',
          start: { date: '2027-01-04' },
          end: { date: '2027-01-05' },
        }),
        b.events.get({ calendarId: 'primary', eventId: 'e' }),
        b.events.get({ calendarId: 'primary', eventId: 'e', fields: 'id,summary' }),
        b.events.get({ calendarId: 'primary', eventId: 'e', ifNoneMatch: '"1"' }),
        b.events.delete({ calendarId: 'primary', eventId: 'e' }),
        b.events.list({ calendarId: 'primary' }),
        b.calendarList.patch({ calendarId: 'c', colorId: '7' }),
        b.colors.get(),
      ]);
    expectTypeOf(batch).returns.resolves.toEqualTypeOf<
      [
        BatchResult<Event>,
        BatchResult<Event>,
        BatchResult<Trimmed<Event>>,
        BatchResult<Event | NotModified>,
        BatchResult<void>,
        BatchResult<Events>,
        BatchResult<CalendarListEntry>,
        BatchResult<Colors>,
      ]
    >();
  });

  it('gives an array of results for an array of calls', () => {
    const eventIds: string[] = [];
    const batch = () =>
      calendarBatch((b) => eventIds.map((eventId) => b.events.get({ calendarId: 'primary', eventId })));
    expectTypeOf(batch).returns.resolves.toEqualTypeOf<BatchResult<Event>[]>();
  });

  it('narrows a result by ok: the answer, or what failed the call', () => {
    const result = {} as BatchResult<Event>;
    if (result.ok) expectTypeOf(result.value).toEqualTypeOf<Event>();
    else {
      expectTypeOf(result.error).toEqualTypeOf<BatchCallError>();
      expectTypeOf<GoogleApiError>().toExtend<BatchCallError>();
    }
  });
});
