/**
 * The APIs' own inspector views (`GET /__emulator/apis/<api>/<view>`, `ApiModule.inspect`):
 * Search Ads 360's answer what the API itself answers (the spec examples' world on a fresh
 * emulator, then what clients wrote), unknown APIs, views and advertisers are 404 naming what
 * there is, and the views sit behind the inspector's token like its other endpoints.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCsv } from '../src/apis/searchads360/csv.ts';
import type { Emulator } from '../src/core/server.ts';
import { createEmulator } from '../src/emulator.ts';
import { type Reply, useEmulator } from './support/harness.ts';
import {
  ADVERTISER,
  AGENCY,
  conversionCalls,
  ENGINE,
  example,
  problems,
  purchase,
  sa360,
  signup,
} from './support/searchads360.ts';

const VIEWS = '/__emulator/apis/searchads360';

describe("Search Ads 360's inspector views", () => {
  const emu = useEmulator();
  const call = sa360(emu);
  const { insert, update, stored } = conversionCalls(call);
  const view = (name: string, query: Record<string, string> = {}): Promise<Reply> =>
    emu.call('GET', `${VIEWS}/${name}`, { query, token: null });
  const ok = async (name: string, query: Record<string, string> = {}) => {
    const reply = await view(name, query);
    expect(reply.status, reply.text).toBe(200);
    return reply.body;
  };
  const mine = { advertiserId: ADVERTISER };

  it('lists each API with its views and its page; Calendar has no views', async () => {
    const reply = await emu.call('GET', '/__emulator/apis', { token: null });
    expect(reply.status).toBe(200);
    expect(reply.body.apis).toEqual([
      { name: 'calendar', title: 'Google Calendar API', views: [], page: { label: 'Calendar' } },
      {
        name: 'searchads360',
        title: 'Search Ads 360 API',
        views: ['advertisers', 'conversions', 'availabilities', 'entities'],
        page: { label: 'Search Ads 360' },
      },
    ]);
  });

  it("shows a fresh emulator's world: the spec examples', which the API serves", async () => {
    await emu.reset();
    const { agencies } = await ok('advertisers');
    expect(agencies).toEqual([
      {
        id: AGENCY,
        advertisers: [
          expect.objectContaining({
            id: ADVERTISER,
            currencyCode: 'EUR',
            customerId: '1234567890',
            createdOnFirstUse: false,
            engineAccounts: 1,
            conversions: 0,
            availabilities: 0,
          }),
        ],
      },
    ]);
    expect(await ok('conversions', mine)).toEqual({
      agencyId: AGENCY,
      advertiserId: ADVERTISER,
      timeZone: 'UTC',
      conversions: [],
      days: {},
    });
    expect((await ok('availabilities', mine)).availabilities).toEqual([]);

    // The entities marked as in the ID-mapping file are the file's rows, with its Entity IDs.
    const file = await call('GET', `/agency/${AGENCY}/advertiser/${ADVERTISER}/idmapping`);
    expect(file.status).toBe(200);
    const [header = [], ...rows] = parseCsv(file.text);
    const entities = await ok('entities', mine);
    expect(entities.mappingColumns).toEqual(header);
    const col = (name: string) => header.indexOf(name);
    const fromFile = rows.map((row) =>
      [
        row[col('Legacy engine account ID')],
        row[col('Entity type')],
        row[col('Legacy entity ID')],
        row[col('Entity ID')],
      ].join(' '),
    );
    const fromView = entities.engineAccounts.flatMap(
      (account: {
        id: string;
        customerId?: string;
        inMappingFile: boolean;
        entities: { type: string; id: string; inMappingFile: boolean; mappingEntityId?: string }[];
      }) => [
        ...(account.inMappingFile
          ? [`${account.id} ENGINE_ACCOUNT ${account.id} ${account.customerId}`]
          : []),
        ...account.entities
          .filter((entity) => entity.inMappingFile)
          .map((entity) => `${account.id} ${entity.type} ${entity.id} ${entity.mappingEntityId}`),
      ],
    );
    expect(fromView).toEqual(fromFile);
    expect(fromFile.length).toBeGreaterThan(2);
    // Entities without a new id are listed too, as not in the file.
    expect(
      entities.engineAccounts[0].entities.some((e: { inMappingFile: boolean }) => !e.inMappingFile),
    ).toBe(true);
  });

  it('lists the conversions clients wrote, as the API answers them, in its order', async () => {
    await emu.reset();
    expect((await insert(signup('view-2'), purchase('view-1'))).status).toBe(200);
    expect((await update(purchase('view-1', { revenueMicros: '99990000', state: 'REMOVED' }))).status).toBe(
      200,
    );
    // Best effort: the valid row of a refused batch is stored, and shown.
    const partial = await insert(
      purchase('view-3', { conversionTimestamp: '1763620000000' }),
      purchase('view-1'),
    );
    expect(problems(partial)).toEqual(['conversion[1].conversionId duplicate']);

    const { conversions } = await ok('conversions', mine);
    expect(conversions).toEqual(await stored());
    expect(conversions.map((c: { conversionId: string }) => c.conversionId)).toEqual([
      'view-3',
      'view-1',
      'view-2',
    ]);
    expect(conversions[1]).toMatchObject({
      revenueMicros: '99990000',
      state: 'REMOVED',
      engineAccountId: ENGINE,
    });
    const { agencies } = await ok('advertisers');
    expect(agencies[0].advertisers[0]).toMatchObject({ conversions: 3, availabilities: 0 });
  });

  it('lists the availabilities as updateAvailability recorded them', async () => {
    await emu.reset();
    const recorded = await call('POST', '/conversion/updateAvailability', {
      body: example('AvailabilityUpdate'),
    });
    expect(recorded.status).toBe(200);
    const { availabilities } = await ok('availabilities', mine);
    expect(availabilities).toEqual(recorded.body.availabilities);
    expect(availabilities.length).toBeGreaterThan(0);
    expect((await ok('advertisers')).agencies[0].advertisers[0].availabilities).toBe(availabilities.length);
  });

  it('shows an advertiser a request created on first use (default mode)', async () => {
    await emu.reset();
    const made = {
      ...purchase('first-use'),
      agencyId: '31000000000000001',
      advertiserId: '32000000000000002',
      clickId: undefined,
      engineAccountId: '33000000000000003',
      segmentationName: 'Checkout',
      segmentationId: '34000000000000004',
    };
    expect((await insert(made)).status).toBe(200);
    const { agencies } = await ok('advertisers');
    expect(agencies.map((a: { id: string }) => a.id)).toEqual([AGENCY, '31000000000000001']);
    expect(agencies[1].advertisers[0]).toMatchObject({
      id: '32000000000000002',
      createdOnFirstUse: true,
      engineAccounts: 1,
      conversions: 1,
    });
    const { conversions } = await ok('conversions', { advertiserId: '32000000000000002' });
    expect(conversions.map((c: { conversionId: string }) => c.conversionId)).toEqual(['first-use']);
  });

  it("finds a conversion's writes in the journal by its conversionId (the history the view shows)", async () => {
    await emu.reset();
    await insert(purchase('history-1'), signup('other-1'));
    await update(purchase('history-1', { revenueMicros: '1000000' }));
    await update(signup('other-1', { countMillis: '2000' }));
    const journal = await emu.call('GET', '/__emulator/journal', {
      query: { operation: 'conversion.', mentions: 'history-1' },
      token: null,
    });
    expect(
      journal.body.entries.map((e: { operationId: string; status: number }) => [e.operationId, e.status]),
    ).toEqual([
      ['conversion.insert', 200],
      ['conversion.update', 200],
    ]);
  });

  it('answers 404 naming what there is for an unknown API or view, 400 or 404 for the advertiser', async () => {
    const unknownView = await view('nope');
    expect(unknownView.status).toBe(404);
    expect(unknownView.body.error.message).toBe(
      'No inspector view nope of searchads360; its views are advertisers, conversions, availabilities, entities',
    );
    const unknownApi = await emu.call('GET', '/__emulator/apis/nope/advertisers', { token: null });
    expect(unknownApi.status).toBe(404);
    expect(unknownApi.body.error.message).toBe(
      'No API nope in the inspector; the APIs are calendar, searchads360',
    );
    const calendar = await emu.call('GET', '/__emulator/apis/calendar/anything', { token: null });
    expect(calendar.status).toBe(404);
    expect(calendar.body.error.message).toBe('No inspector view anything of calendar; it has none');
    const bare = await emu.call('GET', '/__emulator/apis/searchads360', { token: null });
    expect(bare.status).toBe(404);
    expect(bare.body.error.message).toContain('/__emulator/apis/searchads360/<view>');
    // Views are read with GET, and an own property only (no prototype lookups).
    expect((await emu.call('POST', `${VIEWS}/advertisers`, { token: null, body: {} })).status).toBe(404);
    expect((await view('constructor')).status).toBe(404);
    expect((await view('__proto__')).status).toBe(404);

    const missing = await view('conversions');
    expect(missing.status).toBe(400);
    expect(problems(missing)).toEqual(['advertiserId required']);
    const unknown = await view('entities', { advertiserId: '99' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.message).toBe('Advertiser 99 is not found.');
  });
});

const ADMIN = 'admin-credential-of-the-sandbox';

describe('the API views behind the admin credential', () => {
  let emulator: Emulator;
  let origin: string;
  beforeAll(async () => {
    emulator = createEmulator({ strict: true, admin: { token: ADMIN } });
    origin = await emulator.listen(0);
  });
  afterAll(() => emulator.close());

  it('need it, as the journal does', async () => {
    for (const path of ['/__emulator/apis', `${VIEWS}/advertisers`, '/__emulator/apis/nope/view']) {
      const refused = await fetch(`${origin}${path}`);
      expect(refused.status, path).toBe(401);
      expect((await refused.json()).error.errors[0].reason).toBe('adminCredential');
    }
    const given = await fetch(`${origin}${VIEWS}/advertisers`, {
      headers: { 'x-emulator-admin-token': ADMIN },
    });
    expect(given.status).toBe(200);
    expect((await given.json()).agencies[0].id).toBe(AGENCY);
  });
});
