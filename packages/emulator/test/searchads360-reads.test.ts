/**
 * Search Ads 360 reads and the other writes: conversion.get and conversion.getByCustomerId
 * (date window, filters, paging, deprecation headers), conversion.updateAvailability,
 * reports.getIdMappingFile (the CSV, read back with @gspec/searchads360's own parser) and
 * savedColumns.list.
 */
import { parseIdMappingFile } from '@gspec/searchads360/id-mapping';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { worldOf } from '../src/apis/searchads360/state.ts';
import { useEmulator } from './support/harness.ts';
import {
  ADVERTISER,
  AGENCY,
  at,
  CUSTOMER,
  CUSTOMER_PATH,
  ENGINE,
  ENGINE_PATH,
  example,
  problems,
  purchase,
  responseExample,
  sa360,
  signup,
} from './support/searchads360.ts';

// Strict mode: these tests check the closed world of the seed and the examples, where an id no
// one named is refused; the default mode creates such ids on first use (searchads360-any-ids.test.ts).
const emu = useEmulator({ strict: true, users: { 'ana@example.com': 'ana@example.com' } });
const call = sa360(emu);

const NOVEMBER = { startDate: 20251101, endDate: 20251130, startRow: 0, rowCount: 1000 };
const ids = (reply: { body: { conversion?: { conversionId: string }[] } }) =>
  (reply.body.conversion ?? []).map((c) => c.conversionId);

describe('conversion.get and conversion.getByCustomerId', () => {
  beforeAll(async () => {
    await emu.reset();
    const inserted = await call('POST', '/conversion', {
      body: {
        conversion: [
          // Out of time order on purpose: answers come in conversion time order.
          purchase('p3', { conversionTimestamp: at('2025-11-30T12:00:00Z') }),
          purchase('p1', { conversionTimestamp: at('2025-11-20T08:30:00Z') }),
          signup('s1', { conversionTimestamp: at('2025-11-20T23:59:59.999Z') }),
          purchase('p2', { conversionTimestamp: at('2025-11-21T00:00:00Z') }),
          signup('s2', { conversionTimestamp: at('2025-12-01T00:00:00Z') }),
          signup('s0', { conversionTimestamp: at('2025-10-31T23:59:59.999Z') }),
        ],
      },
    });
    expect(inserted.status).toBe(200);
    const removed = await call('PUT', '/conversion', {
      body: {
        conversion: [purchase('p3', { conversionTimestamp: at('2025-11-30T12:00:00Z'), state: 'REMOVED' })],
      },
    });
    expect(removed.status).toBe(200);
  });

  it('lists the days from startDate to endDate, both whole (UTC, the default time zone), in time order, removed ones too', async () => {
    const all = await call('GET', ENGINE_PATH, { query: NOVEMBER });
    expect(all.status).toBe(200);
    expect(ids(all)).toEqual(['p1', 's1', 'p2', 'p3']);
    expect(all.body.conversion[3].state).toBe('REMOVED');
    const oneDay = await call('GET', ENGINE_PATH, {
      query: { ...NOVEMBER, startDate: 20251120, endDate: 20251120 },
    });
    expect(ids(oneDay)).toEqual(['p1', 's1']);
    const later = await call('GET', ENGINE_PATH, {
      query: { ...NOVEMBER, startDate: 20251121, endDate: 20251201 },
    });
    expect(ids(later)).toEqual(['p2', 'p3', 's2']);
  });

  const filters: [string, Record<string, string>, string[]][] = [
    ['adGroupId', { adGroupId: '58700000078244116' }, ['s1']],
    ['adId', { adId: '44700000219870333' }, ['p1', 'p2', 'p3']],
    ['criterionId', { criterionId: '43700000354112811' }, ['s1']],
    ['campaignId', { campaignId: '71700000001985613' }, ['p1', 's1', 'p2', 'p3']],
    ['a campaignId of nothing', { campaignId: '1' }, []],
    ['customerId', { customerId: CUSTOMER }, ['p1', 's1', 'p2', 'p3']],
    ['another customerId', { customerId: '999' }, []],
    ['adGroupId and adId together', { adGroupId: '58700000078244115', adId: '44700000219870334' }, []],
  ];

  it.each(filters)('narrows by %s', async (_title, filter, expected) => {
    const reply = await call('GET', ENGINE_PATH, { query: { ...NOVEMBER, ...filter } });
    expect(reply.status).toBe(200);
    expect(ids(reply)).toEqual(expected);
    // An empty slice has no list at all, as Google leaves empty lists out.
    if (expected.length === 0) expect(reply.body).toEqual({ kind: 'doubleclicksearch#conversionList' });
  });

  it('pages with startRow and rowCount until a slice is shorter than rowCount', async () => {
    const page = (startRow: number) =>
      call('GET', ENGINE_PATH, { query: { ...NOVEMBER, startRow, rowCount: 3 } });
    expect(ids(await page(0))).toEqual(['p1', 's1', 'p2']);
    expect(ids(await page(3))).toEqual(['p3']);
    expect(ids(await page(4))).toEqual([]);
    expect(ids(await page(1))).toEqual(['s1', 'p2', 'p3']);
  });

  it('finds the same conversions by customer id; the previous ids check the account', async () => {
    const byCustomer = await call('GET', CUSTOMER_PATH, { query: NOVEMBER });
    const byIds = await call('GET', ENGINE_PATH, { query: NOVEMBER });
    expect(byCustomer.body).toEqual(byIds.body);
    const checked = await call('GET', CUSTOMER_PATH, {
      query: {
        ...NOVEMBER,
        agencyId: AGENCY,
        advertiserId: ADVERTISER,
        engineAccountId: ENGINE,
        adGroupId: '58700000078244116',
      },
    });
    expect(ids(checked)).toEqual(['s1']);
    const other = await call('GET', CUSTOMER_PATH, { query: { ...NOVEMBER, engineAccountId: '1' } });
    expect(ids(other)).toEqual([]);
  });

  it('says in headers that both reads are deprecated, with the quarter and the way out', async () => {
    for (const path of [ENGINE_PATH, CUSTOMER_PATH]) {
      const reply = await call('GET', path, { query: NOVEMBER });
      expect(reply.headers.get('deprecation')).toBe(`@${Date.UTC(2025, 6, 1) / 1000}`);
      expect(reply.headers.get('x-emulator-deprecation')).toMatch(
        /^conversion\.get(ByCustomerId)? is deprecated since 2025-Q3\. Build a report on the conversion resource of the Search Ads 360 Reporting API/,
      );
    }
    const write = await call('POST', '/conversion', { body: { conversion: [signup('s9')] } });
    expect(write.headers.get('deprecation')).toBeNull();
  });

  const refused: [string, string, Record<string, unknown>, number, string[]][] = [
    [
      'an unknown agency',
      `/agency/1/advertiser/${ADVERTISER}/engine/${ENGINE}/conversion`,
      {},
      404,
      ['agencyId notFound'],
    ],
    [
      'an advertiser of another agency',
      `/agency/${AGENCY}/advertiser/2/engine/${ENGINE}/conversion`,
      {},
      404,
      ['advertiserId notFound'],
    ],
    [
      'an unknown engine account',
      `/agency/${AGENCY}/advertiser/${ADVERTISER}/engine/3/conversion`,
      {},
      404,
      ['engineAccountId notFound'],
    ],
    ['an unknown customer id', '/customer/42/conversion', {}, 404, ['customerId notFound']],
    ['a day that does not exist', ENGINE_PATH, { endDate: 20251131 }, 400, ['endDate invalid']],
    ['rowCount 0', ENGINE_PATH, { rowCount: 0 }, 400, ['rowCount invalid']],
    ['rowCount over 1000', CUSTOMER_PATH, { rowCount: 1001 }, 400, ['rowCount invalid']],
    ['a date before November 2009', ENGINE_PATH, { startDate: 20091031 }, 400, ['startDate invalid']],
    ['no startRow', ENGINE_PATH, { startRow: undefined }, 400, ['startRow required']],
  ];

  it.each(refused)('refuses %s', async (_title, path, change, status, expected) => {
    const query = Object.fromEntries(
      Object.entries({ ...NOVEMBER, ...change }).filter(([, value]) => value !== undefined),
    ) as Record<string, number>;
    const reply = await call('GET', path, { query });
    expect(reply.status).toBe(status);
    expect(problems(reply)).toEqual(expected);
  });

  it('answers a startDate after endDate as an empty window (decision 0057)', async () => {
    const reply = await call('GET', ENGINE_PATH, { query: { ...NOVEMBER, startDate: 20251201 } });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ kind: 'doubleclicksearch#conversionList' });
  });
});

describe('conversion.updateAvailability', () => {
  beforeEach(() => emu.reset());

  const recorded = () => worldOf(emu.emulator.store.state)?.availabilities[ADVERTISER] ?? {};

  it("records the spec's example batch and answers the spec's example answer", async () => {
    const reply = await call('POST', '/conversion/updateAvailability', {
      body: example('AvailabilityUpdate'),
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual(example('AvailabilityUpdated'));
    expect(Object.keys(recorded())).toEqual(['25700000001086214', '25700000001086230']);
  });

  it('replaces the moment of an activity with a later call, by id or name alike', async () => {
    await call('POST', '/conversion/updateAvailability', { body: example('AvailabilityUpdate') });
    const again = await call('POST', '/conversion/updateAvailability', {
      body: {
        availabilities: [
          {
            agencyId: AGENCY,
            advertiserId: ADVERTISER,
            segmentationType: 'FLOODLIGHT',
            segmentationId: '25700000001086214',
            availabilityTimestamp: '1763769600000',
          },
        ],
      },
    });
    expect(again.body.availabilities[0]).toMatchObject({
      segmentationName: 'Online purchase',
      availabilityTimestamp: '1763769600000',
    });
    expect(recorded()['25700000001086214']?.availabilityTimestamp).toBe('1763769600000');
    expect(recorded()['25700000001086230']?.availabilityTimestamp).toBe('1763683200000');
  });

  it("refuses an unknown activity as the spec's example shows, and records the rest of the batch", async () => {
    const batch = example('AvailabilityUpdate');
    batch.availabilities[1] = { ...batch.availabilities[0], segmentationName: 'Store visit' };
    const reply = await call('POST', '/conversion/updateAvailability', { body: batch });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual(responseExample('AvailabilityBatchRejected', 'unknownActivity'));
    expect(Object.keys(recorded())).toEqual(['25700000001086214']);
  });

  it("refuses a missing timestamp as the spec's example shows", async () => {
    const batch = example('AvailabilityUpdate');
    delete batch.availabilities[0].availabilityTimestamp;
    const reply = await call('POST', '/conversion/updateAvailability', {
      body: { availabilities: [batch.availabilities[0]] },
    });
    expect(reply.body).toEqual(responseExample('AvailabilityBatchRejected', 'missingTimestamp'));
  });

  const refused: [string, Record<string, unknown>, string[]][] = [
    ['an unknown advertiser', { advertiserId: '5' }, ['availabilities[0].advertiserId notFound']],
    ['an unknown agency', { agencyId: '6' }, ['availabilities[0].agencyId notFound']],
    ['no activity', { segmentationName: undefined }, ['availabilities[0].segmentationName required']],
    ['another customer id', { customerId: '999' }, ['availabilities[0].customerId invalid']],
    [
      'a timestamp that is not ms',
      { availabilityTimestamp: '-5' },
      ['availabilities[0].availabilityTimestamp invalid'],
    ],
    [
      'no timestamp at all',
      { availabilityTimestamp: undefined },
      ['availabilities[0].availabilityTimestamp required'],
    ],
  ];

  it.each(refused)('refuses %s', async (_title, change, expected) => {
    const row = { ...example('AvailabilityUpdate').availabilities[0], ...change };
    const reply = await call('POST', '/conversion/updateAvailability', {
      body: { availabilities: [JSON.parse(JSON.stringify(row))] },
    });
    expect(reply.status).toBe(400);
    expect(problems(reply)).toEqual(expected);
  });

  it('takes FLOODLIGHT as the segmentationType a row leaves out, as the reference says', async () => {
    const row = { ...example('AvailabilityUpdate').availabilities[0] };
    delete row.segmentationType;
    const reply = await call('POST', '/conversion/updateAvailability', { body: { availabilities: [row] } });
    expect(reply.status).toBe(200);
    expect(reply.body.availabilities[0].segmentationType).toBe('FLOODLIGHT');
  });

  it('refuses an empty batch by the schema (minItems 1)', async () => {
    const reply = await call('POST', '/conversion/updateAvailability', { body: { availabilities: [] } });
    expect(reply.status).toBe(400);
    expect(problems(reply)).toEqual(['availabilities invalid']);
  });
});

describe('reports.getIdMappingFile', () => {
  const path = `/agency/${AGENCY}/advertiser/${ADVERTISER}/idmapping`;

  it("answers the spec's example file for the example advertiser, as text/csv with a file name", async () => {
    const reply = await call('GET', path, { query: { alt: 'media' } });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(reply.headers.get('content-disposition')).toBe(
      `attachment; filename="id-mapping-${ADVERTISER}.csv"`,
    );
    expect(reply.text).toBe(example('IdMappingFile'));
  });

  it("is read by @gspec/searchads360's parser into the documented columns", async () => {
    const reply = await call('GET', path);
    const rows = [];
    for await (const row of parseIdMappingFile(reply.text)) rows.push(row);
    expect(rows.map((row) => [row.entityType, row.legacyEntityId, row.entityId])).toEqual([
      ['ENGINE_ACCOUNT', ENGINE, CUSTOMER],
      ['CAMPAIGN', '71700000001985613', '20318845671'],
      ['AD_GROUP', '58700000078244115', '151230977812'],
      ['AD', '44700000219870333', '151230977812~688721455120'],
      ['KEYWORD', '43700000354112809', '151230977812~1002336781'],
    ]);
    expect(rows[4]).toMatchObject({ entityName: 'running shoes, trail', customerId: CUSTOMER, other: {} });
  });

  it('is 404 naming the id for an unknown advertiser or agency', async () => {
    const advertiser = await call('GET', `/agency/${AGENCY}/advertiser/9/idmapping`);
    expect(advertiser.status).toBe(404);
    expect(problems(advertiser)).toEqual(['advertiserId notFound']);
    expect(advertiser.body.error.message).toBe(`Advertiser 9 is not found in agency ${AGENCY}.`);
    const agency = await call('GET', `/agency/8/advertiser/${ADVERTISER}/idmapping`);
    expect(problems(agency)).toEqual(['agencyId notFound']);
  });
});

describe('savedColumns.list', () => {
  it("answers the example advertiser's columns as the spec's example shows, and 404 for others", async () => {
    const reply = await call('GET', `/agency/${AGENCY}/advertiser/${ADVERTISER}/savedcolumns`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual(example('SavedColumns'));
    const unknown = await call('GET', `/agency/${AGENCY}/advertiser/7/savedcolumns`);
    expect(unknown.status).toBe(404);
    expect(problems(unknown)).toEqual(['advertiserId notFound']);
  });
});

describe('conversion.get after conversion.update', () => {
  beforeAll(async () => {
    await emu.reset();
  });

  it('answers a conversion as it is after an update, though it was listed before', async () => {
    const when = at('2025-11-25T10:00:00Z');
    await call('POST', '/conversion', {
      body: { conversion: [purchase('u1', { conversionTimestamp: when })] },
    });
    const day = { ...NOVEMBER, startDate: 20251125, endDate: 20251125 };
    const before = await call('GET', ENGINE_PATH, { query: day });
    expect(before.body.conversion).toEqual([
      expect.objectContaining({ conversionId: 'u1', state: 'ACTIVE' }),
    ]);
    const updated = await call('PUT', '/conversion', {
      body: { conversion: [purchase('u1', { conversionTimestamp: when, state: 'REMOVED' })] },
    });
    expect(updated.status).toBe(200);
    const after = await call('GET', ENGINE_PATH, { query: day });
    expect(after.body.conversion).toEqual([
      expect.objectContaining({ conversionId: 'u1', state: 'REMOVED' }),
    ]);
  });
});
