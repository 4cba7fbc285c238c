/**
 * Any ids work by default (decision 0035): a fresh emulator takes the agencies, advertisers,
 * engine accounts, entities, clicks and Floodlight activities a Search Ads 360 request names
 * and creates them on first use, as Calendar creates the user of any token; strict mode keeps
 * refusing what no seed names. Checked for all seven operations, over HTTP and through
 * Google's own client (googleapis), which nobody here wrote.
 */
import { google } from 'googleapis';
import { describe, expect, it } from 'vitest';
import { parseCsv } from '../src/apis/searchads360/csv.ts';
import { worldOf } from '../src/apis/searchads360/state.ts';
import { useEmulator } from './support/harness.ts';
import { problems, sa360 } from './support/searchads360.ts';

/** Made-up ids that no seed and no example names. */
const AGENCY = '31000000000000001';
const ADVERTISER = '32000000000000002';
const ENGINE = '33000000000000003';
const CUSTOMER = '3456789012';
const ACTIVITY = '34000000000000004';
const CAMPAIGN = '35000000000000005';
const AD_GROUP = '36000000000000006';
const AD = '37000000000000007';
const CLICK = 'Cj0KCQiAgspec-made-up-click';

const ENGINE_PATH = `/agency/${AGENCY}/advertiser/${ADVERTISER}/engine/${ENGINE}/conversion`;
const WINDOW = { startDate: 20261101, endDate: 20261130, startRow: 0, rowCount: 100 };

/** A sale on a click of a team's own account, as their uploader would send it. */
const sale = (conversionId: string, extra: Record<string, unknown> = {}) => ({
  agencyId: AGENCY,
  advertiserId: ADVERTISER,
  engineAccountId: ENGINE,
  customerId: CUSTOMER,
  campaignId: CAMPAIGN,
  adGroupId: AD_GROUP,
  adId: AD,
  clickId: CLICK,
  conversionId,
  conversionTimestamp: String(Date.parse('2026-11-20T10:00:00Z')),
  segmentationType: 'FLOODLIGHT',
  segmentationId: ACTIVITY,
  segmentationName: 'Checkout',
  type: 'TRANSACTION',
  revenueMicros: '49990000',
  currencyCode: 'CHF',
  ...extra,
});

const availability = {
  agencyId: AGENCY,
  advertiserId: ADVERTISER,
  segmentationType: 'FLOODLIGHT',
  segmentationName: 'Store visit',
  availabilityTimestamp: String(Date.parse('2026-11-21T00:00:00Z')),
};

describe('default mode: ids no seed names are created on first use', () => {
  const emu = useEmulator();
  const call = sa360(emu);

  it('answers the reads of never-named ids as empty, writing nothing', async () => {
    await emu.reset();
    const reads = [
      await call('GET', ENGINE_PATH, { query: WINDOW }),
      await call('GET', `/customer/${CUSTOMER}/conversion`, { query: WINDOW }),
      await call('GET', `/agency/${AGENCY}/advertiser/${ADVERTISER}/savedcolumns`),
    ];
    expect(reads.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(reads.map((r) => r.body.conversion ?? r.body.items ?? null)).toEqual([null, null, null]);
    const file = await call('GET', `/agency/${AGENCY}/advertiser/${ADVERTISER}/idmapping`);
    expect(file.status).toBe(200);
    expect(parseCsv(file.text)).toHaveLength(1);
    expect(worldOf(emu.emulator.store.state)).toBeUndefined();
  });

  it("takes a row named by the new platform's customer id alone once its account is known", async () => {
    await emu.reset();
    expect((await call('POST', '/conversion', { body: { conversion: [sale('c-1')] } })).status).toBe(200);
    // The new-platform guide's shape: the customer id instead of agency, advertiser and engine ids.
    const byCustomer = {
      customerId: CUSTOMER,
      conversionId: 'c-2',
      conversionTimestamp: String(Date.parse('2026-11-20T11:00:00Z')),
      segmentationType: 'FLOODLIGHT',
      segmentationName: 'Checkout',
      type: 'ACTION',
      quantityMillis: '1000',
    };
    const inserted = await call('POST', '/conversion', { body: { conversion: [byCustomer] } });
    expect(inserted.status).toBe(200);
    expect(inserted.body.conversion[0]).toMatchObject({
      agencyId: AGENCY,
      advertiserId: ADVERTISER,
      engineAccountId: ENGINE,
      customerId: CUSTOMER,
      quantityMillis: '1000',
    });
    const read = await call('GET', `/customer/${CUSTOMER}/conversion`, { query: WINDOW });
    expect(read.body.conversion.map((c: { conversionId: string }) => c.conversionId)).toEqual(['c-1', 'c-2']);
    // A customer id no account has: the emulator cannot make up the agency and advertiser.
    const unknown = await call('POST', '/conversion', {
      body: { conversion: [{ ...byCustomer, customerId: '9999999999', conversionId: 'c-3' }] },
    });
    expect(unknown.status).toBe(400);
    expect(problems(unknown)).toEqual(['conversion[0].customerId notFound']);
    expect(unknown.body.error.errors[0].message).toMatch(/9999999999/);
  });

  it('runs all seven operations with made-up ids', async () => {
    await emu.reset();
    const inserted = await call('POST', '/conversion', { body: { conversion: [sale('s-1')] } });
    expect(inserted.status).toBe(200);
    expect(inserted.body.conversion[0]).toMatchObject({
      engineAccountId: ENGINE,
      customerId: CUSTOMER,
      adGroupId: AD_GROUP,
      segmentationId: ACTIVITY,
      segmentationName: 'Checkout',
      state: 'ACTIVE',
    });
    // The click is known now: a second sale on it needs only the click id.
    const again = await call('POST', '/conversion', {
      body: {
        conversion: [
          {
            ...sale('s-2'),
            engineAccountId: undefined,
            customerId: undefined,
            campaignId: undefined,
            adGroupId: undefined,
            adId: undefined,
          },
        ],
      },
    });
    expect(again.status).toBe(200);
    expect(again.body.conversion[0]).toMatchObject({
      engineAccountId: ENGINE,
      adId: AD,
      campaignId: CAMPAIGN,
    });

    const updated = await call('PUT', '/conversion', {
      body: { conversion: [sale('s-1', { revenueMicros: '39990000' })] },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.conversion[0].revenueMicros).toBe('39990000');

    const recorded = await call('POST', '/conversion/updateAvailability', {
      body: { availabilities: [availability] },
    });
    expect(recorded.status).toBe(200);
    expect(recorded.body.availabilities[0]).toMatchObject({ segmentationName: 'Store visit' });
    expect(recorded.body.availabilities[0].segmentationId).toMatch(/^\d+$/);

    const listed = await call('GET', ENGINE_PATH, { query: WINDOW });
    expect(listed.body.conversion.map((c: { conversionId: string }) => c.conversionId)).toEqual([
      's-1',
      's-2',
    ]);
    const byCustomer = await call('GET', `/customer/${CUSTOMER}/conversion`, { query: WINDOW });
    expect(byCustomer.body.conversion).toHaveLength(2);
    const columns = await call('GET', `/agency/${AGENCY}/advertiser/${ADVERTISER}/savedcolumns`);
    expect(columns.status).toBe(200);
    const file = await call('GET', `/agency/${AGENCY}/advertiser/${ADVERTISER}/idmapping`);
    expect(parseCsv(file.text).slice(1)).toEqual([
      ['ENGINE_ACCOUNT', AGENCY, ADVERTISER, ENGINE, ENGINE, CUSTOMER, CUSTOMER, ''],
    ]);
  });

  it('still checks what it created: an engine account keeps its customer id, an ad group its campaign', async () => {
    await emu.reset();
    expect((await call('POST', '/conversion', { body: { conversion: [sale('s-1')] } })).status).toBe(200);
    const byIds = { clickId: undefined, adId: undefined };
    const reply = await call('POST', '/conversion', {
      body: {
        conversion: [
          sale('s-2', { ...byIds, customerId: '9999999999' }),
          sale('s-3', { ...byIds, campaignId: '35000000000000099' }),
        ],
      },
    });
    expect(problems(reply)).toEqual(['conversion[0].customerId invalid', 'conversion[1].campaignId invalid']);
  });

  it('stores what it cannot check as sent: a known click with other ids, a revenue without a currency', async () => {
    await emu.reset();
    expect((await call('POST', '/conversion', { body: { conversion: [sale('s-1')] } })).status).toBe(200);
    const reply = await call('POST', '/conversion', {
      body: {
        conversion: [
          sale('s-2', { adGroupId: '36000000000000099' }),
          sale('s-3', { advertiserId: '32000000000000077', currencyCode: undefined }),
        ],
      },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.conversion[0]).toMatchObject({ clickId: CLICK, adGroupId: '36000000000000099' });
    // An advertiser created on first use has no currency of its own to give the revenue.
    expect(reply.body.conversion[1].revenueMicros).toBe('49990000');
    expect(reply.body.conversion[1].currencyCode).toBeUndefined();
  });

  it('dumps and loads back what it created on first use', async () => {
    await emu.reset();
    expect((await call('POST', '/conversion', { body: { conversion: [sale('s-1')] } })).status).toBe(200);
    // By its id alone: an activity without a name.
    const byId = { ...availability, segmentationName: undefined, segmentationId: '34000000000000009' };
    const recorded = await call('POST', '/conversion/updateAvailability', {
      body: { availabilities: [JSON.parse(JSON.stringify(byId))] },
    });
    expect(recorded.status).toBe(200);
    const dump = (await call('GET', '/__emulator/state')).body;
    const listed = await call('GET', ENGINE_PATH, { query: WINDOW });
    await emu.reset();
    expect((await call('PUT', '/__emulator/state', { body: dump })).status).toBe(204);
    expect((await call('GET', ENGINE_PATH, { query: WINDOW })).body).toEqual(listed.body);
    const next = await call('POST', '/conversion', {
      body: {
        conversion: [{ ...sale('s-2'), adGroupId: undefined, adId: undefined, campaignId: undefined }],
      },
    });
    expect(next.body.conversion[0]).toMatchObject({ adId: AD, segmentationName: 'Checkout' });
  });

  it('keeps an advertiser of another agency unknown', async () => {
    await emu.reset();
    expect((await call('POST', '/conversion', { body: { conversion: [sale('s-1')] } })).status).toBe(200);
    const reply = await call('POST', '/conversion', {
      body: { conversion: [sale('s-2', { agencyId: '31000000000000099' })] },
    });
    expect(problems(reply)).toEqual(['conversion[0].advertiserId notFound']);
  });

  it("runs all seven operations through googleapis' doubleclicksearch client", async () => {
    await emu.reset();
    const auth = new google.auth.OAuth2();
    auth.setCredentials({ access_token: 'team@example.com' });
    const ds = google.doubleclicksearch({ version: 'v2', auth, rootUrl: `${emu.origin}/` });

    const inserted = await ds.conversion.insert({ requestBody: { conversion: [sale('g-1')] } });
    expect(inserted.status).toBe(200);
    expect(inserted.data.conversion?.[0]?.dsConversionId).toMatch(/^\d+$/);
    const updated = await ds.conversion.update({
      requestBody: { conversion: [sale('g-1', { state: 'REMOVED' })] },
    });
    expect(updated.data.conversion?.[0]?.state).toBe('REMOVED');
    const recorded = await ds.conversion.updateAvailability({
      requestBody: { availabilities: [availability] },
    });
    expect(recorded.data.availabilities).toHaveLength(1);
    const listed = await ds.conversion.get({
      agencyId: AGENCY,
      advertiserId: ADVERTISER,
      engineAccountId: ENGINE,
      ...WINDOW,
    });
    expect(listed.data.conversion?.map((c) => c.conversionId)).toEqual(['g-1']);
    const byCustomer = await ds.conversion.getByCustomerId({ customerId: CUSTOMER, ...WINDOW });
    expect(byCustomer.data.conversion?.map((c) => c.state)).toEqual(['REMOVED']);
    const columns = await ds.savedColumns.list({ agencyId: AGENCY, advertiserId: ADVERTISER });
    expect(columns.data.kind).toBe('doubleclicksearch#savedColumnList');
    const file = await ds.reports.getIdMappingFile(
      { agencyId: AGENCY, advertiserId: ADVERTISER },
      { responseType: 'text' },
    );
    expect(String(file.data)).toContain(`ENGINE_ACCOUNT,${AGENCY},${ADVERTISER},${ENGINE}`);
  });
});

describe('strict mode: what no seed names is refused', () => {
  const emu = useEmulator({ strict: true, users: { 'team-token': 'team@example.com' } });
  const call = sa360(emu);
  const as = { token: 'team-token' };

  it.each<[string, string, string, Record<string, unknown>, number, string]>([
    [
      'conversion.insert',
      'POST',
      '/conversion',
      { conversion: [sale('s-1')] },
      400,
      'conversion[0].agencyId notFound',
    ],
    [
      'conversion.update',
      'PUT',
      '/conversion',
      { conversion: [sale('s-1')] },
      400,
      'conversion[0].agencyId notFound',
    ],
    [
      'conversion.updateAvailability',
      'POST',
      '/conversion/updateAvailability',
      { availabilities: [availability] },
      400,
      'availabilities[0].agencyId notFound',
    ],
    ['conversion.get', 'GET', ENGINE_PATH, {}, 404, 'agencyId notFound'],
    ['conversion.getByCustomerId', 'GET', `/customer/${CUSTOMER}/conversion`, {}, 404, 'customerId notFound'],
    [
      'reports.getIdMappingFile',
      'GET',
      `/agency/${AGENCY}/advertiser/${ADVERTISER}/idmapping`,
      {},
      404,
      'agencyId notFound',
    ],
    [
      'savedColumns.list',
      'GET',
      `/agency/${AGENCY}/advertiser/${ADVERTISER}/savedcolumns`,
      {},
      404,
      'agencyId notFound',
    ],
  ])('%s refuses made-up ids as notFound', async (_op, method, path, body, status, expected) => {
    const reply = await call(method, path, {
      ...as,
      ...(method === 'GET' ? { query: path.includes('/conversion') ? WINDOW : {} } : { body }),
    });
    expect(reply.status).toBe(status);
    expect(problems(reply)).toEqual([expected]);
    expect(worldOf(emu.emulator.store.state)).toBeUndefined();
  });
});
