/**
 * The shape of the Search Ads 360 part of a dumped state, for loading it (core/state-file.ts):
 * the entities as plain records, every stored conversion and availability against the spec's
 * own Conversion and Availability schemas (with what the emulator always stores in them
 * required), then the links the shape cannot say: keys equal to ids, ids unique, parents and
 * advertisers that exist.
 */
import type { ApiStateShape } from '../../core/api-module.js';
import { specFileId } from '../../core/state-file.js';
import { ID_SCHEMA } from './batch.js';
import { canonicalTimeZone } from './days.js';
import { type SearchAds360State, worldOf } from './state.js';

/** The id the Search Ads 360 spec is registered under in the state and seed checkers' Ajv. */
export const SEARCHADS360_SPEC_ID = specFileId('searchads360');

const ID = ID_SCHEMA;
const record = (value: object) => ({ type: 'object', additionalProperties: value });
const list = (items: object) => ({ type: 'array', items });
const object = (required: string[], properties: Record<string, object>) => ({
  type: 'object',
  required,
  additionalProperties: false,
  properties,
});

export function searchAds360StateSchema(specId = SEARCHADS360_SPEC_ID): object {
  const resource = (name: string, required: string[]) => ({
    allOf: [{ $ref: `${specId}#/components/schemas/${name}` }, { required }],
  });
  const entity = object(['id', 'type'], {
    id: ID,
    type: { enum: ['CAMPAIGN', 'AD_GROUP', 'AD', 'KEYWORD', 'PRODUCT_GROUP'] },
    name: { type: 'string' },
    newId: ID,
    parentId: ID,
  });
  const click = object([], {
    campaignId: ID,
    adGroupId: ID,
    criterionId: ID,
    adId: ID,
    productGroupId: ID,
    deviceType: { enum: ['DESKTOP', 'HIGH_END_MOBILE', 'TABLET', 'OTHER_DEVICE'] },
  });
  const engineAccount = object(['id', 'entities', 'clicks'], {
    id: ID,
    name: { type: 'string' },
    customerId: ID,
    entities: list(entity),
    clicks: record(click),
  });
  const advertiser = object(['id', 'floodlightActivities', 'savedColumns', 'engineAccounts'], {
    id: ID,
    name: { type: 'string' },
    currencyCode: { type: 'string', pattern: '^[A-Z]{3}$' },
    createdOnFirstUse: { const: true },
    customerId: ID,
    attributionModel: { type: 'string' },
    timeZone: { type: 'string', minLength: 1 },
    floodlightActivities: list(object(['id'], { id: ID, name: { type: 'string', minLength: 1 } })),
    savedColumns: list(
      object(['savedColumnName', 'type'], {
        savedColumnName: { type: 'string' },
        type: { type: 'string' },
      }),
    ),
    engineAccounts: record(engineAccount),
  });
  return object(['agencies', 'conversions', 'availabilities', 'nextDsConversionId'], {
    agencies: record(
      object(['id', 'advertisers'], { id: ID, name: { type: 'string' }, advertisers: record(advertiser) }),
    ),
    conversions: record(
      record(
        // What every stored conversion has: an ACTION or TRANSACTION may be sent without its
        // type, and one of an advertiser created on first use without an engine account.
        resource('Conversion', [
          'agencyId',
          'advertiserId',
          'conversionId',
          'conversionTimestamp',
          'dsConversionId',
          'segmentationType',
          'segmentationId',
          'state',
        ]),
      ),
    ),
    availabilities: record(
      record(
        resource('Availability', [
          'agencyId',
          'advertiserId',
          'segmentationType',
          'segmentationId',
          'availabilityTimestamp',
        ]),
      ),
    ),
    nextDsConversionId: ID,
  });
}

/** The links between the records; throws with the place at fault (`/searchads360/...`). */
export function checkSearchAds360Links(world: SearchAds360State, fail: (message: string) => never): void {
  const at = '/searchads360';
  const advertisers = new Map<string, string>();
  const engineAccounts = new Set<string>();
  const customers = new Map<string, string>();
  for (const [agencyId, agency] of Object.entries(world.agencies)) {
    const agencyAt = `${at}/agencies/${agencyId}`;
    if (agency.id !== agencyId) fail(`${agencyAt}/id: must be the key, ${agencyId}`);
    for (const [advertiserId, advertiser] of Object.entries(agency.advertisers)) {
      const advertiserAt = `${agencyAt}/advertisers/${advertiserId}`;
      if (advertiser.id !== advertiserId) fail(`${advertiserAt}/id: must be the key, ${advertiserId}`);
      if (advertiser.timeZone !== undefined && canonicalTimeZone(advertiser.timeZone) === undefined)
        fail(`${advertiserAt}/timeZone: ${advertiser.timeZone} is not an IANA time zone Node knows`);
      const other = advertisers.get(advertiserId);
      if (other) fail(`${advertiserAt}: advertiser ${advertiserId} is in agency ${other} too`);
      advertisers.set(advertiserId, agencyId);
      for (const [accountId, account] of Object.entries(advertiser.engineAccounts)) {
        const accountAt = `${advertiserAt}/engineAccounts/${accountId}`;
        if (account.id !== accountId) fail(`${accountAt}/id: must be the key, ${accountId}`);
        if (engineAccounts.has(accountId)) fail(`${accountAt}: engine account ${accountId} is listed twice`);
        engineAccounts.add(accountId);
        if (account.customerId) {
          const taken = customers.get(account.customerId);
          if (taken) fail(`${accountAt}/customerId: ${account.customerId} is engine account ${taken}'s too`);
          customers.set(account.customerId, accountId);
        }
        const ids = new Set(account.entities.map((e) => e.id));
        account.entities.forEach((entity, i) => {
          if (entity.parentId && !ids.has(entity.parentId))
            fail(`${accountAt}/entities/${i}/parentId: no entity ${entity.parentId} in the engine account`);
        });
      }
    }
  }
  for (const [advertiserId, conversions] of Object.entries(world.conversions)) {
    if (!advertisers.has(advertiserId)) fail(`${at}/conversions/${advertiserId}: no such advertiser`);
    for (const [key, conversion] of Object.entries(conversions)) {
      const where = `${at}/conversions/${advertiserId}/${key}`;
      const expected = `${String(conversion.conversionTimestamp)}:${String(conversion.conversionId)}`;
      if (key !== expected)
        fail(`${where}: the key must be <conversionTimestamp>:<conversionId>, ${expected}`);
      if (conversion.advertiserId !== advertiserId) fail(`${where}/advertiserId: must be ${advertiserId}`);
      if (!/^\d+$/.test(String(conversion.conversionTimestamp)))
        fail(`${where}/conversionTimestamp: must be milliseconds since 1970 in digits`);
    }
  }
  for (const [advertiserId, availabilities] of Object.entries(world.availabilities)) {
    if (!advertisers.has(advertiserId)) fail(`${at}/availabilities/${advertiserId}: no such advertiser`);
    for (const [activityId, availability] of Object.entries(availabilities))
      if (availability.segmentationId !== activityId)
        fail(
          `${at}/availabilities/${advertiserId}/${activityId}/segmentationId: must be the key, ${activityId}`,
        );
  }
}

/**
 * Search Ads 360's part of the state document: `searchads360`, absent until the first write
 * (and in states dumped before it existed). Version 1 had it under the same key.
 */
export const searchAds360StateShape: ApiStateShape = {
  schema: searchAds360StateSchema(),
  empty: () => undefined,
  check(state, fail) {
    const world = worldOf(state);
    if (world) checkSearchAds360Links(world, fail);
  },
};
