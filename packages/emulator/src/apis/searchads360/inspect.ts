/**
 * Search Ads 360's views for the web inspector (`ApiModule.inspect`, served at
 * `/__emulator/apis/searchads360/<view>`): the agencies with their advertisers, and of one
 * advertiser (`?advertiserId=`) its conversions, its availabilities and its engine accounts'
 * entities with what the ID-mapping file says of each. They read the world the API's reads
 * read (`readWorld`): the spec examples' until a client or a seed writes, so the inspector
 * shows what a client would be answered. Reads only.
 */
import type { InspectInput, InspectView } from '../../core/api-module.js';
import { refusal, refuse } from '../../core/errors.js';
import { storedItems } from '../../core/json.js';
import { own } from '../../core/own.js';
import type { JsonObject } from '../../core/spec.js';
import type { Store } from '../../core/store.js';
import { inAnswerOrder } from './conversion-reads.js';
import { dayOf, dayText, timeZoneOf } from './days.js';
import { ID_MAPPING_COLUMNS, idMappingRows } from './reports.js';
import {
  type AdvertiserPlace,
  type EntityRecord,
  findAdvertiser,
  readWorld,
  type SearchAds360State,
} from './state.js';

/** A view of one advertiser asked for without `advertiserId` (the emulator's own endpoint). */
export const INSPECT_ADVERTISER_REQUIRED = refusal({
  id: 'inspector.searchads360AdvertiserRequired',
  scope: 'control plane',
  operations: [],
  status: 400,
  reason: 'required',
  domain: 'emulator',
  location: 'advertiserId',
  when: 'a Search Ads 360 inspector view of one advertiser is asked for without `advertiserId`',
  evidence: ['decision:0057'],
});

/** A view of an advertiser the emulator does not know (the emulator's own endpoint). */
export const INSPECT_ADVERTISER_NOT_FOUND = refusal({
  id: 'inspector.searchads360AdvertiserNotFound',
  scope: 'control plane',
  operations: [],
  status: 404,
  reason: 'notFound',
  domain: 'emulator',
  location: 'advertiserId',
  when: 'a Search Ads 360 inspector view names an advertiser the emulator does not know',
  evidence: ['decision:0057'],
});

/** An advertiser as the `advertisers` view lists it: what it is and how much it holds. */
export interface AdvertiserSummary {
  id: string;
  name?: string;
  currencyCode?: string;
  customerId?: string;
  attributionModel?: string;
  /** The IANA time zone its conversions are dated in (the default when it has none of its own). */
  timeZone: string;
  /** Made when a request first named it (default mode), not by a seed or the spec examples. */
  createdOnFirstUse: boolean;
  engineAccounts: number;
  floodlightActivities: number;
  conversions: number;
  availabilities: number;
}

/** `advertisers`: every agency with its advertisers, in the order they were made. */
export interface AdvertisersView {
  agencies: { id: string; name?: string; advertisers: AdvertiserSummary[] }[];
}

/** `conversions`: the advertiser's stored conversions as the reads answer them, in their order. */
export interface ConversionsView {
  agencyId: string;
  advertiserId: string;
  /** The advertiser's time zone, which its conversions' days are in. */
  timeZone: string;
  conversions: JsonObject[];
  /**
   * Each conversion's day (`yyyy-mm-dd`) in the advertiser's time zone, by its key
   * `<conversionTimestamp>:<conversionId>`: the day the reads' startDate and endDate match.
   */
  days: Record<string, string>;
}

/** `availabilities`: the advertiser's availabilities as recorded, one per Floodlight activity. */
export interface AvailabilitiesView {
  agencyId: string;
  advertiserId: string;
  availabilities: JsonObject[];
}

/** An entity below an engine account, and its row of the ID-mapping file if it has one. */
export interface EntityView extends EntityRecord {
  inMappingFile: boolean;
  /** The row's `Entity ID` (`<ad group's new id>~<new id>` below an ad group). */
  mappingEntityId?: string;
}

/** `entities`: the advertiser's engine accounts, each with its entities in file order. */
export interface EntitiesView {
  agencyId: string;
  advertiserId: string;
  /** The columns of the ID-mapping file (reports.getIdMappingFile). */
  mappingColumns: string[];
  engineAccounts: {
    id: string;
    name?: string;
    customerId?: string;
    /** An engine account is in the file when it has a customer id. */
    inMappingFile: boolean;
    clicks: number;
    entities: EntityView[];
  }[];
}

/** The advertiser the query names (`advertiserId`): 400 without one, 404 for one not known. */
function advertiserOf({ store, spec, query }: InspectInput<Store>): {
  world: SearchAds360State;
  place: AdvertiserPlace;
} {
  const advertiserId = query.get('advertiserId');
  if (!advertiserId)
    throw refuse(INSPECT_ADVERTISER_REQUIRED, 'Required parameter: advertiserId', {
      location: 'advertiserId',
    });
  const world = readWorld(store.state, spec);
  const place = findAdvertiser(world, advertiserId);
  if (!place)
    throw refuse(INSPECT_ADVERTISER_NOT_FOUND, `Advertiser ${advertiserId} is not found.`, {
      location: 'advertiserId',
    });
  return { world, place };
}

const count = (records: Record<string, unknown> | undefined): number =>
  records === undefined ? 0 : Object.keys(records).length;

const advertisers: InspectView<Store> = ({ store, spec }): AdvertisersView => {
  const world = readWorld(store.state, spec);
  return {
    agencies: Object.values(world.agencies).map((agency) => ({
      id: agency.id,
      ...(agency.name ? { name: agency.name } : {}),
      advertisers: Object.values(agency.advertisers).map((advertiser) => ({
        id: advertiser.id,
        ...(advertiser.name ? { name: advertiser.name } : {}),
        ...(advertiser.currencyCode ? { currencyCode: advertiser.currencyCode } : {}),
        ...(advertiser.customerId ? { customerId: advertiser.customerId } : {}),
        ...(advertiser.attributionModel ? { attributionModel: advertiser.attributionModel } : {}),
        timeZone: timeZoneOf(advertiser),
        createdOnFirstUse: advertiser.createdOnFirstUse === true,
        engineAccounts: count(advertiser.engineAccounts),
        floodlightActivities: advertiser.floodlightActivities.length,
        conversions: count(own(world.conversions, advertiser.id)),
        availabilities: count(own(world.availabilities, advertiser.id)),
      })),
    })),
  };
};

const conversions: InspectView<Store> = (input): ConversionsView => {
  const { world, place } = advertiserOf(input);
  const stored = inAnswerOrder(Object.values(own(world.conversions, place.advertiser.id) ?? {}));
  const timeZone = timeZoneOf(place.advertiser);
  const days: Record<string, string> = {};
  for (const conversion of stored) {
    const { conversionTimestamp, conversionId } = conversion;
    const day = dayOf(Number(conversionTimestamp), timeZone);
    if (day !== undefined) days[`${conversionTimestamp}:${conversionId}`] = dayText(day);
  }
  return {
    agencyId: place.agency.id,
    advertiserId: place.advertiser.id,
    timeZone,
    // Stored conversions are the answers (conversion-reads.ts): their kept JSON is sent.
    conversions: storedItems(stored),
    days,
  };
};

const availabilities: InspectView<Store> = (input): AvailabilitiesView => {
  const { world, place } = advertiserOf(input);
  return {
    agencyId: place.agency.id,
    advertiserId: place.advertiser.id,
    availabilities: Object.values(own(world.availabilities, place.advertiser.id) ?? {}),
  };
};

const entities: InspectView<Store> = (input): EntitiesView => {
  const { place } = advertiserOf(input);
  const { agency, advertiser } = place;
  // The file's rows by engine account, type and legacy id, to their Entity ID.
  const [columns = [], ...rows] = idMappingRows(agency.id, advertiser);
  const column = (name: string) => ID_MAPPING_COLUMNS.indexOf(name);
  const [type, account, legacy, entityId] = [
    column('Entity type'),
    column('Legacy engine account ID'),
    column('Legacy entity ID'),
    column('Entity ID'),
  ];
  const key = (accountId: string, entityType: string, id: string) =>
    JSON.stringify([accountId, entityType, id]);
  const inFile = new Map(
    rows.map((row) => [key(row[account] ?? '', row[type] ?? '', row[legacy] ?? ''), row]),
  );
  return {
    agencyId: agency.id,
    advertiserId: advertiser.id,
    mappingColumns: columns,
    engineAccounts: Object.values(advertiser.engineAccounts).map((engineAccount) => ({
      id: engineAccount.id,
      ...(engineAccount.name ? { name: engineAccount.name } : {}),
      ...(engineAccount.customerId ? { customerId: engineAccount.customerId } : {}),
      inMappingFile: inFile.has(key(engineAccount.id, 'ENGINE_ACCOUNT', engineAccount.id)),
      clicks: count(engineAccount.clicks),
      entities: engineAccount.entities.map((entity) => {
        const row = inFile.get(key(engineAccount.id, entity.type, entity.id));
        const mappingEntityId = row?.[entityId];
        return {
          ...entity,
          inMappingFile: row !== undefined,
          ...(mappingEntityId ? { mappingEntityId } : {}),
        };
      }),
    })),
  };
};

export const searchAds360Inspect: Readonly<Record<string, InspectView<Store>>> = {
  advertisers,
  conversions,
  availabilities,
  entities,
};
