/**
 * Search Ads 360 entities: the spec examples' world of a fresh emulator, the `searchads360`
 * section of seed files (and its errors, naming the entry at fault), and the Search Ads 360
 * part of a dumped state (round trip, and refusals of a broken one).
 */
import { parseIdMappingFile } from '@gspec/searchads360/id-mapping';
import { beforeEach, describe, expect, it } from 'vitest';
import type { SearchAds360Seed } from '../src/apis/searchads360/seed.ts';
import { worldOf } from '../src/apis/searchads360/state.ts';
import { applySeed, type Seed, SeedError } from '../src/core/seed.ts';
import { parseSeed } from '../src/emulator.ts';
import { useEmulator } from './support/harness.ts';
import { ADVERTISER, AGENCY, at, problems, purchase, sa360 } from './support/searchads360.ts';

// Strict mode: these tests check the closed world of the seed and the examples, where an id no
// one named is refused; the default mode creates such ids on first use (searchads360-any-ids.test.ts).
const emu = useEmulator({ strict: true, users: { 'ana@example.com': 'ana@example.com' } });
const call = sa360(emu);

const conversion = (id: string, extra: Record<string, unknown>) => ({
  agencyId: '100',
  advertiserId: '200',
  conversionId: id,
  conversionTimestamp: at('2026-03-02T10:00:00Z'),
  segmentationType: 'FLOODLIGHT',
  ...extra,
});

const SHOP: SearchAds360Seed = {
  agencies: [
    {
      id: '100',
      name: 'Agency, Inc.',
      advertisers: [
        {
          id: '200',
          name: 'Shop',
          currencyCode: 'CHF',
          customerId: '5550001',
          floodlightActivities: [
            { id: '300', name: 'Order' },
            { id: '301', name: 'Lead' },
          ],
          engineAccounts: [
            {
              id: '400',
              name: 'Shop "Search", CH',
              customerId: '5550001',
              campaigns: [
                {
                  id: '500',
                  name: 'Shoes',
                  newId: '9500',
                  adGroups: [
                    {
                      id: '600',
                      name: 'Trail',
                      newId: '9600',
                      ads: [{ id: '700', name: 'Ad 1', newId: '9700' }],
                      keywords: [
                        { id: '800', name: 'trail "shoes"', newId: '9800' },
                        { id: '801', name: 'only in the previous platform' },
                      ],
                      productGroups: [{ id: '900', newId: '9900' }],
                    },
                  ],
                },
              ],
              clicks: [
                {
                  clickId: 'click-a',
                  adGroupId: '600',
                  adId: '700',
                  criterionId: '800',
                  deviceType: 'DESKTOP',
                },
              ],
            },
            {
              id: '401',
              name: 'Shop Bing',
              campaigns: [{ id: '510', name: 'Brand', adGroups: [{ id: '610' }] }],
              clicks: [{ clickId: 'click-b', adGroupId: '610' }],
            },
          ],
        },
      ],
    },
  ],
  conversions: [
    conversion('o-1', {
      clickId: 'click-a',
      segmentationName: 'Order',
      type: 'TRANSACTION',
      revenueMicros: '5000000',
    }),
    conversion('l-1', { clickId: 'click-b', segmentationId: '301', type: 'ACTION', countMillis: '1000' }),
  ],
};

function seeded(section: SearchAds360Seed = SHOP): void {
  const seed: Seed = parseSeed(structuredClone({ searchads360: section }), 'seed.json');
  applySeed(emu.emulator, seed, 'seed.json');
}

// biome-ignore lint/suspicious/noExplicitAny: a dumped state, broken on purpose, is edited freely.
type Dump = any;

const MARCH = { startDate: 20260301, endDate: 20260331, startRow: 0, rowCount: 10 };

beforeEach(() => emu.reset());

describe('a fresh emulator', () => {
  it("knows the spec examples' entities and nothing else, and writes no state until a write", async () => {
    expect(worldOf(emu.emulator.store.state)).toBeUndefined();
    expect((await call('GET', `/agency/${AGENCY}/advertiser/${ADVERTISER}/savedcolumns`)).status).toBe(200);
    expect((await call('GET', '/customer/1234567890/conversion', { query: MARCH })).status).toBe(200);
    expect((await call('GET', '/agency/100/advertiser/200/savedcolumns')).status).toBe(404);
    expect(worldOf(emu.emulator.store.state)).toBeUndefined();
    const health = await call('GET', '/__emulator/health');
    expect(health.body.apis.searchads360.notImplemented).toEqual([]);
  });
});

describe('the searchads360 section of a seed', () => {
  it('adds agencies, advertisers, engine accounts, entities, clicks and conversions', async () => {
    seeded();
    const search = await call('GET', '/agency/100/advertiser/200/engine/400/conversion', { query: MARCH });
    expect(search.body.conversion).toMatchObject([
      {
        conversionId: 'o-1',
        customerId: '5550001',
        campaignId: '500',
        adGroupId: '600',
        adId: '700',
        criterionId: '800',
        deviceType: 'DESKTOP',
        segmentationId: '300',
        currencyCode: 'CHF',
      },
    ]);
    const bing = await call('GET', '/agency/100/advertiser/200/engine/401/conversion', { query: MARCH });
    expect(bing.body.conversion).toMatchObject([
      { conversionId: 'l-1', campaignId: '510', segmentationName: 'Lead' },
    ]);
    expect(bing.body.conversion[0].customerId).toBeUndefined();
    const byCustomer = await call('GET', '/customer/5550001/conversion', { query: MARCH });
    expect(byCustomer.body).toEqual(search.body);
    // The examples' entities are still there, and the seed's conversions took the first dsConversionIds.
    expect((await call('GET', `/agency/${AGENCY}/advertiser/${ADVERTISER}/savedcolumns`)).status).toBe(200);
    expect(search.body.conversion[0].dsConversionId).toBe('4398046511104');
  });

  it('makes the ID-mapping file of the seeded advertiser, quoted where needed', async () => {
    seeded();
    const reply = await call('GET', '/agency/100/advertiser/200/idmapping');
    const row = (type: string, legacy: string, entity: string, name: string) =>
      `${type},100,200,400,${legacy},5550001,${entity},${name}\n`;
    expect(reply.text).toBe(
      'Entity type,Legacy agency ID,Legacy advertiser ID,Legacy engine account ID,Legacy entity ID,Customer ID,Entity ID,Entity name\n' +
        row('ENGINE_ACCOUNT', '400', '5550001', '"Shop ""Search"", CH"') +
        row('CAMPAIGN', '500', '9500', 'Shoes') +
        row('AD_GROUP', '600', '9600', 'Trail') +
        row('AD', '700', '9600~9700', 'Ad 1') +
        row('KEYWORD', '800', '9600~9800', '"trail ""shoes"""') +
        row('PRODUCT_GROUP', '900', '9600~9900', ''),
    );
    const names = [];
    for await (const parsed of parseIdMappingFile(reply.text)) names.push(parsed.entityName);
    expect(names).toEqual(['Shop "Search", CH', 'Shoes', 'Trail', 'Ad 1', 'trail "shoes"', '']);
    const none = await call('GET', '/agency/100/advertiser/200/savedcolumns');
    expect(none.body).toEqual({ kind: 'doubleclicksearch#savedColumnList' });
  });

  it('keeps a click id named like a prototype property as an own entry', async () => {
    const section = structuredClone(SHOP);
    const clicks = section.agencies?.[0]?.advertisers?.[0]?.engineAccounts?.[1]?.clicks;
    clicks?.push({ clickId: '__proto__', adGroupId: '610' }, { clickId: 'constructor', adGroupId: '610' });
    seeded(section);
    const reply = await call('POST', '/conversion', {
      body: {
        conversion: ['__proto__', 'constructor'].map((clickId) =>
          conversion(`by-${clickId}`, {
            clickId,
            segmentationName: 'Lead',
            type: 'ACTION',
            countMillis: '1000',
          }),
        ),
      },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.conversion.map((c: { engineAccountId: string }) => c.engineAccountId)).toEqual([
      '401',
      '401',
    ]);
    expect(Object.keys({})).toEqual([]);
  });

  it("with exampleEntities false knows only the seed's entities", async () => {
    seeded({ ...SHOP, exampleEntities: false });
    expect((await call('GET', `/agency/${AGENCY}/advertiser/${ADVERTISER}/savedcolumns`)).status).toBe(404);
    const example = await call('POST', '/conversion', { body: { conversion: [purchase('x')] } });
    expect(problems(example)).toEqual(['conversion[0].agencyId notFound']);
    const own = await call('GET', '/agency/100/advertiser/200/engine/400/conversion', { query: MARCH });
    expect(own.body.conversion[0].dsConversionId).toBe('1');
  });

  const advertiser = (extra: Record<string, unknown>) => ({
    agencies: [{ id: '100', advertisers: [{ id: '200', currencyCode: 'CHF', ...extra }] }],
  });
  const account = (extra: Record<string, unknown>) =>
    advertiser({ engineAccounts: [{ id: '400', ...extra }] });

  it.each([
    [
      'an advertiser without currency',
      { agencies: [{ id: '100', advertisers: [{ id: '200' }] }] },
      "searchads360.agencies[0].advertisers[0]: must have required property 'currencyCode'",
    ],
    [
      'a misspelt field',
      account({ campaing: [] }),
      'searchads360.agencies[0].advertisers[0].engineAccounts[0]: unknown field "campaing"',
    ],
    [
      'an id that is not digits',
      advertiser({ id: 'shop' }),
      'searchads360.agencies[0].advertisers[0].id: must match pattern',
    ],
    [
      "a click's device type that the spec does not list",
      account({ clicks: [{ clickId: 'c1', adGroupId: '600', deviceType: 'WATCH' }] }),
      'searchads360.agencies[0].advertisers[0].engineAccounts[0].clicks[0].deviceType: must be equal to one of the allowed values',
    ],
  ])('refuses a section with %s when it is read, naming the place', (_title, section, message) => {
    expect(() => parseSeed({ searchads360: section }, 'seed.json')).toThrow(`seed.json: ${message}`);
  });

  it.each([
    [
      'an advertiser the examples have',
      { agencies: [{ id: AGENCY, advertisers: [{ id: ADVERTISER, currencyCode: 'EUR' }] }] },
      `searchads360.agencies[0].advertisers[0].id: advertiser ${ADVERTISER} exists already (in agency ${AGENCY})`,
    ],
    [
      'a currency that is no ISO 4217 code',
      advertiser({ currencyCode: 'ABC' }),
      'searchads360.agencies[0].advertisers[0].currencyCode: ABC is not an ISO 4217 currency code',
    ],
    [
      'an activity twice',
      advertiser({
        floodlightActivities: [
          { id: '1', name: 'A' },
          { id: '2', name: 'A' },
        ],
      }),
      'searchads360.agencies[0].advertisers[0].floodlightActivities[1]: the advertiser has an activity 1 "A" already',
    ],
    [
      'a click on an unknown ad group',
      account({ clicks: [{ clickId: 'c', adGroupId: '9' }] }),
      'searchads360.agencies[0].advertisers[0].engineAccounts[0].clicks[0].adGroupId: no ad group 9 in engine account 400',
    ],
    [
      'a click with an ad of another ad group',
      account({
        campaigns: [{ id: '1', adGroups: [{ id: '2', ads: [{ id: '3' }] }, { id: '4' }] }],
        clicks: [{ clickId: 'c', adGroupId: '4', adId: '3' }],
      }),
      'searchads360.agencies[0].advertisers[0].engineAccounts[0].clicks[0].adId: no ad 3 in ad group 4',
    ],
    [
      'a new id below an ad group without one',
      account({
        customerId: '1',
        campaigns: [{ id: '1', adGroups: [{ id: '2', keywords: [{ id: '3', newId: '33' }] }] }],
      }),
      'searchads360.agencies[0].advertisers[0].engineAccounts[0].campaigns[0].adGroups[0].keywords[0].newId: an entity of the new platform needs its ad group there too',
    ],
    [
      'a new id in an engine account without customer id',
      account({ campaigns: [{ id: '1', newId: '11' }] }),
      'searchads360.agencies[0].advertisers[0].engineAccounts[0].campaigns[0].newId: an entity of the new platform needs its engine account there too',
    ],
    [
      'an entity id twice',
      account({ campaigns: [{ id: '1' }, { id: '1' }] }),
      'searchads360.agencies[0].advertisers[0].engineAccounts[0].campaigns[1].id: entity 1 is already in engine account 400',
    ],
    [
      'a customer id the examples have',
      account({ customerId: '1234567890' }),
      'searchads360.agencies[0].advertisers[0].engineAccounts[0].customerId: customer id 1234567890 is engine account 700000000042231 already',
    ],
    [
      'a conversion on an unknown click',
      {
        ...SHOP,
        conversions: [
          SHOP.conversions?.[0],
          conversion('x', { clickId: 'nope', segmentationName: 'Lead', type: 'ACTION', countMillis: '1' }),
        ],
      },
      'searchads360.conversions[1].clickId: notFound: Click id nope is not found for advertiser 200.',
    ],
    [
      'a conversion the schema refuses',
      { ...SHOP, conversions: [conversion('x', { clickId: 'click-a', type: 'SALE' })] },
      'searchads360.conversions[0].type: invalid: Invalid value for field conversion[0].type: must be one of ACTION, TRANSACTION',
    ],
  ])('refuses a section with %s when it is written, and keeps the state', (_title, section, message) => {
    const before = structuredClone(emu.emulator.store.state);
    expect(() => seeded(section as SearchAds360Seed)).toThrow(SeedError);
    expect(() => seeded(section as SearchAds360Seed)).toThrow(`seed.json: ${message}`);
    expect(emu.emulator.store.state).toEqual(before);
  });
});

describe('the Search Ads 360 part of a dumped state', () => {
  it('loads back: entities, conversions, availabilities and the next dsConversionId', async () => {
    seeded();
    await call('POST', '/conversion/updateAvailability', {
      body: {
        availabilities: [
          {
            agencyId: '100',
            advertiserId: '200',
            segmentationType: 'FLOODLIGHT',
            segmentationName: 'Order',
            availabilityTimestamp: '1772445600000',
          },
        ],
      },
    });
    const dump = (await call('GET', '/__emulator/state')).body;
    const listed = await call('GET', '/customer/5550001/conversion', { query: MARCH });
    await emu.reset();
    expect((await call('GET', '/customer/5550001/conversion', { query: MARCH })).status).toBe(404);
    expect((await call('PUT', '/__emulator/state', { body: dump })).status).toBe(204);
    expect(await call('GET', '/customer/5550001/conversion', { query: MARCH })).toMatchObject({
      body: listed.body,
    });
    expect(worldOf(emu.emulator.store.state)?.availabilities['200']?.['300']?.availabilityTimestamp).toBe(
      '1772445600000',
    );
    const next = await call('POST', '/conversion', {
      body: {
        conversion: [
          conversion('o-2', {
            clickId: 'click-a',
            segmentationName: 'Order',
            type: 'TRANSACTION',
            revenueMicros: '1',
          }),
        ],
      },
    });
    expect(next.body.conversion[0].dsConversionId).toBe('4398046511106');
  });

  it('loads a state without it (dumped before Search Ads 360 was written) with the examples\u2019 entities', async () => {
    const dump = (await call('GET', '/__emulator/state')).body;
    expect(dump.searchads360).toBeUndefined();
    expect((await call('PUT', '/__emulator/state', { body: dump })).status).toBe(204);
    expect((await call('GET', `/agency/${AGENCY}/advertiser/${ADVERTISER}/savedcolumns`)).status).toBe(200);
  });

  it.each([
    [
      'a stored conversion the spec refuses',
      (world: Dump) => {
        world.conversions['200'][`${at('2026-03-02T10:00:00Z')}:o-1`].type = 'SALE';
      },
      /\/searchads360\/conversions\/200\/\d+:o-1\/type: must be equal to one of the allowed values/,
    ],
    [
      'a conversion under another key',
      (world: Dump) => {
        const list = world.conversions['200'];
        list['1:moved'] = list[`${at('2026-03-02T10:00:00Z')}:o-1`];
        delete list[`${at('2026-03-02T10:00:00Z')}:o-1`];
      },
      /\/searchads360\/conversions\/200\/1:moved: the key must be <conversionTimestamp>:<conversionId>/,
    ],
    [
      'conversions of an unknown advertiser',
      (world: Dump) => {
        world.conversions['999'] = {};
      },
      /\/searchads360\/conversions\/999: no such advertiser/,
    ],
    [
      'an entity below a parent that is not there',
      (world: Dump) => {
        world.agencies['100'].advertisers['200'].engineAccounts['400'].entities[1].parentId = '12345';
      },
      /engineAccounts\/400\/entities\/1\/parentId: no entity 12345/,
    ],
    [
      'an unknown field',
      (world: Dump) => {
        world.agencies['100'].owner = 'x';
      },
      /\/searchads360\/agencies\/100: must NOT have additional properties \(owner\)/,
    ],
  ])('refuses %s, naming the place', async (_title, breakIt, message) => {
    seeded();
    const dump = (await call('GET', '/__emulator/state')).body;
    breakIt(dump.searchads360);
    const reply = await call('PUT', '/__emulator/state', { body: dump });
    expect(reply.status).toBe(400);
    expect(reply.body.error.message).toMatch(message);
  });
});
