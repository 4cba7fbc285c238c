/**
 * The Search Ads 360 part of the state: the entities (agencies > advertisers > engine
 * accounts > campaigns, ad groups, ads, keywords, product groups; Floodlight activities,
 * saved columns and known clicks per advertiser; customer ids of the new platform on the
 * engine accounts) and what clients wrote (conversions, availabilities). Plain JSON, like
 * the rest of the state.
 *
 * A state without this part (a fresh or reset emulator, a state dumped before it existed)
 * knows the entities of the spec's own examples (examples.ts). Reads use that world as it
 * is; the first write copies it into the state (`writableWorld`).
 */

import { ApiError } from '../errors.js';
import { own } from '../own.js';
import type { ApiSpec, JsonObject } from '../spec.js';
import type { State } from '../state.js';
import type { Store } from '../store.js';
import { exampleWorld } from './examples.js';

/** The kinds of entity below an engine account, as the ID-mapping file names them. */
export type EntityType = 'CAMPAIGN' | 'AD_GROUP' | 'AD' | 'KEYWORD' | 'PRODUCT_GROUP';

/** The entity types that hang below an ad group (they are written `adGroupId~id` in the new platform). */
export const AD_GROUP_CHILDREN: readonly EntityType[] = ['AD', 'KEYWORD', 'PRODUCT_GROUP'];

export interface EntityRecord {
  /** The entity's id in the previous platform (`campaignId`, `adGroupId`, ... of a conversion). */
  id: string;
  type: EntityType;
  name?: string;
  /** Its id in the new platform; entities without one are not in the ID-mapping file. */
  newId?: string;
  /** The campaign of an ad group, the ad group of an ad, keyword or product group. */
  parentId?: string;
}

/** What a click id stands for: the entities the click was on, and the device. */
export interface ClickRecord {
  campaignId?: string;
  adGroupId?: string;
  criterionId?: string;
  adId?: string;
  productGroupId?: string;
  deviceType?: string;
}

export interface EngineAccountRecord {
  id: string;
  name?: string;
  /** The account's customer id in the new Search Ads 360 (digits only). */
  customerId?: string;
  /** In file order: a parent before its children. */
  entities: EntityRecord[];
  clicks: Record<string, ClickRecord>;
}

export interface FloodlightActivityRecord {
  id: string;
  /** Unknown for an activity created on first use by its id alone. */
  name?: string;
}

export interface SavedColumnRecord {
  savedColumnName: string;
  type: string;
}

export interface AdvertiserRecord {
  id: string;
  name?: string;
  /**
   * The advertiser's currency: what a TRANSACTION without `currencyCode` is in. Unknown for an
   * advertiser created on first use, whose transactions must then name their currency.
   */
  currencyCode?: string;
  /**
   * Made when a request named it and no seed did (default mode, decision 0035): what its rows
   * name (engine accounts, entities, clicks, Floodlight activities) is created on first use too.
   */
  createdOnFirstUse?: true;
  /** The advertiser's account in the new platform, answered with its availabilities. */
  customerId?: string;
  /** What the service sets as `attributionModel` on the advertiser's conversions. */
  attributionModel?: string;
  floodlightActivities: FloodlightActivityRecord[];
  savedColumns: SavedColumnRecord[];
  engineAccounts: Record<string, EngineAccountRecord>;
}

export interface AgencyRecord {
  id: string;
  name?: string;
  advertisers: Record<string, AdvertiserRecord>;
}

export interface SearchAds360State {
  agencies: Record<string, AgencyRecord>;
  /** Advertiser id to `<conversionTimestamp>:<conversionId>` to the Conversion as stored. */
  conversions: Record<string, Record<string, JsonObject>>;
  /** Advertiser id to Floodlight activity id to the Availability as recorded. */
  availabilities: Record<string, Record<string, JsonObject>>;
  /** The dsConversionId the next inserted conversion gets (a 64-bit integer as text). */
  nextDsConversionId: string;
}

export const emptyWorld = (): SearchAds360State => ({
  agencies: {},
  conversions: {},
  availabilities: {},
  nextDsConversionId: '1',
});

/** The key of a conversion within its advertiser: the timestamp has no colon, so the pair is unambiguous. */
export const conversionKey = (conversionTimestamp: string, conversionId: string): string =>
  `${conversionTimestamp}:${conversionId}`;

/** The Search Ads 360 world to read: the state's, or the spec examples' while nothing was written. */
export function readWorld(state: State, spec: ApiSpec): SearchAds360State {
  return state.searchads360 ?? exampleWorld(spec);
}

/** The Search Ads 360 world to write to, put into the state first if it is not there yet. */
export function writableWorld(store: Store, spec: ApiSpec): SearchAds360State {
  store.state.searchads360 ??= structuredClone(exampleWorld(spec));
  return store.state.searchads360;
}

/** Where an advertiser lives. */
export interface AdvertiserPlace {
  agency: AgencyRecord;
  advertiser: AdvertiserRecord;
}

export function findAdvertiser(world: SearchAds360State, advertiserId: string): AdvertiserPlace | undefined {
  for (const agency of Object.values(world.agencies)) {
    const advertiser = own(agency.advertisers, advertiserId);
    if (advertiser) return { agency, advertiser };
  }
  return undefined;
}

export interface EngineAccountPlace extends AdvertiserPlace {
  engineAccount: EngineAccountRecord;
}

export function findEngineAccount(
  world: SearchAds360State,
  engineAccountId: string,
): EngineAccountPlace | undefined {
  for (const agency of Object.values(world.agencies))
    for (const advertiser of Object.values(agency.advertisers)) {
      const engineAccount = own(advertiser.engineAccounts, engineAccountId);
      if (engineAccount) return { agency, advertiser, engineAccount };
    }
  return undefined;
}

/** The engine account a customer id of the new platform stands for. */
export function findCustomer(world: SearchAds360State, customerId: string): EngineAccountPlace | undefined {
  for (const agency of Object.values(world.agencies))
    for (const advertiser of Object.values(agency.advertisers))
      for (const engineAccount of Object.values(advertiser.engineAccounts))
        if (engineAccount.customerId === customerId) return { agency, advertiser, engineAccount };
  return undefined;
}

/** The engine account of an advertiser that knows a click id. */
export function findClick(
  advertiser: AdvertiserRecord,
  clickId: string,
): { engineAccount: EngineAccountRecord; click: ClickRecord } | undefined {
  for (const engineAccount of Object.values(advertiser.engineAccounts)) {
    const click = own(engineAccount.clicks, clickId);
    if (click) return { engineAccount, click };
  }
  return undefined;
}

/** The 404 of a path that names an unknown id, with the parameter as location. */
export function unknownId(parameter: string, message: string): ApiError {
  return new ApiError(404, [
    { domain: 'global', reason: 'notFound', message, location: parameter, locationType: 'parameter' },
  ]);
}

/** An advertiser that holds nothing, for reads of ids no one named yet in default mode. */
const emptyAdvertiser = (id: string): AdvertiserRecord => ({
  id,
  floodlightActivities: [],
  savedColumns: [],
  engineAccounts: {},
});

/**
 * The agency and advertiser of a path (`/agency/{agencyId}/advertiser/{advertiserId}/...`), or
 * 404. With `open` (default mode), ids no one named yet read as an empty advertiser, without
 * writing anything; an advertiser of another agency stays unknown.
 */
export function advertiserOfPath(
  world: SearchAds360State,
  agencyId: string,
  advertiserId: string,
  open = false,
): AdvertiserPlace {
  const agency = own(world.agencies, agencyId);
  const advertiser = own(agency?.advertisers, advertiserId);
  if (agency && advertiser) return { agency, advertiser };
  if (open && !findAdvertiser(world, advertiserId))
    return { agency: agency ?? { id: agencyId, advertisers: {} }, advertiser: emptyAdvertiser(advertiserId) };
  if (!agency) throw unknownId('agencyId', `Agency ${agencyId} is not found.`);
  throw unknownId('advertiserId', `Advertiser ${advertiserId} is not found in agency ${agencyId}.`);
}

/**
 * Default mode: the agencies and advertisers that rows of a batch name and no one named yet
 * are created (the advertiser marked `createdOnFirstUse`), and the world to check the rows
 * against is answered: the state's, once anything was created. An advertiser id that stands
 * under another agency is left alone, to be refused as unknown.
 */
export function worldWithRowAdvertisers(
  store: Store,
  spec: ApiSpec,
  rows: readonly (Record<string, unknown> | undefined)[],
): SearchAds360State {
  let world = readWorld(store.state, spec);
  for (const row of rows) {
    const agencyId =
      typeof row?.agencyId === 'string' && /^\d+$/.test(row.agencyId) ? row.agencyId : undefined;
    const advertiserId =
      typeof row?.advertiserId === 'string' && /^\d+$/.test(row.advertiserId) ? row.advertiserId : undefined;
    if (!agencyId || !advertiserId || findAdvertiser(world, advertiserId)) continue;
    world = writableWorld(store, spec);
    const agency = own(world.agencies, agencyId) ?? { id: agencyId, advertisers: {} };
    world.agencies[agencyId] = agency;
    agency.advertisers[advertiserId] = { ...emptyAdvertiser(advertiserId), createdOnFirstUse: true };
  }
  return world;
}
