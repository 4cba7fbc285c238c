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

import { refusal, refuse } from '../../core/errors.js';
import { own } from '../../core/own.js';
import type { ApiSpec } from '../../core/spec.js';
import type { State, StateHolder } from '../../core/state.js';

import { DEFAULT_TIME_ZONE } from './days.js';
import { exampleWorld } from './examples.js';

import type {
  AdvertiserRecord,
  AgencyRecord,
  ClickRecord,
  EngineAccountRecord,
  SearchAds360State,
} from './records.js';

export type {
  AdvertiserRecord,
  AgencyRecord,
  ClickRecord,
  EngineAccountRecord,
  EntityRecord,
  EntityType,
  FloodlightActivityRecord,
  SavedColumnRecord,
  SearchAds360State,
} from './records.js';
export { AD_GROUP_CHILDREN } from './records.js';

export const emptyWorld = (): SearchAds360State => ({
  agencies: {},
  conversions: {},
  availabilities: {},
  nextDsConversionId: '1',
});

/** The key of a conversion within its advertiser: the timestamp has no colon, so the pair is unambiguous. */
export const conversionKey = (conversionTimestamp: string, conversionId: string): string =>
  `${conversionTimestamp}:${conversionId}`;

/**
 * Search Ads 360's part of a state, when it has one. The part is ours alone: made by
 * `writableWorld`, or checked against our schema when a state is loaded (state-schema.ts).
 */
export const worldOf = (state: State): SearchAds360State | undefined =>
  state.searchads360 as SearchAds360State | undefined;

/** The Search Ads 360 world to read: the state's, or the spec examples' while nothing was written. */
export function readWorld(state: State, spec: ApiSpec): SearchAds360State {
  return worldOf(state) ?? exampleWorld(spec);
}

/** The Search Ads 360 world to write to, put into the state first if it is not there yet. */
export function writableWorld(store: StateHolder, spec: ApiSpec): SearchAds360State {
  let world = worldOf(store.state);
  if (!world) {
    world = structuredClone(exampleWorld(spec));
    store.state.searchads360 = world;
  }
  return world;
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

const PATH_READS = ['conversion.get', 'reports.getIdMappingFile', 'savedColumns.list'];

/** A path's agency that the emulator does not know. */
export const AGENCY_NOT_FOUND = refusal({
  id: 'searchads360.agencyNotFound',
  scope: 'searchads360',
  operations: PATH_READS,
  status: 404,
  reason: 'notFound',
  location: 'agencyId',
  when: 'the path’s agency is not one the emulator knows (strict mode: no seed or example names it)',
  evidence: ['decision:0057'],
});

/** A path's advertiser that is not one of the path's agency. */
export const ADVERTISER_NOT_FOUND = refusal({
  id: 'searchads360.advertiserNotFound',
  scope: 'searchads360',
  operations: PATH_READS,
  status: 404,
  reason: 'notFound',
  location: 'advertiserId',
  when: 'the path’s advertiser is not in the path’s agency (strict mode, or an advertiser of another agency)',
  evidence: ['decision:0057'],
});

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
  if (!agency) throw refuse(AGENCY_NOT_FOUND, `Agency ${agencyId} is not found.`, { location: 'agencyId' });
  throw refuse(ADVERTISER_NOT_FOUND, `Advertiser ${advertiserId} is not found in agency ${agencyId}.`, {
    location: 'advertiserId',
  });
}

/**
 * Default mode: the agencies and advertisers that rows of a batch name and no one named yet
 * are created (the advertiser marked `createdOnFirstUse`), and the world to check the rows
 * against is answered: the state's, once anything was created. An advertiser id that stands
 * under another agency is left alone, to be refused as unknown.
 */
export function worldWithRowAdvertisers(
  store: StateHolder,
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
    agency.advertisers[advertiserId] = {
      ...emptyAdvertiser(advertiserId),
      createdOnFirstUse: true,
      timeZone: DEFAULT_TIME_ZONE,
    };
  }
  return world;
}
