/**
 * Days in the advertiser's time zone (decision 0057): Search Ads 360 dates a Floodlight
 * conversion in the advertiser's time zone, so the reads' `startDate` and `endDate` are days of
 * that zone. A seed gives an advertiser its zone (`timeZone`); one without, and one created on
 * first use, is in the emulator's default, UTC.
 */
import { describe, expect, it } from 'vitest';
import { dayOf, dayStart, nextDay } from '../src/apis/searchads360/days.ts';
import type { SearchAds360Seed } from '../src/apis/searchads360/seed.ts';
import { worldOf } from '../src/apis/searchads360/state.ts';
import { applySeed, SeedError } from '../src/core/seed.ts';
import { parseSeed } from '../src/emulator.ts';
import { useEmulator } from './support/harness.ts';
import { at, sa360 } from './support/searchads360.ts';

/** An advertiser of the seed in `timeZone`, with an engine account, a click and an activity. */
const advertiser = (n: number, timeZone?: string) => ({
  id: `${n}00`,
  currencyCode: 'USD',
  ...(timeZone ? { timeZone } : {}),
  floodlightActivities: [{ id: `${n}01`, name: 'Order' }],
  engineAccounts: [
    {
      id: `${n}02`,
      customerId: `${n}03`,
      campaigns: [{ id: `${n}04`, adGroups: [{ id: `${n}05` }] }],
      clicks: [{ clickId: `click-${n}`, adGroupId: `${n}05` }],
    },
  ],
});

const SEED: SearchAds360Seed = {
  exampleEntities: false,
  agencies: [
    {
      id: '10',
      advertisers: [advertiser(1, 'Asia/Tokyo'), advertiser(2, 'America/New_York'), advertiser(3)],
    },
  ],
};

/** 23:30 UTC on 2 March 2026: 08:30 on 3 March in Tokyo, 18:30 on 2 March in New York. */
const LATE = at('2026-03-02T23:30:00Z');

const order = (n: number, conversionTimestamp = LATE) => ({
  agencyId: '10',
  advertiserId: `${n}00`,
  clickId: `click-${n}`,
  conversionId: `order-${n}`,
  conversionTimestamp,
  segmentationType: 'FLOODLIGHT',
  segmentationName: 'Order',
  type: 'TRANSACTION',
  revenueMicros: '1000000',
});

const emu = useEmulator();
const call = sa360(emu);

async function seeded(section: SearchAds360Seed = SEED): Promise<void> {
  await emu.reset();
  applySeed(emu.emulator, parseSeed(structuredClone({ searchads360: section }), 'seed.json'), 'seed.json');
}

/** The conversionIds both reads answer for one day of advertiser `n`, which must agree. */
async function onDay(n: number, day: number): Promise<string[]> {
  const query = { startDate: day, endDate: day, startRow: 0, rowCount: 10 };
  const byIds = await call('GET', `/agency/10/advertiser/${n}00/engine/${n}02/conversion`, { query });
  const byCustomer = await call('GET', `/customer/${n}03/conversion`, { query });
  expect(byIds.status).toBe(200);
  expect(byCustomer.body).toEqual(byIds.body);
  return (byIds.body.conversion ?? []).map((c: { conversionId: string }) => c.conversionId);
}

describe("conversion days in the advertiser's time zone", () => {
  it('dates a conversion at 23:30 UTC on the next day in Tokyo and the same day in New York, for both reads', async () => {
    await seeded();
    const inserted = await call('POST', '/conversion', {
      body: { conversion: [order(1), order(2), order(3)] },
    });
    expect(inserted.status).toBe(200);
    expect(await onDay(1, 20260303)).toEqual(['order-1']);
    expect(await onDay(1, 20260302)).toEqual([]);
    expect(await onDay(2, 20260302)).toEqual(['order-2']);
    expect(await onDay(2, 20260303)).toEqual([]);
    // Without a time zone of its own: UTC.
    expect(await onDay(3, 20260302)).toEqual(['order-3']);
  });

  it("cuts the days at the zone's midnight, on either side of it", async () => {
    await seeded();
    const tokyoMidnight = Date.parse('2026-03-02T15:00:00Z');
    const reply = await call('POST', '/conversion', {
      body: {
        conversion: [
          { ...order(1, String(tokyoMidnight - 1)), conversionId: 'before' },
          { ...order(1, String(tokyoMidnight)), conversionId: 'at' },
        ],
      },
    });
    expect(reply.status).toBe(200);
    expect(await onDay(1, 20260302)).toEqual(['before']);
    expect(await onDay(1, 20260303)).toEqual(['at']);
  });

  it('shows the zone and each conversion’s day in the inspector’s views', async () => {
    await seeded();
    await call('POST', '/conversion', { body: { conversion: [order(1)] } });
    const view = (name: string) =>
      emu.call('GET', `/__emulator/apis/searchads360/${name}`, {
        query: { advertiserId: '100' },
        token: null,
      });
    const conversions = (await view('conversions')).body;
    expect(conversions.timeZone).toBe('Asia/Tokyo');
    expect(conversions.days).toEqual({ [`${LATE}:order-1`]: '2026-03-03' });
    const listed = (await emu.call('GET', '/__emulator/apis/searchads360/advertisers', { token: null })).body;
    expect(
      listed.agencies[0].advertisers.map((a: { id: string; timeZone: string }) => [a.id, a.timeZone]),
    ).toEqual([
      ['100', 'Asia/Tokyo'],
      ['200', 'America/New_York'],
      ['300', 'UTC'],
    ]);
  });

  it('gives an advertiser created on first use the default, UTC', async () => {
    await emu.reset();
    const reply = await call('POST', '/conversion', {
      body: {
        conversion: [
          {
            agencyId: '51000000000000001',
            advertiserId: '52000000000000002',
            engineAccountId: '53000000000000003',
            clickId: 'made-up-click',
            conversionId: 'c-1',
            conversionTimestamp: LATE,
            segmentationType: 'FLOODLIGHT',
            segmentationName: 'Lead',
            type: 'ACTION',
            quantityMillis: '1000',
          },
        ],
      },
    });
    expect(reply.status).toBe(200);
    const made = worldOf(emu.emulator.store.state)?.agencies['51000000000000001']?.advertisers[
      '52000000000000002'
    ];
    expect(made?.timeZone).toBe('UTC');
    const path = '/agency/51000000000000001/advertiser/52000000000000002/engine/53000000000000003/conversion';
    const query = { startDate: 20260302, endDate: 20260302, startRow: 0, rowCount: 10 };
    expect((await call('GET', path, { query })).body.conversion).toHaveLength(1);
  });

  it('keeps the zone in a dumped state, and takes a seed’s zone in its canonical spelling', async () => {
    await seeded({ agencies: [{ id: '10', advertisers: [advertiser(1, 'asia/tokyo')] }] });
    const dump = (await call('GET', '/__emulator/state')).body;
    expect(dump.searchads360.agencies['10'].advertisers['100'].timeZone).toBe('Asia/Tokyo');
    await emu.reset();
    expect((await call('PUT', '/__emulator/state', { body: dump })).status).toBe(204);
    await call('POST', '/conversion', { body: { conversion: [order(1)] } });
    expect(await onDay(1, 20260303)).toEqual(['order-1']);
    // A state with a zone Node does not know is refused, naming the place.
    dump.searchads360.agencies['10'].advertisers['100'].timeZone = 'Mars/Olympus';
    const refused = await call('PUT', '/__emulator/state', { body: dump });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain('/searchads360/agencies/10/advertisers/100/timeZone');
  });

  it('refuses a seed whose time zone Node does not know, naming the entry', async () => {
    await emu.reset();
    const section = { agencies: [{ id: '10', advertisers: [advertiser(1, 'Europe/Atlantis')] }] };
    expect(() =>
      applySeed(
        emu.emulator,
        parseSeed(structuredClone({ searchads360: section }), 'seed.json'),
        'seed.json',
      ),
    ).toThrow(SeedError);
    expect(() =>
      applySeed(
        emu.emulator,
        parseSeed(structuredClone({ searchads360: section }), 'seed.json'),
        'seed.json',
      ),
    ).toThrow(/searchads360\.agencies\[0\]\.advertisers\[0\]\.timeZone/);
  });
});

describe('days.ts', () => {
  it('starts a day whose midnight a clock change skips when the clock resumes', () => {
    // Chile moves its clocks from midnight to 01:00 on the first Sunday of September.
    const start = dayStart(20250907, 'America/Santiago');
    expect(dayOf(start, 'America/Santiago')).toBe(20250907);
    expect(dayOf(start - 1, 'America/Santiago')).toBe(20250906);
  });

  it('runs to the last day the reads take, and past it', () => {
    expect(nextDay(99991231)).toBe(100000101);
    expect(dayStart(nextDay(99991231), 'UTC')).toBe(Date.UTC(10000, 0, 1));
    expect(nextDay(20240228)).toBe(20240229);
  });
});
