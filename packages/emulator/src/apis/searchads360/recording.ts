/**
 * Search Ads 360's part of a seed made from a recording (`--seed-from FILE.har`): the
 * conversions its answers show (`conversion.get`, `getByCustomerId`, and the rows `insert`
 * and `update` answer), the latest answer of each winning, with the entities they name; the
 * availabilities `updateAvailability` answered; the saved columns `savedColumns.list`
 * answered.
 *
 * The entities are what the conversions carry: each row names its agency, advertiser,
 * engine account (with its customer id), campaign > ad group > ad, keyword or product
 * group, click and Floodlight activity, and the seed declares them so that conversion.insert
 * takes the rows back. A row whose ids contradict an earlier row's (an ad group under
 * another campaign, an engine account of another advertiser) is skipped, as is one that
 * names a child without its parent. An advertiser's currency is the one its rows give most;
 * its `attributionModel` the latest row's; its customer id the one its availabilities give.
 *
 * The answers do not show the names of agencies, advertisers, engine accounts and entities,
 * an advertiser's time zone, or the entities' ids in the new platform, so the seed has none.
 * The examples' entities are left out (`exampleEntities: false`): the recording is the account.
 */
import type { RecordedExchange, RecordingInput, RecordingPart } from '../../core/api-module.js';
import { isObject, type Json, type JsonObject } from '../../core/spec.js';
import type { EntityType } from './records.js';
import type {
  SearchAds360Seed,
  SearchAds360SeedDocument,
  SeedAdGroup,
  SeedAdvertiser,
  SeedAgency,
  SeedCampaign,
  SeedClick,
  SeedEngineAccount,
} from './seed.js';

const CONVERSION = '#/components/schemas/Conversion';

const SKIPPED = {
  noBody: 'answers without the rows they answer',
  noKeys: 'conversions without agencyId, advertiserId, conversionId or conversionTimestamp',
  notDigits: 'conversions with ids that are not digits',
  noEngine: 'conversions without an engine account',
  noActivity: 'conversions without a segmentationId',
  orphan:
    'conversions that name an ad group without its campaign, or an ad, keyword or product group without its ad group',
  contradiction: "conversions whose ids contradict an earlier conversion's",
  availability: 'availabilities without their advertiser, activity or time',
  elsewhere: 'saved columns of an advertiser that conversions show under another agency',
  noCurrency:
    'advertisers whose currency no answer shows (a seed needs it), left out with their conversions, availabilities and saved columns',
  ofNoCurrency: 'conversions and availabilities of those advertisers',
} as const;

/** What the report says it took, in this order. */
const TAKEN = [
  'agencies',
  'advertisers',
  'engine accounts',
  'campaigns, ad groups, ads, keywords and product groups',
  'clicks',
  'Floodlight activities',
  'saved columns',
  'conversions',
  'availabilities',
] as const;

/** The operations whose answers hold nothing a seed keeps. */
const NOTHING_TO_SEED = new Set(['reports.getIdMappingFile']);

const DIGITS = /^\d+$/;

const text = (value: Json | undefined): string | undefined => (typeof value === 'string' ? value : undefined);

interface EntityModel {
  type: EntityType;
  parentId?: string;
}

interface EngineModel {
  id: string;
  customerId?: string;
  /** In the order first named, so a parent comes before its children. */
  entities: Map<string, EntityModel>;
  clicks: Map<string, SeedClick>;
}

interface AdvertiserModel {
  id: string;
  agencyId: string;
  customerId?: string;
  attributionModel?: string;
  /** Currency code to how many rows give it. */
  currencies: Map<string, number>;
  /** Activity id to its name, when an answer gave one. */
  activities: Map<string, string | undefined>;
  savedColumns?: { savedColumnName: string; type: string }[];
  engines: Map<string, EngineModel>;
}

interface Model {
  /** Agency id to its advertisers' ids, in the order first seen. */
  agencies: Map<string, string[]>;
  advertisers: Map<string, AdvertiserModel>;
  /** Engine account id to its advertiser's id. */
  engineOwners: Map<string, string>;
  /** Customer id to the engine account that has it. */
  customers: Map<string, string>;
  skipped: Record<string, number>;
}

const skip = (model: Model, kind: string, n = 1): void => {
  if (n > 0) model.skipped[kind] = (model.skipped[kind] ?? 0) + n;
};

function advertiserIn(model: Model, agencyId: string, advertiserId: string): AdvertiserModel {
  let advertiser = model.advertisers.get(advertiserId);
  if (!advertiser) {
    advertiser = {
      id: advertiserId,
      agencyId,
      currencies: new Map(),
      activities: new Map(),
      engines: new Map(),
    };
    model.advertisers.set(advertiserId, advertiser);
    const agency = model.agencies.get(agencyId) ?? [];
    agency.push(advertiserId);
    model.agencies.set(agencyId, agency);
  }
  return advertiser;
}

/** The entities a row names, parents first: [id, type, parent id]. */
function entitiesOf(row: JsonObject): [string, EntityType, string | undefined][] {
  const campaignId = text(row.campaignId);
  const adGroupId = text(row.adGroupId);
  const out: [string, EntityType, string | undefined][] = [];
  if (campaignId) out.push([campaignId, 'CAMPAIGN', undefined]);
  if (adGroupId) out.push([adGroupId, 'AD_GROUP', campaignId]);
  for (const [name, type] of [
    ['adId', 'AD'],
    ['criterionId', 'KEYWORD'],
    ['productGroupId', 'PRODUCT_GROUP'],
  ] as const) {
    const id = text(row[name]);
    if (id) out.push([id, type, adGroupId]);
  }
  return out;
}

/**
 * Declares what a conversion names, or says why it cannot be: every fact is checked against
 * the earlier rows' before any is written, so a skipped row changes nothing.
 */
function placeRow(model: Model, row: JsonObject): string | undefined {
  const agencyId = text(row.agencyId);
  const advertiserId = text(row.advertiserId);
  const engineAccountId = text(row.engineAccountId);
  const activityId = text(row.segmentationId);
  const customerId = text(row.customerId);
  const clickId = text(row.clickId);
  const entities = entitiesOf(row);
  if (!agencyId || !advertiserId) return SKIPPED.noKeys;
  if (!engineAccountId) return SKIPPED.noEngine;
  if (!activityId) return SKIPPED.noActivity;
  const ids = [agencyId, advertiserId, engineAccountId, activityId, ...entities.map(([id]) => id)];
  if (customerId) ids.push(customerId);
  if (!ids.every((id) => DIGITS.test(id))) return SKIPPED.notDigits;
  if (entities.some(([, type, parent]) => type !== 'CAMPAIGN' && parent === undefined)) return SKIPPED.orphan;
  if (new Set(entities.map(([id]) => id)).size !== entities.length) return SKIPPED.contradiction;

  const known = model.advertisers.get(advertiserId);
  if (known && known.agencyId !== agencyId) return SKIPPED.contradiction;
  const owner = model.engineOwners.get(engineAccountId);
  if (owner !== undefined && owner !== advertiserId) return SKIPPED.contradiction;
  const engine = known?.engines.get(engineAccountId);
  if (customerId) {
    if (engine?.customerId !== undefined && engine.customerId !== customerId) return SKIPPED.contradiction;
    const holder = model.customers.get(customerId);
    if (holder !== undefined && holder !== engineAccountId) return SKIPPED.contradiction;
  }
  for (const [id, type, parentId] of entities) {
    const entity = engine?.entities.get(id);
    if (entity && (entity.type !== type || entity.parentId !== parentId)) return SKIPPED.contradiction;
  }
  const adGroupId = text(row.adGroupId);
  if (clickId) {
    if (!adGroupId) return SKIPPED.orphan;
    for (const other of known?.engines.values() ?? [])
      if (other.id !== engineAccountId && other.clicks.has(clickId)) return SKIPPED.contradiction;
  }

  const advertiser = advertiserIn(model, agencyId, advertiserId);
  let account = advertiser.engines.get(engineAccountId);
  if (!account) {
    account = { id: engineAccountId, entities: new Map(), clicks: new Map() };
    advertiser.engines.set(engineAccountId, account);
    model.engineOwners.set(engineAccountId, advertiserId);
  }
  if (customerId && account.customerId === undefined) {
    account.customerId = customerId;
    model.customers.set(customerId, engineAccountId);
  }
  for (const [id, type, parentId] of entities)
    if (!account.entities.has(id)) account.entities.set(id, { type, ...(parentId ? { parentId } : {}) });
  if (clickId && adGroupId && !account.clicks.has(clickId)) {
    const click: SeedClick = { clickId, adGroupId };
    for (const name of ['campaignId', 'adId', 'criterionId', 'productGroupId', 'deviceType'] as const) {
      const value = text(row[name]);
      if (value) click[name] = value;
    }
    account.clicks.set(clickId, click);
  }
  learnActivity(advertiser, activityId, text(row.segmentationName));
  const currency = text(row.currencyCode);
  if (currency) advertiser.currencies.set(currency, (advertiser.currencies.get(currency) ?? 0) + 1);
  const attribution = text(row.attributionModel);
  if (attribution) advertiser.attributionModel = attribution;
  return undefined;
}

/**
 * An activity an answer names: its name, unless it has one already or another activity of the
 * advertiser has it (a seed's activity names are unique; the id is what conversions name).
 */
function learnActivity(advertiser: AdvertiserModel, id: string, name: string | undefined): void {
  if (advertiser.activities.get(id) !== undefined) return;
  const taken = name !== undefined && [...advertiser.activities.values()].includes(name);
  advertiser.activities.set(id, taken ? undefined : name);
}

/** The seed's entity tree of an engine account: campaigns > ad groups > ads, keywords, product groups. */
function seedAccount(account: EngineModel): SeedEngineAccount {
  const children = (parentId: string, type: EntityType) =>
    [...account.entities]
      .filter(([, e]) => e.type === type && e.parentId === parentId)
      .map(([id]) => ({ id }));
  const campaigns: SeedCampaign[] = [...account.entities]
    .filter(([, e]) => e.type === 'CAMPAIGN')
    .map(([id]) => {
      const adGroups: SeedAdGroup[] = children(id, 'AD_GROUP').map(({ id: groupId }) => {
        const group: SeedAdGroup = { id: groupId };
        const ads = children(groupId, 'AD');
        const keywords = children(groupId, 'KEYWORD');
        const productGroups = children(groupId, 'PRODUCT_GROUP');
        if (ads.length > 0) group.ads = ads;
        if (keywords.length > 0) group.keywords = keywords;
        if (productGroups.length > 0) group.productGroups = productGroups;
        return group;
      });
      return adGroups.length > 0 ? { id, adGroups } : { id };
    });
  const out: SeedEngineAccount = { id: account.id };
  if (account.customerId) out.customerId = account.customerId;
  if (campaigns.length > 0) out.campaigns = campaigns;
  if (account.clicks.size > 0) out.clicks = [...account.clicks.values()];
  return out;
}

/** The currency most of an advertiser's rows give (the first seen of those tied). */
function currencyOf(advertiser: AdvertiserModel): string | undefined {
  let best: [string, number] | undefined;
  for (const entry of advertiser.currencies) if (!best || entry[1] > best[1]) best = entry;
  return best?.[0];
}

/** Search Ads 360's part of a seed made from a recording (see the file's comment). */
export function searchAds360SeedFromRecording(
  exchanges: readonly RecordedExchange[],
  { tools }: RecordingInput,
): RecordingPart {
  const model: Model = {
    agencies: new Map(),
    advertisers: new Map(),
    engineOwners: new Map(),
    customers: new Map(),
    skipped: {},
  };
  const conversions = new Map<string, JsonObject>();
  const availabilities = new Map<string, JsonObject>();
  const columns: { agencyId: string; advertiserId: string; items: JsonObject[] }[] = [];
  for (const exchange of exchanges) {
    const { operationId: op, body, path } = exchange;
    if (NOTHING_TO_SEED.has(op)) {
      skip(model, `${op} (nothing a seed keeps)`);
      continue;
    }
    if (!isObject(body)) {
      skip(model, SKIPPED.noBody);
      continue;
    }
    if (op === 'savedColumns.list') {
      const { agencyId, advertiserId } = path;
      if (agencyId && advertiserId && DIGITS.test(agencyId) && DIGITS.test(advertiserId))
        columns.push({
          agencyId,
          advertiserId,
          items: Array.isArray(body.items) ? body.items.filter(isObject) : [],
        });
      continue;
    }
    if (op === 'conversion.updateAvailability') {
      for (const row of Array.isArray(body.availabilities) ? body.availabilities.filter(isObject) : []) {
        const advertiserId = text(row.advertiserId);
        const activityId = text(row.segmentationId);
        if (!advertiserId || !activityId || !text(row.availabilityTimestamp)) {
          skip(model, SKIPPED.availability);
          continue;
        }
        const key = `${advertiserId} ${activityId}`;
        availabilities.delete(key);
        availabilities.set(key, row);
      }
      continue;
    }
    // conversion.get, getByCustomerId, insert, update: the rows as they are now.
    for (const row of Array.isArray(body.conversion) ? body.conversion.filter(isObject) : []) {
      const advertiserId = text(row.advertiserId);
      const conversionId = text(row.conversionId);
      const timestamp = text(row.conversionTimestamp);
      if (!advertiserId || !conversionId || !timestamp || !text(row.agencyId)) {
        skip(model, SKIPPED.noKeys);
        continue;
      }
      // A later answer replaces the row, in the place it was first seen.
      conversions.set(`${advertiserId} ${timestamp}:${conversionId}`, row);
    }
  }

  const seedConversions: JsonObject[] = [];
  for (const row of conversions.values()) {
    const why = placeRow(model, row);
    if (why) {
      skip(model, why);
      continue;
    }
    const { attributionModel: _set, ...body } = tools.writable(row, CONVERSION);
    const ds = text(row.dsConversionId);
    seedConversions.push(ds && DIGITS.test(ds) ? { ...body, dsConversionId: ds } : body);
  }

  const seedAvailabilities: JsonObject[] = [];
  for (const row of availabilities.values()) {
    const advertiserId = text(row.advertiserId) ?? '';
    const activityId = text(row.segmentationId) ?? '';
    const agencyId = text(row.agencyId) || model.advertisers.get(advertiserId)?.agencyId;
    const timestamp = text(row.availabilityTimestamp) ?? '';
    if (!agencyId || ![agencyId, advertiserId, activityId, timestamp].every((id) => DIGITS.test(id))) {
      skip(model, SKIPPED.availability);
      continue;
    }
    const advertiser = advertiserIn(model, agencyId, advertiserId);
    if (advertiser.agencyId !== agencyId) {
      skip(model, SKIPPED.availability);
      continue;
    }
    const customerId = text(row.customerId);
    if (customerId && DIGITS.test(customerId)) advertiser.customerId = customerId;
    learnActivity(advertiser, activityId, text(row.segmentationName));
    seedAvailabilities.push({
      agencyId,
      advertiserId,
      segmentationType: 'FLOODLIGHT',
      segmentationId: activityId,
      availabilityTimestamp: timestamp,
    });
  }

  for (const { agencyId, advertiserId, items } of columns) {
    const advertiser = advertiserIn(model, agencyId, advertiserId);
    if (advertiser.agencyId !== agencyId) {
      skip(model, SKIPPED.elsewhere);
      continue;
    }
    // The latest answer is the list as it is now.
    advertiser.savedColumns = items.flatMap((item) => {
      const name = text(item.savedColumnName);
      const type = text(item.type);
      return name && type ? [{ savedColumnName: name, type }] : [];
    });
  }

  // In the order the report tells them; the kinds left at 0 are not told.
  const taken: Record<string, number> = Object.fromEntries(TAKEN.map((kind) => [kind, 0]));
  const count = (kind: (typeof TAKEN)[number], n: number) => {
    taken[kind] = (taken[kind] ?? 0) + n;
  };
  // A seed's advertiser has a currency; one whose rows show none cannot be written.
  const unpriced = new Set([...model.advertisers.values()].filter((a) => !currencyOf(a)).map((a) => a.id));
  skip(model, SKIPPED.noCurrency, unpriced.size);
  const priced = (rows: JsonObject[]) =>
    rows.filter((row) => {
      const kept = !unpriced.has(text(row.advertiserId) ?? '');
      if (!kept) skip(model, SKIPPED.ofNoCurrency);
      return kept;
    });
  const keptConversions = priced(seedConversions);
  const keptAvailabilities = priced(seedAvailabilities);
  const agencies: SeedAgency[] = [...model.agencies].flatMap(([id, advertiserIds]) => {
    const advertisers = advertiserIds.flatMap((advertiserId): SeedAdvertiser[] => {
      const advertiser = model.advertisers.get(advertiserId);
      const currencyCode = advertiser && currencyOf(advertiser);
      if (!advertiser || !currencyCode) return [];
      const out: SeedAdvertiser = { id: advertiser.id, currencyCode };
      if (advertiser.customerId) out.customerId = advertiser.customerId;
      if (advertiser.attributionModel) out.attributionModel = advertiser.attributionModel;
      const activities = [...advertiser.activities].map(([id, name]) => (name ? { id, name } : { id }));
      if (activities.length > 0) out.floodlightActivities = activities;
      if (advertiser.savedColumns && advertiser.savedColumns.length > 0)
        out.savedColumns = advertiser.savedColumns;
      const engines = [...advertiser.engines.values()];
      if (engines.length > 0) out.engineAccounts = engines.map(seedAccount);
      count('Floodlight activities', activities.length);
      count('saved columns', advertiser.savedColumns?.length ?? 0);
      count('engine accounts', engines.length);
      count(
        'campaigns, ad groups, ads, keywords and product groups',
        engines.reduce((sum, engine) => sum + engine.entities.size, 0),
      );
      count(
        'clicks',
        engines.reduce((sum, engine) => sum + engine.clicks.size, 0),
      );
      count('advertisers', 1);
      return [out];
    });
    return advertisers.length > 0 ? [{ id, advertisers }] : [];
  });
  count('agencies', agencies.length);
  count('conversions', keptConversions.length);
  count('availabilities', keptAvailabilities.length);

  const seed: SearchAds360SeedDocument = {};
  if (agencies.length > 0) {
    const section: SearchAds360Seed = { exampleEntities: false, agencies };
    if (keptConversions.length > 0) section.conversions = keptConversions;
    if (keptAvailabilities.length > 0) section.availabilities = keptAvailabilities;
    seed.searchads360 = section;
  }
  return { seed, taken, skipped: model.skipped };
}
