import { describe, expect, it } from 'vitest';
import { batchBounds } from '../src/conversions.ts';
import {
  type ConversionInput,
  ConversionUploadError,
  createSearchAds360Client,
  DuplicateConversionError,
  insertConversions,
  updateConversions,
} from '../src/index.ts';
import { badRequest, scriptedFetch } from './support.ts';

const row = (n: number, timestamp = '1763627400000'): ConversionInput => ({
  agencyId: '1',
  advertiserId: '2',
  conversionId: `order-${n}`,
  conversionTimestamp: timestamp,
  segmentationType: 'FLOODLIGHT',
  type: 'ACTION',
  countMillis: '1000',
});
const rows = (count: number) => Array.from({ length: count }, (_, i) => row(i));
const stored = (body: unknown) =>
  Response.json({ kind: 'doubleclicksearch#conversionList', ...(body as object) });

describe('insertConversions', () => {
  it.each<[string, { given: { count: number; batchSize: number }; want: number[] }]>([
    ['one request for a small batch', { given: { count: 3, batchSize: 200 }, want: [3] }],
    ['splits 5 rows into batches of 2', { given: { count: 5, batchSize: 2 }, want: [2, 2, 1] }],
    ['sends nothing for no rows', { given: { count: 0, batchSize: 2 }, want: [] }],
  ])('%s', async (_title, { given, want }) => {
    const { fetch, requests } = scriptedFetch(stored);
    const result = await insertConversions(createSearchAds360Client({ fetch }), rows(given.count), {
      batchSize: given.batchSize,
    });
    expect(requests.map((r) => (r.body as { conversion: unknown[] }).conversion.length)).toEqual(want);
    expect(result.stored.map((c) => c.answer?.conversionId)).toEqual(
      rows(given.count).map((c) => c.conversionId),
    );
    expect(result.stored.map((c) => c.index)).toEqual(rows(given.count).map((_, i) => i));
    expect(result.failed).toEqual([]);
    expect(result.alreadyStored).toEqual([]);
  });

  it('maps every refused row of a batch back to its input, and reports the rows the answer does not name as stored', async () => {
    const { fetch } = scriptedFetch(
      stored,
      badRequest(
        ['conversion[1].conversionTimestamp', 'required'],
        ['conversion[1].revenueMicros', 'invalid'],
        ['conversion[0].clickId', 'notFound'],
      ),
      stored,
    );
    const input = rows(7);
    const result = await insertConversions(createSearchAds360Client({ fetch }), input, { batchSize: 3 });
    expect(
      result.failed.map((f) => ({
        index: f.index,
        id: f.conversion.conversionId,
        problems: f.errors.map((e) => `${e.field}:${e.reason}`),
      })),
    ).toEqual([
      { index: 3, id: 'order-3', problems: ['clickId:notFound'] },
      { index: 4, id: 'order-4', problems: ['conversionTimestamp:required', 'revenueMicros:invalid'] },
    ]);
    // Best effort: row 5 of the refused batch was stored; it has no answer of its own.
    expect(result.stored.map((c) => [c.index, c.conversion.conversionId, c.answer !== undefined])).toEqual([
      [0, 'order-0', true],
      [1, 'order-1', true],
      [2, 'order-2', true],
      [5, 'order-5', false],
      [6, 'order-6', true],
    ]);
    expect(result).not.toHaveProperty('resend');
  });

  it('reports a row answered duplicate alone as stored before, and one with other problems as failed', async () => {
    const { fetch } = scriptedFetch(
      badRequest(
        ['conversion[0].conversionId', 'duplicate'],
        ['conversion[2].conversionId', 'duplicate'],
        ['conversion[2].revenueMicros', 'invalid'],
      ),
    );
    const result = await insertConversions(createSearchAds360Client({ fetch }), rows(4));
    expect(result.alreadyStored.map((r) => [r.index, r.error.reason])).toEqual([[0, 'duplicate']]);
    expect(result.failed.map((f) => [f.index, f.errors.map((e) => e.reason)])).toEqual([
      [2, ['duplicate', 'invalid']],
    ]);
    expect(result.stored.map((r) => r.index)).toEqual([1, 3]);
  });

  it('gives a problem that names no row to every row of its batch', async () => {
    const { fetch } = scriptedFetch(badRequest([undefined, 'invalid']));
    const result = await insertConversions(createSearchAds360Client({ fetch }), rows(2));
    expect(result.failed.map((f) => [f.index, f.errors[0]?.reason])).toEqual([
      [0, 'invalid'],
      [1, 'invalid'],
    ]);
  });

  it.each<[string, { given: ConversionInput[]; want: string }]>([
    [
      'the same conversionId and conversionTimestamp twice',
      {
        given: [row(1), row(2), row(1)],
        want: 'conversion[2] repeats conversionId "order-1" and conversionTimestamp "1763627400000" of conversion[0]',
      },
    ],
  ])('refuses %s before sending anything', async (_title, { given, want }) => {
    const { fetch, requests } = scriptedFetch(stored);
    const error = await insertConversions(createSearchAds360Client({ fetch }), given).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DuplicateConversionError);
    expect((error as Error).message).toContain(want);
    expect(requests).toHaveLength(0);
  });

  it('sends the same conversionId at another timestamp in a request of its own (the service refuses it repeated within one)', async () => {
    const { fetch, requests } = scriptedFetch(stored);
    const result = await insertConversions(createSearchAds360Client({ fetch }), [
      row(1),
      row(2),
      row(1, '1763627400001'),
      row(3),
    ]);
    const sent = requests.map((r) =>
      (r.body as { conversion: ConversionInput[] }).conversion.map((c) => [
        c.conversionId,
        c.conversionTimestamp,
      ]),
    );
    expect(sent).toEqual([
      [
        ['order-1', '1763627400000'],
        ['order-2', '1763627400000'],
      ],
      [
        ['order-1', '1763627400001'],
        ['order-3', '1763627400000'],
      ],
    ]);
    expect(result.stored.map((c) => c.index)).toEqual([0, 1, 2, 3]);
  });

  it.each<[string, (string | undefined)[], number, [number, number][]]>([
    [
      'no repeats: by size',
      ['a', 'b', 'c'],
      2,
      [
        [0, 2],
        [2, 3],
      ],
    ],
    [
      'a repeat ends the batch before it',
      ['a', 'b', 'a', 'c'],
      10,
      [
        [0, 2],
        [2, 4],
      ],
    ],
    [
      'a repeat right after',
      ['a', 'a', 'a'],
      10,
      [
        [0, 1],
        [1, 2],
        [2, 3],
      ],
    ],
    ['rows without an id never end a batch', [undefined, undefined, 'a'], 10, [[0, 3]]],
    [
      'size and repeat together',
      ['a', 'b', 'c', 'a'],
      3,
      [
        [0, 3],
        [3, 4],
      ],
    ],
    ['nothing', [], 2, []],
  ])('batchBounds: %s', (_title, ids, size, want) => {
    const conversions = ids.map((id, i) => ({ ...row(i), conversionId: id }));
    expect(batchBounds(conversions, size)).toEqual(want);
  });

  it('stops on an error that is not about rows, saying what was done before', async () => {
    const { fetch } = scriptedFetch(
      stored,
      Response.json(
        { error: { code: 403, message: 'no', errors: [{ reason: 'forbidden' }] } },
        { status: 403 },
      ),
    );
    const error = await insertConversions(createSearchAds360Client({ fetch }), rows(4), {
      batchSize: 2,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConversionUploadError);
    expect(error).toMatchObject({
      firstUnsentIndex: 2,
      result: {
        stored: [
          { index: 0, answer: { conversionId: 'order-0' } },
          { index: 1, answer: { conversionId: 'order-1' } },
        ],
      },
    });
  });
});

describe('updateConversions', () => {
  it('sends the batches with conversion.update (PUT)', async () => {
    const { fetch, requests } = scriptedFetch(stored);
    await updateConversions(createSearchAds360Client({ fetch }), rows(3), { batchSize: 2 });
    expect(requests.map((r) => r.method)).toEqual(['PUT', 'PUT']);
  });
});
