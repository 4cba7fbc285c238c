/**
 * The issue's proof: Google's own client (`googleapis`' doubleclicksearch v2, which nobody here
 * wrote), pointed at a fresh emulator in the default mode with ids of its own, runs all seven
 * Search Ads 360 operations the way a user writes them, and every call succeeds. The batch is
 * the natural one Google's guides show: an ACTION that gives a quantity and no count (most
 * advertisers cannot send `countMillis`, which Google reserves to those who asked its support),
 * and a TRANSACTION with its revenue and currency (decision 0057).
 */
import { google } from 'googleapis';
import { describe, expect, it } from 'vitest';
import { parseCsv } from '../src/apis/searchads360/csv.ts';
import { useEmulator } from './support/harness.ts';

/** Ids of the user's own, which no seed and no example names. */
const AGENCY = '41000000000000011';
const ADVERTISER = '42000000000000022';
const ENGINE = '43000000000000033';
const CUSTOMER = '4567890123';
const CAMPAIGN = '45000000000000055';
const AD_GROUP = '46000000000000066';
const KEYWORD = '47000000000000077';
const CLICK = 'Cj0KCQjw-users-own-click';

const WHEN = Date.parse('2026-05-12T09:15:00Z');
const MAY = { startDate: 20260501, endDate: 20260531, startRow: 0, rowCount: 100 };

const base = {
  agencyId: AGENCY,
  advertiserId: ADVERTISER,
  engineAccountId: ENGINE,
  customerId: CUSTOMER,
  campaignId: CAMPAIGN,
  adGroupId: AD_GROUP,
  criterionId: KEYWORD,
  segmentationType: 'FLOODLIGHT',
};

/** A lead: an action counted by its quantity, as Google's new-platform example sends one. */
const lead = {
  ...base,
  clickId: CLICK,
  conversionId: 'lead-20260512-1',
  conversionTimestamp: String(WHEN),
  segmentationName: 'Lead form',
  type: 'ACTION',
  quantityMillis: '1000',
};

/** A sale with its revenue and currency. */
const sale = {
  ...base,
  conversionId: 'order-20260512-7',
  conversionTimestamp: String(WHEN + 60_000),
  segmentationName: 'Purchase',
  type: 'TRANSACTION',
  revenueMicros: '89500000',
  currencyCode: 'USD',
  quantityMillis: '2000',
};

describe("googleapis' doubleclicksearch v2 against a fresh emulator, with a user's own ids", () => {
  const emu = useEmulator();

  it('runs all seven operations on a natural batch, and every call succeeds', async () => {
    await emu.reset();
    const auth = new google.auth.OAuth2();
    auth.setCredentials({ access_token: 'marketing@example.com' });
    const ds = google.doubleclicksearch({ version: 'v2', auth, rootUrl: `${emu.origin}/` });

    // conversion.insert
    const inserted = await ds.conversion.insert({ requestBody: { conversion: [lead, sale] } });
    expect(inserted.status).toBe(200);
    const [storedLead, storedSale] = inserted.data.conversion ?? [];
    expect(storedLead).toMatchObject({ type: 'ACTION', quantityMillis: '1000', state: 'ACTIVE' });
    expect(storedLead?.countMillis).toBeUndefined();
    expect(storedSale).toMatchObject({
      revenueMicros: '89500000',
      currencyCode: 'USD',
      quantityMillis: '2000',
    });
    expect(storedLead?.dsConversionId).toMatch(/^\d+$/);

    // conversion.get and conversion.getByCustomerId (deprecated, still answered)
    const listed = await ds.conversion.get({
      agencyId: AGENCY,
      advertiserId: ADVERTISER,
      engineAccountId: ENGINE,
      ...MAY,
    });
    expect(listed.status).toBe(200);
    expect(listed.data.conversion?.map((c) => [c.conversionId, c.quantityMillis])).toEqual([
      ['lead-20260512-1', '1000'],
      ['order-20260512-7', '2000'],
    ]);
    const byCustomer = await ds.conversion.getByCustomerId({ customerId: CUSTOMER, ...MAY });
    expect(byCustomer.status).toBe(200);
    expect(byCustomer.data.conversion).toEqual(listed.data.conversion);

    // conversion.update: the lead counts three, the sale's revenue is corrected.
    const updated = await ds.conversion.update({
      requestBody: {
        conversion: [
          { ...lead, quantityMillis: '3000' },
          { ...sale, revenueMicros: '79500000' },
        ],
      },
    });
    expect(updated.status).toBe(200);
    expect(updated.data.conversion?.map((c) => [c.quantityMillis, c.revenueMicros ?? null])).toEqual([
      ['3000', null],
      ['2000', '79500000'],
    ]);
    const reread = await ds.conversion.getByCustomerId({ customerId: CUSTOMER, ...MAY });
    expect(reread.data.conversion).toEqual(updated.data.conversion);

    // conversion.updateAvailability
    const recorded = await ds.conversion.updateAvailability({
      requestBody: {
        availabilities: [
          {
            agencyId: AGENCY,
            advertiserId: ADVERTISER,
            segmentationType: 'FLOODLIGHT',
            segmentationName: 'Purchase',
            availabilityTimestamp: String(WHEN + 3_600_000),
          },
        ],
      },
    });
    expect(recorded.status).toBe(200);
    expect(recorded.data.availabilities?.[0]).toMatchObject({
      segmentationName: 'Purchase',
      segmentationId: storedSale?.segmentationId,
    });

    // reports.getIdMappingFile: the engine account is there with its customer id.
    const file = await ds.reports.getIdMappingFile({ agencyId: AGENCY, advertiserId: ADVERTISER });
    expect(file.status).toBe(200);
    const rows = parseCsv(String(file.data));
    expect(rows[0]?.[0]).toBe('Entity type');
    expect(rows.slice(1)).toEqual([
      ['ENGINE_ACCOUNT', AGENCY, ADVERTISER, ENGINE, ENGINE, CUSTOMER, CUSTOMER, ''],
    ]);

    // savedColumns.list: an advertiser without saved columns.
    const columns = await ds.savedColumns.list({ agencyId: AGENCY, advertiserId: ADVERTISER });
    expect(columns.status).toBe(200);
    expect(columns.data).toEqual({ kind: 'doubleclicksearch#savedColumnList' });
  });
});
