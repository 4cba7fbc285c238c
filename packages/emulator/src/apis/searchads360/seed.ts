/**
 * The `searchads360` section of a seed file: agencies > advertisers > engine accounts with
 * their entities, clicks, Floodlight activities, saved columns and customer ids, added to the
 * entities the emulator knows (the spec examples', unless `exampleEntities: false`), then
 * conversions inserted through conversion.insert and availabilities recorded through
 * conversion.updateAvailability, so they are checked as a client's would be. Every refusal
 * names the entry at fault (`searchads360.agencies[0].advertisers[1].id`).
 */

import type { ApiSeedShape, SeedDocument, SeedTarget } from '../../core/api-module.js';
import { own, setOwn } from '../../core/own.js';
import { seedFieldsOf } from '../../core/seed-fields.js';
import type { JsonObject } from '../../core/spec.js';
import { nextRevision } from '../../core/state.js';
import type { Store } from '../../core/store.js';
import { CURRENCIES, ID_SCHEMA } from './batch.js';
import { canonicalTimeZone, DEFAULT_TIME_ZONE } from './days.js';
import { type Fail, insertConversions, seedBatch } from './seed-conversions.js';
import {
  type AdvertiserRecord,
  type ClickRecord,
  type EngineAccountRecord,
  type EntityRecord,
  type EntityType,
  emptyWorld,
  findAdvertiser,
  findCustomer,
  findEngineAccount,
  type SearchAds360State,
  writableWorld,
} from './state.js';
import { SEARCHADS360_SPEC_ID } from './state-schema.js';

export interface SeedEntity {
  id: string;
  name?: string;
  /** The entity's id in the new platform; without it, it is not in the ID-mapping file. */
  newId?: string;
}

export interface SeedAdGroup extends SeedEntity {
  ads?: SeedEntity[];
  keywords?: SeedEntity[];
  productGroups?: SeedEntity[];
}

export interface SeedCampaign extends SeedEntity {
  adGroups?: SeedAdGroup[];
}

/** A click id a conversion can name, and the entities the click was on. */
export interface SeedClick {
  clickId: string;
  adGroupId: string;
  campaignId?: string;
  adId?: string;
  criterionId?: string;
  productGroupId?: string;
  deviceType?: string;
}

export interface SeedEngineAccount {
  id: string;
  name?: string;
  /** The account's customer id in the new Search Ads 360 (conversion.getByCustomerId). */
  customerId?: string;
  campaigns?: SeedCampaign[];
  clicks?: SeedClick[];
}

export interface SeedAdvertiser {
  id: string;
  name?: string;
  /** ISO 4217: the currency of a TRANSACTION sent without `currencyCode`. */
  currencyCode: string;
  customerId?: string;
  attributionModel?: string;
  /**
   * The IANA time zone its conversions are dated in (the reads' `startDate` and `endDate`);
   * left out, the emulator's default, UTC (days.ts).
   */
  timeZone?: string;
  /** The activities; one known by its id alone (a recording that never answered its name) has no name. */
  floodlightActivities?: { id: string; name?: string }[];
  savedColumns?: { savedColumnName: string; type: string }[];
  engineAccounts?: SeedEngineAccount[];
}

export interface SeedAgency {
  id: string;
  name?: string;
  advertisers?: SeedAdvertiser[];
}

export interface SearchAds360Seed {
  /** false: start Search Ads 360 empty instead of with the spec examples' entities. */
  exampleEntities?: boolean;
  agencies?: SeedAgency[];
  /**
   * Conversions as conversion.insert takes them, inserted after the entities (in one batch,
   * or more when a conversionId comes again for an advertiser at another time). A
   * `dsConversionId` given is kept (digits, unique), the others are numbered after it.
   */
  conversions?: JsonObject[];
  /** Availabilities as conversion.updateAvailability takes them, recorded after the conversions. */
  availabilities?: JsonObject[];
}

/** A refusal of the section; its message is the problem, the place is told separately. */
export class SearchAds360SeedError extends Error {
  override name = 'SearchAds360SeedError';
}

const ID = ID_SCHEMA;
const NAME = { type: 'string', minLength: 1 };
const entity = (extra: Record<string, object> = {}) => ({
  type: 'object',
  required: ['id'],
  additionalProperties: false,
  properties: { id: ID, name: { type: 'string' }, newId: ID, ...extra },
});
const list = (items: object) => ({ type: 'array', items });

/** The JSON schema of the section, for the seed file's shape check (src/seed.ts). */
export const SEARCHADS360_SEED_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    exampleEntities: { type: 'boolean' },
    agencies: list({
      type: 'object',
      required: ['id'],
      additionalProperties: false,
      properties: {
        id: ID,
        name: { type: 'string' },
        advertisers: list({
          type: 'object',
          required: ['id', 'currencyCode'],
          additionalProperties: false,
          properties: {
            id: ID,
            name: { type: 'string' },
            currencyCode: { type: 'string', pattern: '^[A-Z]{3}$' },
            customerId: ID,
            attributionModel: NAME,
            timeZone: {
              type: 'string',
              minLength: 1,
              description:
                "The IANA time zone the advertiser dates its conversions in (`Asia/Tokyo`): the days of the reads' startDate and endDate. Left out: UTC.",
            },
            floodlightActivities: list({
              type: 'object',
              required: ['id'],
              additionalProperties: false,
              properties: { id: ID, name: NAME },
            }),
            savedColumns: list({
              type: 'object',
              required: ['savedColumnName', 'type'],
              additionalProperties: false,
              properties: { savedColumnName: NAME, type: NAME },
            }),
            engineAccounts: list({
              type: 'object',
              required: ['id'],
              additionalProperties: false,
              properties: {
                id: ID,
                name: { type: 'string' },
                customerId: ID,
                campaigns: list(
                  entity({
                    adGroups: list(
                      entity({
                        ads: list(entity()),
                        keywords: list(entity()),
                        productGroups: list(entity()),
                      }),
                    ),
                  }),
                ),
                clicks: list({
                  type: 'object',
                  required: ['clickId', 'adGroupId'],
                  additionalProperties: false,
                  properties: {
                    clickId: { type: 'string', pattern: '^\\S+$' },
                    adGroupId: ID,
                    campaignId: ID,
                    adId: ID,
                    criterionId: ID,
                    productGroupId: ID,
                    deviceType: {
                      $ref: `${SEARCHADS360_SPEC_ID}#/components/schemas/Conversion/properties/deviceType`,
                    },
                  },
                }),
              },
            }),
          },
        }),
      },
    }),
    conversions: list(seedFieldsOf('searchads360', 'Conversion')),
    availabilities: list(seedFieldsOf('searchads360', 'Availability')),
  },
};

/** Adds one engine account's campaigns, ad groups and their children, parents first. */
function addEntities(account: EngineAccountRecord, seed: SeedEngineAccount, place: string, fail: Fail): void {
  const add = (
    item: SeedEntity,
    type: EntityType,
    where: string,
    parent?: { id: string; newId?: string; what: string },
  ) => {
    if (account.entities.some((e) => e.id === item.id))
      fail(`${where}.id`, `entity ${item.id} is already in engine account ${account.id}`);
    if (item.newId && parent && !parent.newId)
      fail(
        `${where}.newId`,
        `an entity of the new platform needs its ${parent.what} there too: give it a newId`,
      );
    if (item.newId && !account.customerId)
      fail(
        `${where}.newId`,
        `an entity of the new platform needs its engine account there too: give it a customerId`,
      );
    const record: EntityRecord = { id: item.id, type };
    if (item.name !== undefined) record.name = item.name;
    if (item.newId) record.newId = item.newId;
    if (parent) record.parentId = parent.id;
    account.entities.push(record);
  };
  (seed.campaigns ?? []).forEach((campaign, c) => {
    const at = `${place}.campaigns[${c}]`;
    add(campaign, 'CAMPAIGN', at);
    (campaign.adGroups ?? []).forEach((adGroup, g) => {
      const groupAt = `${at}.adGroups[${g}]`;
      add(adGroup, 'AD_GROUP', groupAt, { ...campaign, what: 'campaign' });
      const children: [SeedEntity[] | undefined, EntityType, string][] = [
        [adGroup.ads, 'AD', 'ads'],
        [adGroup.keywords, 'KEYWORD', 'keywords'],
        [adGroup.productGroups, 'PRODUCT_GROUP', 'productGroups'],
      ];
      for (const [items, type, key] of children)
        (items ?? []).forEach((item, k) => {
          add(item, type, `${groupAt}.${key}[${k}]`, { ...adGroup, what: 'ad group' });
        });
    });
  });
}

/** Adds the clicks of an engine account, each checked against the account's entities. */
function addClicks(
  advertiser: AdvertiserRecord,
  account: EngineAccountRecord,
  seed: SeedEngineAccount,
  place: string,
  fail: Fail,
): void {
  const byId = new Map(account.entities.map((e) => [e.id, e]));
  (seed.clicks ?? []).forEach((click, k) => {
    const at = `${place}.clicks[${k}]`;
    for (const other of Object.values(advertiser.engineAccounts))
      if (own(other.clicks, click.clickId))
        fail(`${at}.clickId`, `click ${click.clickId} is already known for advertiser ${advertiser.id}`);
    const adGroup = byId.get(click.adGroupId);
    if (adGroup?.type !== 'AD_GROUP')
      fail(`${at}.adGroupId`, `no ad group ${click.adGroupId} in engine account ${account.id}`);
    if (click.campaignId !== undefined && click.campaignId !== adGroup?.parentId)
      fail(
        `${at}.campaignId`,
        `ad group ${click.adGroupId} is in campaign ${adGroup?.parentId}, not ${click.campaignId}`,
      );
    const record: ClickRecord = { adGroupId: click.adGroupId };
    if (adGroup?.parentId) record.campaignId = adGroup.parentId;
    const children: ['adId' | 'criterionId' | 'productGroupId', EntityType, string][] = [
      ['adId', 'AD', 'ad'],
      ['criterionId', 'KEYWORD', 'keyword'],
      ['productGroupId', 'PRODUCT_GROUP', 'product group'],
    ];
    for (const [key, type, what] of children) {
      const id = click[key];
      if (id === undefined) continue;
      const child = byId.get(id);
      if (child?.type !== type || child.parentId !== click.adGroupId)
        fail(`${at}.${key}`, `no ${what} ${id} in ad group ${click.adGroupId}`);
      record[key] = id;
    }
    if (click.deviceType) record.deviceType = click.deviceType;
    setOwn(account.clicks, click.clickId, record);
  });
}

/** Adds the section's agencies to a world; `fail` names the entry at fault. */
export function addSeedEntities(world: SearchAds360State, seed: SearchAds360Seed, fail: Fail): void {
  (seed.agencies ?? []).forEach((agencySeed, a) => {
    const agencyAt = `searchads360.agencies[${a}]`;
    const agency = own(world.agencies, agencySeed.id) ?? { id: agencySeed.id, advertisers: {} };
    world.agencies[agency.id] = agency;
    if (agencySeed.name !== undefined) agency.name = agencySeed.name;
    (agencySeed.advertisers ?? []).forEach((seedAdvertiser, d) => {
      const at = `${agencyAt}.advertisers[${d}]`;
      const existing = findAdvertiser(world, seedAdvertiser.id);
      if (existing)
        fail(`${at}.id`, `advertiser ${seedAdvertiser.id} exists already (in agency ${existing.agency.id})`);
      const timeZone =
        seedAdvertiser.timeZone === undefined
          ? DEFAULT_TIME_ZONE
          : canonicalTimeZone(seedAdvertiser.timeZone);
      if (!timeZone) fail(`${at}.timeZone`, `${seedAdvertiser.timeZone} is not an IANA time zone Node knows`);
      const advertiser: AdvertiserRecord = {
        id: seedAdvertiser.id,
        currencyCode: seedAdvertiser.currencyCode,
        timeZone,
        floodlightActivities: [],
        savedColumns: [],
        engineAccounts: {},
      };
      if (!CURRENCIES.has(seedAdvertiser.currencyCode))
        fail(`${at}.currencyCode`, `${seedAdvertiser.currencyCode} is not an ISO 4217 currency code`);
      for (const key of ['name', 'customerId', 'attributionModel'] as const)
        if (seedAdvertiser[key] !== undefined) advertiser[key] = seedAdvertiser[key];
      (seedAdvertiser.floodlightActivities ?? []).forEach((activity, k) => {
        const same = advertiser.floodlightActivities.find(
          (x) => x.id === activity.id || (activity.name !== undefined && x.name === activity.name),
        );
        if (same)
          fail(
            `${at}.floodlightActivities[${k}]`,
            `the advertiser has an activity ${same.id}${same.name === undefined ? '' : ` "${same.name}"`} already`,
          );
        advertiser.floodlightActivities.push({
          id: activity.id,
          ...(activity.name !== undefined ? { name: activity.name } : {}),
        });
      });
      (seedAdvertiser.savedColumns ?? []).forEach((column, k) => {
        if (advertiser.savedColumns.some((x) => x.savedColumnName === column.savedColumnName))
          fail(`${at}.savedColumns[${k}].savedColumnName`, `${column.savedColumnName} is listed twice`);
        advertiser.savedColumns.push({ savedColumnName: column.savedColumnName, type: column.type });
      });
      agency.advertisers[advertiser.id] = advertiser;
      (seedAdvertiser.engineAccounts ?? []).forEach((seedAccount, e) => {
        const accountAt = `${at}.engineAccounts[${e}]`;
        const taken = findEngineAccount(world, seedAccount.id);
        if (taken)
          fail(
            `${accountAt}.id`,
            `engine account ${seedAccount.id} exists already (advertiser ${taken.advertiser.id})`,
          );
        if (seedAccount.customerId) {
          const customer = findCustomer(world, seedAccount.customerId);
          if (customer)
            fail(
              `${accountAt}.customerId`,
              `customer id ${seedAccount.customerId} is engine account ${customer.engineAccount.id} already`,
            );
        }
        const account: EngineAccountRecord = { id: seedAccount.id, entities: [], clicks: {} };
        if (seedAccount.name !== undefined) account.name = seedAccount.name;
        if (seedAccount.customerId) account.customerId = seedAccount.customerId;
        addEntities(account, seedAccount, accountAt, fail);
        addClicks(advertiser, account, seedAccount, accountAt, fail);
        advertiser.engineAccounts[account.id] = account;
      });
    });
  });
}

/**
 * Writes the section into a running emulator. `at` is told the place being written, for the
 * seed's error message; a SearchAds360SeedError carries the problem.
 */
export function applySearchAds360Seed(
  target: SeedTarget<Store>,
  seed: SearchAds360Seed,
  at: (place: string) => void,
): void {
  const fail: Fail = (place, message) => {
    at(place);
    throw new SearchAds360SeedError(message);
  };
  const { store } = target;
  at('searchads360');
  if (seed.exampleEntities === false) store.state.searchads360 = emptyWorld();
  const world = writableWorld(store, target.spec);
  nextRevision(store.state);
  addSeedEntities(world, seed, fail);
  if (seed.conversions && seed.conversions.length > 0) {
    at('searchads360.conversions');
    insertConversions(target, seed.conversions, fail);
  }
  const { availabilities } = seed;
  if (availabilities && availabilities.length > 0) {
    at('searchads360.availabilities');
    const rows = availabilities.map((_row, i) => i);
    seedBatch(
      target,
      'conversion.updateAvailability',
      'availabilities',
      'availabilities',
      rows,
      availabilities,
      fail,
    );
  }
}

/** A seed as Search Ads 360 reads it: its section. */
export interface SearchAds360SeedDocument extends SeedDocument {
  searchads360?: SearchAds360Seed;
}

/** Search Ads 360's part of a seed file: the `searchads360` section. */
export const searchAds360SeedShape: ApiSeedShape<Store, SearchAds360SeedDocument> = {
  properties: { searchads360: SEARCHADS360_SEED_SCHEMA },
  apply(target, seed, at) {
    if (seed.searchads360) applySearchAds360Seed(target, seed.searchads360, at);
  },
};
