/**
 * The shapes of the Search Ads 360 part of the state (state.ts has what works on them). Types
 * and one constant only, importing nothing of the emulator but the JSON type: the core's
 * `State` names the part, and nothing here leads back to the core.
 */
import type { JsonObject } from '../../core/spec.js';

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
  /**
   * The IANA time zone its conversions are dated in (the reads' `startDate` and `endDate`);
   * without one, the default of days.ts (an advertiser of the spec examples, or of a state
   * dumped before the field existed).
   */
  timeZone?: string;
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
