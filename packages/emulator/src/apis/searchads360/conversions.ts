/**
 * conversion.insert and conversion.update: batches checked row by row against the entities
 * of the state, best effort per conversion (decision 0035): the valid rows are written, and
 * the 400 names each refused row (`conversion[i].field`); a row it does not name was written.
 * Each refusal is a declared entry whose evidence is in decision 0057: the emulator refuses
 * only what Google's reference and guides say the live service refuses, and otherwise stores
 * what the reference allows and answers it back.
 *
 * - a conversion is identified within its advertiser by `conversionId` with
 *   `conversionTimestamp`; insert refuses a stored pair (`duplicate`), and both refuse a
 *   `conversionId` repeated in the batch for the same advertiser (`invalid`; the first row with
 *   it is handled); update refuses keys that match nothing (`notFound`);
 * - the Floodlight activity is found by `segmentationId` or `segmentationName`; the click by
 *   `clickId`, or the attribution by `engineAccountId` (or `customerId`) with the entity ids;
 *   what the closed world of a seeded or example advertiser does not know is `notFound`;
 * - the values (`revenueMicros`, `quantityMillis`, `countMillis`) are whole int64 numbers and
 *   belong to no type: an ACTION with a quantity, or without a count, is stored as sent;
 * - update replaces the changeable fields and refuses a change of the type, the Floodlight
 *   activity or the attribution, which Google's guide says cannot change (decision 0023).
 *
 * The service fills in the attribution of the click (what the row leaves out), the activity's
 * id and name, `dsConversionId`, `conversionModifiedTimestamp`, `state` and `attributionModel`.
 */

import { refusal } from '../../core/errors.js';
import { own } from '../../core/own.js';
import { slot } from '../../core/slice.js';
import type { Json, JsonObject } from '../../core/spec.js';
import { nextRevision, now } from '../../core/state.js';
import {
  ACTIVITY_REQUIRED,
  activityOf,
  advertiserOfRow,
  BatchProblems,
  batchRows,
  CURRENCIES,
  field,
  isCount,
  isInt64,
} from './batch.js';
import { type Context, openIds } from './context.js';
import type { BatchHandler, BatchRequest, SearchAds360Handlers } from './handler-types.js';
import {
  type AdvertiserRecord,
  type ClickRecord,
  conversionKey,
  type EngineAccountRecord,
  type EntityRecord,
  type EntityType,
  findClick,
  readWorld,
  type SearchAds360State,
  worldWithRowAdvertisers,
  writableWorld,
} from './state.js';

const CONVERSION = '#/components/schemas/Conversion';
export const CONVERSION_LIST_KIND = 'doubleclicksearch#conversionList';

const WRITES = ['conversion.insert', 'conversion.update'];

// ---------------------------------------------------------------------------------------
// The refusals of the conversion batches (decision 0057 has the evidence of each)

/** A row without its keys. */
export const CONVERSION_KEY_REQUIRED = refusal({
  id: 'searchads360.conversionKeyRequired',
  scope: 'searchads360',
  operations: WRITES,
  status: 400,
  reason: 'required',
  location: 'conversion[i].conversionId, conversion[i].conversionTimestamp',
  when: 'a row lacks `conversionId` or `conversionTimestamp`',
  evidence: ['decision:0057'],
});

/** A conversionTimestamp that is not milliseconds since 1970 in digits. */
export const TIMESTAMP_INVALID = refusal({
  id: 'searchads360.conversionTimestampInvalid',
  scope: 'searchads360',
  operations: WRITES,
  status: 400,
  reason: 'invalid',
  location: 'conversion[i].conversionTimestamp',
  when: '`conversionTimestamp` is not an unsigned whole number of milliseconds since 1970 (digits, within int64)',
  evidence: ['decision:0057'],
});

/** An inserted conversion without segmentationType. */
export const SEGMENTATION_TYPE_REQUIRED = refusal({
  id: 'searchads360.segmentationTypeRequired',
  scope: 'searchads360',
  operations: ['conversion.insert'],
  status: 400,
  reason: 'required',
  location: 'conversion[i].segmentationType',
  when: 'an inserted conversion lacks `segmentationType`',
  evidence: ['decision:0057'],
});

/** A revenue, quantity or count that is not a whole int64. */
export const VALUE_NOT_INT64 = refusal({
  id: 'searchads360.valueNotInt64',
  scope: 'searchads360',
  operations: WRITES,
  status: 400,
  reason: 'invalid',
  location: 'conversion[i].revenueMicros, quantityMillis, countMillis',
  when: '`revenueMicros`, `quantityMillis` or `countMillis` is not a whole number within int64 (a fraction, or too large)',
  evidence: [
    'fact:searchads360-v2:schemas/Conversion/properties/quantityMillis/format',
    'fact:searchads360-v2:schemas/Conversion/properties/countMillis/format',
    'decision:0057',
  ],
});

/** A currency code that is not ISO 4217. */
export const CURRENCY_NOT_ISO_4217 = refusal({
  id: 'searchads360.currencyNotIso4217',
  scope: 'searchads360',
  operations: WRITES,
  status: 400,
  reason: 'invalid',
  location: 'conversion[i].currencyCode',
  when: '`currencyCode` is not an ISO 4217 alphabetic code (one Node knows)',
  evidence: ['decision:0057'],
});

/** An inserted conversion attributed to nothing. */
export const ATTRIBUTION_REQUIRED = refusal({
  id: 'searchads360.attributionRequired',
  scope: 'searchads360',
  operations: ['conversion.insert'],
  status: 400,
  reason: 'required',
  location: 'conversion[i].clickId',
  when: 'an inserted conversion names neither `clickId` nor `engineAccountId` or `customerId` (with the entity ids)',
  evidence: ['decision:0057'],
});

/** An update that names neither the click nor the attribution ids of the conversion. */
export const UPDATE_ATTRIBUTION_REQUIRED = refusal({
  id: 'searchads360.updateAttributionRequired',
  scope: 'searchads360',
  operations: ['conversion.update'],
  status: 400,
  reason: 'required',
  location: 'conversion[i].clickId',
  when: 'an updated conversion names neither its `clickId` nor any of its attribution ids (`criterionId`, `engineAccountId`, ...)',
  evidence: ['decision:0057'],
});

/** A click id the advertiser does not know (a seeded or example advertiser). */
export const CLICK_NOT_FOUND = refusal({
  id: 'searchads360.clickNotFound',
  scope: 'searchads360',
  operations: ['conversion.insert'],
  status: 400,
  reason: 'notFound',
  location: 'conversion[i].clickId',
  when: 'the click id is no click of a seeded or example advertiser (one created on first use learns it)',
  evidence: ['decision:0057'],
});

/** An engine account the advertiser does not have. */
export const ROW_ENGINE_ACCOUNT_NOT_FOUND = refusal({
  id: 'searchads360.rowEngineAccountNotFound',
  scope: 'searchads360',
  operations: ['conversion.insert'],
  status: 400,
  reason: 'notFound',
  location: 'conversion[i].engineAccountId',
  when: '`engineAccountId` is no engine account of a seeded or example advertiser',
  evidence: ['decision:0057'],
});

/** A customer id that is no engine account of the advertiser. */
export const ROW_CUSTOMER_ID_NOT_FOUND = refusal({
  id: 'searchads360.rowCustomerIdNotFound',
  scope: 'searchads360',
  operations: ['conversion.insert'],
  status: 400,
  reason: 'notFound',
  location: 'conversion[i].customerId',
  when: '`customerId`, given without `engineAccountId`, is the customer id of no engine account of a seeded or example advertiser',
  evidence: ['decision:0057'],
});

/** An engine account named with a customer id that is not its own. */
export const ENGINE_ACCOUNT_CUSTOMER_MISMATCH = refusal({
  id: 'searchads360.engineAccountCustomerIdMismatch',
  scope: 'searchads360',
  operations: ['conversion.insert'],
  status: 400,
  reason: 'invalid',
  location: 'conversion[i].customerId',
  when: '`engineAccountId` and `customerId` name two different accounts (the account has another customer id, or none)',
  evidence: ['decision:0057'],
});

/** An entity id that is no entity of that type in the engine account. */
export const ENTITY_NOT_FOUND = refusal({
  id: 'searchads360.entityNotFound',
  scope: 'searchads360',
  operations: ['conversion.insert'],
  status: 400,
  reason: 'notFound',
  location: 'conversion[i].campaignId, adGroupId, adId, criterionId, productGroupId',
  when: 'an attribution id is no campaign, ad group, ad, keyword or product group (as its field says) of the engine account of a seeded or example advertiser',
  evidence: ['decision:0057'],
});

/** An ad, keyword or product group outside the ad group of the other ids. */
export const ENTITY_NOT_IN_AD_GROUP = refusal({
  id: 'searchads360.entityNotInAdGroup',
  scope: 'searchads360',
  operations: ['conversion.insert'],
  status: 400,
  reason: 'invalid',
  location: 'conversion[i].adId, criterionId, productGroupId',
  when: 'an ad, keyword or product group the row names is not in the ad group its other ids name',
  evidence: ['decision:0057'],
});

/** An ad group outside the campaign the row names. */
export const AD_GROUP_NOT_IN_CAMPAIGN = refusal({
  id: 'searchads360.adGroupNotInCampaign',
  scope: 'searchads360',
  operations: ['conversion.insert'],
  status: 400,
  reason: 'invalid',
  location: 'conversion[i].campaignId',
  when: 'the ad group the row names (or implies) is not in the campaign it names',
  evidence: ['decision:0057'],
});

/** A conversionId twice in one request, for one advertiser. */
export const CONVERSION_ID_TWICE = refusal({
  id: 'searchads360.conversionIdTwiceInRequest',
  scope: 'searchads360',
  operations: WRITES,
  status: 400,
  reason: 'invalid',
  location: 'conversion[i].conversionId',
  when: 'an earlier row of the request has the same `conversionId` for the same advertiser (the first is handled)',
  evidence: ['decision:0057'],
});

/** An inserted conversion whose keys are stored already. */
export const CONVERSION_DUPLICATE = refusal({
  id: 'searchads360.conversionDuplicate',
  scope: 'searchads360',
  operations: ['conversion.insert'],
  status: 400,
  reason: 'duplicate',
  location: 'conversion[i].conversionId',
  when: 'the advertiser has a stored conversion with this `conversionId` and `conversionTimestamp`',
  evidence: ['decision:0057'],
});

/** An updated conversion whose keys match nothing stored. */
export const CONVERSION_NOT_FOUND = refusal({
  id: 'searchads360.conversionNotFound',
  scope: 'searchads360',
  operations: ['conversion.update'],
  status: 400,
  reason: 'notFound',
  location: 'conversion[i].conversionId',
  when: 'the advertiser has no stored conversion with this `conversionId` and `conversionTimestamp`',
  evidence: ['decision:0057'],
});

/** An updated conversion without its type. */
export const UPDATE_TYPE_REQUIRED = refusal({
  id: 'searchads360.updateTypeRequired',
  scope: 'searchads360',
  operations: ['conversion.update'],
  status: 400,
  reason: 'required',
  location: 'conversion[i].type',
  when: 'an updated conversion lacks `type`',
  evidence: ['decision:0057'],
});

/** A new type for a stored conversion. */
export const TYPE_CHANGE = refusal({
  id: 'searchads360.typeChange',
  scope: 'searchads360',
  operations: ['conversion.update'],
  status: 400,
  reason: 'invalid',
  location: 'conversion[i].type',
  when: 'an update sends another `type` than the stored conversion’s',
  evidence: ['decision:0057'],
});

/** Another Floodlight activity for a stored conversion. */
export const ACTIVITY_CHANGE = refusal({
  id: 'searchads360.activityChange',
  scope: 'searchads360',
  operations: ['conversion.update'],
  status: 400,
  reason: 'invalid',
  location: 'conversion[i].segmentationId, conversion[i].segmentationName',
  when: 'an update names another Floodlight activity than the stored conversion’s',
  evidence: ['decision:0057'],
});

/** Another click or attribution id for a stored conversion. */
export const ATTRIBUTION_CHANGE = refusal({
  id: 'searchads360.attributionChange',
  scope: 'searchads360',
  operations: ['conversion.update'],
  status: 400,
  reason: 'invalid',
  location:
    'conversion[i].clickId, engineAccountId, customerId, campaignId, adGroupId, criterionId, adId, productGroupId',
  when: 'an update sends a click or attribution id other than the stored conversion’s',
  evidence: ['decision:0057'],
});

// ---------------------------------------------------------------------------------------

/** A Conversion's fields in the order the service answers them (the spec's examples). */
const FIELD_ORDER = [
  'agencyId',
  'advertiserId',
  'engineAccountId',
  'customerId',
  'campaignId',
  'adGroupId',
  'criterionId',
  'adId',
  'productGroupId',
  'clickId',
  'conversionId',
  'conversionTimestamp',
  'conversionModifiedTimestamp',
  'dsConversionId',
  'segmentationType',
  'segmentationId',
  'segmentationName',
  'type',
  'state',
  'revenueMicros',
  'currencyCode',
  'quantityMillis',
  'countMillis',
  'floodlightOrderId',
  'channel',
  'storeId',
  'inventoryAccountId',
  'productId',
  'productCountry',
  'productLanguage',
  'deviceType',
  'attributionModel',
  'adUserDataConsent',
  'customDimension',
  'customMetric',
];

/** The attribution of a conversion besides the click: fixed once stored. */
const ATTRIBUTION = [
  'engineAccountId',
  'customerId',
  'campaignId',
  'adGroupId',
  'criterionId',
  'adId',
  'productGroupId',
] as const;

/** What conversion.update takes from the request (decision 0023). */
const CHANGEABLE = [
  'revenueMicros',
  'currencyCode',
  'quantityMillis',
  'countMillis',
  'floodlightOrderId',
  'customDimension',
  'customMetric',
  'state',
];

/** The attribution ids naming entities, with the entity type they name. */
const ENTITY_FIELDS: [field: string, type: EntityType, label: string][] = [
  ['campaignId', 'CAMPAIGN', 'Campaign'],
  ['adGroupId', 'AD_GROUP', 'Ad group'],
  ['adId', 'AD', 'Ad'],
  ['criterionId', 'KEYWORD', 'Criterion'],
  ['productGroupId', 'PRODUCT_GROUP', 'Product group'],
];

function ordered(value: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const key of FIELD_ORDER) if (value[key] !== undefined) out[key] = value[key] as Json;
  for (const [key, entry] of Object.entries(value)) if (!(key in out)) out[key] = entry;
  return out;
}

/**
 * The conversions of the body with what a client may write (read-only and unknown fields
 * dropped), by index; a row refused by the schema is undefined, its problems in `problems`.
 * An empty batch asks for nothing and is answered with nothing (decision 0057).
 */
function rowsOf(
  context: Context<BatchRequest<'conversion.insert' | 'conversion.update', 'conversion'>>,
  problems: BatchProblems,
): (JsonObject | undefined)[] {
  const rows = batchRows(context.request.body.conversion, context.request.rowProblems, problems);
  return rows.map((row) => {
    if (!row) return undefined;
    // attributionModel is the service's to set; it is ignored, as the spec says.
    const { attributionModel: _ignored, ...writable } = context.tools.writable(row, CONVERSION);
    return writable;
  });
}

/** The keys of a row and its advertiser; undefined when they cannot be found. */
function keyedAdvertiser(
  world: SearchAds360State,
  row: JsonObject,
  i: number,
  problems: BatchProblems,
  open: boolean,
): AdvertiserRecord | undefined {
  for (const name of ['conversionId', 'conversionTimestamp'])
    if (!field(row, name)) problems.required(i, name, CONVERSION_KEY_REQUIRED);
  const timestamp = field(row, 'conversionTimestamp');
  if (timestamp && !isCount(timestamp))
    problems.add(
      i,
      'conversionTimestamp',
      TIMESTAMP_INVALID,
      `conversionTimestamp must be milliseconds since 1970 in digits, not "${timestamp}"`,
    );
  return advertiserOfRow(world, row, i, problems, open);
}

/** The formats of the values: whole int64 numbers, an ISO 4217 currency. No value belongs to a type. */
function checkValues(row: JsonObject, i: number, problems: BatchProblems): void {
  for (const [name, unit] of [
    ['revenueMicros', 'micros'],
    ['quantityMillis', 'millis'],
    ['countMillis', 'millis'],
  ] as const) {
    const value = field(row, name);
    if (value !== undefined && !isInt64(value))
      problems.add(
        i,
        name,
        VALUE_NOT_INT64,
        `${name} must be a whole number of ${unit} within int64, not "${value}"`,
      );
  }
  const currency = field(row, 'currencyCode');
  if (currency !== undefined && !CURRENCIES.has(currency))
    problems.add(
      i,
      'currencyCode',
      CURRENCY_NOT_ISO_4217,
      `currencyCode "${currency}" is not an ISO 4217 currency code`,
    );
}

/**
 * An advertiser created on first use (default mode) gets the engine account and the entities a
 * row names and it does not know yet, each recorded in `problems` to be taken back if the row
 * is refused. An entity is created with the type of the field that names it and, as parent, the
 * campaign or ad group the row names; entities it knows are left to the usual checks.
 */
function createNamed(
  advertiser: AdvertiserRecord,
  row: JsonObject,
  i: number,
  problems: BatchProblems,
): void {
  const engineAccountId = field(row, 'engineAccountId');
  const customerId = field(row, 'customerId');
  let account = engineAccountId ? own(advertiser.engineAccounts, engineAccountId) : undefined;
  if (engineAccountId && !account && /^\d+$/.test(engineAccountId)) {
    const taken = customerId
      ? Object.values(advertiser.engineAccounts).some((a) => a.customerId === customerId)
      : false;
    const created: EngineAccountRecord = {
      id: engineAccountId,
      ...(customerId && !taken ? { customerId } : {}),
      entities: [],
      clicks: {},
    };
    advertiser.engineAccounts[engineAccountId] = created;
    problems.created(i, () => delete advertiser.engineAccounts[engineAccountId]);
    account = created;
  } else if (account && customerId && !account.customerId) {
    const known = account;
    known.customerId = customerId;
    problems.created(i, () => delete known.customerId);
  }
  if (!engineAccountId && customerId)
    account = Object.values(advertiser.engineAccounts).find((a) => a.customerId === customerId);
  if (!account) return;
  const entities = account.entities;
  const parents: Record<string, string | undefined> = {
    campaignId: undefined,
    adGroupId: field(row, 'campaignId'),
    adId: field(row, 'adGroupId'),
    criterionId: field(row, 'adGroupId'),
    productGroupId: field(row, 'adGroupId'),
  };
  for (const [name, type] of ENTITY_FIELDS) {
    const id = field(row, name);
    if (!id || !/^\d+$/.test(id) || entities.some((e) => e.id === id)) continue;
    const parentId = parents[name];
    const entity: EntityRecord = { id, type, ...(parentId ? { parentId } : {}) };
    entities.push(entity);
    problems.created(i, () => entities.splice(entities.indexOf(entity), 1));
  }
}

/**
 * The attribution of a new conversion, from its click or from its engine account and entity
 * ids. With a known click, the ids the row gives are kept as sent and the click fills in the
 * others (no evidence says the live service refuses ids that differ from the click's).
 */
function attributionOfRow(
  advertiser: AdvertiserRecord,
  row: JsonObject,
  i: number,
  problems: BatchProblems,
): JsonObject | undefined {
  const clickId = field(row, 'clickId');
  const open = advertiser.createdOnFirstUse === true;
  // A click an advertiser created on first use does not know yet is made from the row's ids.
  if (clickId && !(open && !findClick(advertiser, clickId))) {
    const found = findClick(advertiser, clickId);
    if (!found) {
      problems.add(
        i,
        'clickId',
        CLICK_NOT_FOUND,
        `Click id ${clickId} is not found for advertiser ${advertiser.id}.`,
      );
      return undefined;
    }
    const { engineAccount, click } = found;
    const out: JsonObject = {
      clickId,
      engineAccountId: engineAccount.id,
      ...(engineAccount.customerId ? { customerId: engineAccount.customerId } : {}),
      ...click,
    };
    for (const name of [...ATTRIBUTION, 'deviceType']) {
      const given = field(row, name);
      if (given !== undefined) out[name] = given;
    }
    return out;
  }

  if (open) createNamed(advertiser, row, i, problems);
  const engineAccountId = field(row, 'engineAccountId');
  const customerId = field(row, 'customerId');
  const accountOfRow = engineAccountId
    ? own(advertiser.engineAccounts, engineAccountId)
    : Object.values(advertiser.engineAccounts).find((a) => a.customerId === customerId);
  if (open && !accountOfRow && (clickId || customerId)) {
    // No engine account to hold the click or the entities: the ids are stored as sent.
    const out: JsonObject = {};
    for (const name of ['clickId', ...ATTRIBUTION, 'deviceType'])
      if (field(row, name)) out[name] = row[name] as Json;
    return out;
  }
  if (!engineAccountId && !customerId) {
    problems.required(
      i,
      'clickId',
      ATTRIBUTION_REQUIRED,
      'clickId, or engineAccountId (or customerId) with the ids of the entities the conversion is attributed to',
    );
    return undefined;
  }
  const accounts = Object.values(advertiser.engineAccounts);
  let account: EngineAccountRecord | undefined;
  if (engineAccountId) {
    account = own(advertiser.engineAccounts, engineAccountId);
    if (!account) {
      problems.add(
        i,
        'engineAccountId',
        ROW_ENGINE_ACCOUNT_NOT_FOUND,
        `Engine account ${engineAccountId} is not found for advertiser ${advertiser.id}.`,
      );
      return undefined;
    }
    if (customerId && account.customerId !== customerId) {
      problems.add(
        i,
        'customerId',
        ENGINE_ACCOUNT_CUSTOMER_MISMATCH,
        `Engine account ${engineAccountId} has customer id ${account.customerId ?? '(none)'}, not ${customerId}.`,
      );
      return undefined;
    }
  } else {
    account = accounts.find((a) => a.customerId === customerId);
    if (!account) {
      problems.add(
        i,
        'customerId',
        ROW_CUSTOMER_ID_NOT_FOUND,
        `Customer id ${customerId} is not an account of advertiser ${advertiser.id}.`,
      );
      return undefined;
    }
  }
  const entities = new Map(account.entities.map((e) => [e.id, e]));
  const given = new Map<string, EntityRecord>();
  let fits = true;
  for (const [name, type, label] of ENTITY_FIELDS) {
    const id = field(row, name);
    if (!id) continue;
    const entity = entities.get(id);
    if (!entity || entity.type !== type) {
      fits = false;
      problems.add(i, name, ENTITY_NOT_FOUND, `${label} ${id} is not found in engine account ${account.id}.`);
    } else given.set(name, entity);
  }
  if (!fits) return undefined;
  // An ad, a keyword and a product group name their ad group; an ad group names its campaign.
  let adGroupId = given.get('adGroupId')?.id;
  for (const [name, , label] of ENTITY_FIELDS.slice(2)) {
    const entity = given.get(name);
    if (!entity) continue;
    if (adGroupId === undefined) adGroupId = entity.parentId;
    else if (entity.parentId !== adGroupId) {
      fits = false;
      problems.add(
        i,
        name,
        ENTITY_NOT_IN_AD_GROUP,
        `${label} ${entity.id} is in ad group ${entity.parentId ?? '(none)'}, not in ad group ${adGroupId} of the other attribution ids.`,
      );
    }
  }
  const adGroup = adGroupId ? entities.get(adGroupId) : undefined;
  const campaignId = field(row, 'campaignId');
  if (campaignId && adGroup && adGroup.parentId !== campaignId) {
    fits = false;
    problems.add(
      i,
      'campaignId',
      AD_GROUP_NOT_IN_CAMPAIGN,
      `Ad group ${adGroup.id} is in campaign ${adGroup.parentId ?? '(none)'}, not ${campaignId}.`,
    );
  }
  if (!fits) return undefined;
  const out: JsonObject = { engineAccountId: account.id };
  if (account.customerId) out.customerId = account.customerId;
  const campaign = campaignId ?? adGroup?.parentId;
  if (campaign) out.campaignId = campaign;
  if (adGroupId) out.adGroupId = adGroupId;
  for (const name of ['criterionId', 'adId', 'productGroupId']) {
    const id = field(row, name);
    if (id) out[name] = id;
  }
  const device = field(row, 'deviceType');
  if (device) out.deviceType = device;
  if (clickId) {
    // Open advertiser: the click is known from now on, with what this row attributed it to.
    const { engineAccountId: _account, customerId: _customer, ...click } = out;
    const clicks = account.clicks;
    clicks[clickId] = click as ClickRecord;
    problems.created(i, () => delete clicks[clickId]);
    return { clickId, ...out };
  }
  return out;
}

/** A revenue without its currency is in the advertiser's, when the advertiser has one. */
function withCurrency(conversion: JsonObject, advertiser: AdvertiserRecord): JsonObject {
  if (
    conversion.revenueMicros !== undefined &&
    conversion.currencyCode === undefined &&
    advertiser.currencyCode
  )
    conversion.currencyCode = advertiser.currencyCode;
  return conversion;
}

const sameJson = (a: Json | undefined, b: Json | undefined): boolean =>
  JSON.stringify(a) === JSON.stringify(b);

/** Stamps written conversions: the next dsConversionIds (insert) and the modification time. */
function stamp(
  context: Context<unknown>,
  conversion: JsonObject,
  world: SearchAds360State,
  isNew: boolean,
): JsonObject {
  if (isNew) {
    conversion.dsConversionId = world.nextDsConversionId;
    world.nextDsConversionId = String(BigInt(world.nextDsConversionId) + 1n);
  }
  conversion.conversionModifiedTimestamp = String(Date.parse(now(context.store.state)));
  return ordered(conversion);
}

const answer = (conversions: JsonObject[]) => ({
  body: {
    kind: CONVERSION_LIST_KIND,
    // Google leaves an empty list out (an empty batch answers none).
    ...(conversions.length > 0 ? { conversion: conversions } : {}),
  },
});

/**
 * A conversionId may stand once per advertiser in a request; a repeat is refused as `invalid`
 * (not `duplicate`, which says that the conversion is stored already).
 */
function onceInBatch(
  firstOfId: Map<string, number>,
  advertiserId: string,
  conversionId: string,
  i: number,
  problems: BatchProblems,
): void {
  const key = JSON.stringify([advertiserId, conversionId]);
  const first = firstOfId.get(key);
  if (first === undefined) firstOfId.set(key, i);
  else
    problems.add(
      i,
      'conversionId',
      CONVERSION_ID_TWICE,
      `conversion[${first}] has conversionId ${conversionId} already; every conversion of a request needs its own conversionId.`,
    );
}

/** Stores the prepared conversions of an insert, with their dsConversionIds; answers them as stored. */
function writeInserted(
  context: Context<unknown>,
  prepared: { advertiser: AdvertiserRecord; conversion: JsonObject }[],
): JsonObject[] {
  const writable = writableWorld(context.store, context.spec);
  nextRevision(context.store.state);
  return prepared.map(({ advertiser, conversion }) => {
    const written = stamp(context, conversion, writable, true);
    const list = slot(writable.conversions, advertiser.id);
    list[conversionKey(String(written.conversionTimestamp), String(written.conversionId))] = written;
    return written;
  });
}

const insert: BatchHandler<'conversion.insert', 'conversion'> = (context) => {
  const problems = new BatchProblems('conversion', 'conversions');
  const rows = rowsOf(context, problems);
  const open = openIds(context);
  const world = open
    ? worldWithRowAdvertisers(context.store, context.spec, rows)
    : readWorld(context.store.state, context.spec);
  const firstOfId = new Map<string, number>();
  const prepared: { advertiser: AdvertiserRecord; conversion: JsonObject }[] = [];
  const check = (row: JsonObject | undefined, i: number): void => {
    if (!row) return;
    const advertiser = keyedAdvertiser(world, row, i, problems, open);
    checkValues(row, i, problems);
    if (!field(row, 'segmentationType')) problems.required(i, 'segmentationType', SEGMENTATION_TYPE_REQUIRED);
    if (!advertiser) return;
    const activity = activityOf(advertiser, row, i, problems, ACTIVITY_REQUIRED);
    const attribution = attributionOfRow(advertiser, row, i, problems);
    const conversionId = field(row, 'conversionId');
    const timestamp = field(row, 'conversionTimestamp');
    if (conversionId) {
      onceInBatch(firstOfId, advertiser.id, conversionId, i, problems);
      if (timestamp && own(own(world.conversions, advertiser.id), conversionKey(timestamp, conversionId)))
        problems.add(
          i,
          'conversionId',
          CONVERSION_DUPLICATE,
          `A conversion with conversionId ${conversionId} and this conversionTimestamp exists for the advertiser.`,
        );
    }
    if (problems.has(i) || !activity || !attribution) return;
    const conversion: JsonObject = {
      ...row,
      ...attribution,
      segmentationType: 'FLOODLIGHT',
      segmentationId: activity.id,
      ...(activity.name ? { segmentationName: activity.name } : {}),
      state: row.state ?? 'ACTIVE',
      ...(advertiser.attributionModel ? { attributionModel: advertiser.attributionModel } : {}),
    };
    // An activity the row named by id alone answers without a name it does not have.
    if (!activity.name) delete conversion.segmentationName;
    prepared.push({ advertiser, conversion: withCurrency(conversion, advertiser) });
  };
  rows.forEach((row, i) => {
    check(row, i);
    problems.settle(i);
  });
  // The valid rows are stored whatever the others are (best effort), then the refused are named.
  const stored = prepared.length > 0 ? writeInserted(context, prepared) : [];
  problems.throwIfAny(rows.length, 'stored');
  return answer(stored);
};

/** The ids an update may name its conversion by, besides the click (the guide's keyword id, or any). */
const IDENTIFYING = ['clickId', ...ATTRIBUTION];

const update: BatchHandler<'conversion.update', 'conversion'> = (context) => {
  const problems = new BatchProblems('conversion', 'conversions');
  const rows = rowsOf(context, problems);
  const open = openIds(context);
  const world = open
    ? worldWithRowAdvertisers(context.store, context.spec, rows)
    : readWorld(context.store.state, context.spec);
  const firstOfId = new Map<string, number>();
  const prepared: { advertiser: AdvertiserRecord; key: string; conversion: JsonObject }[] = [];
  const check = (row: JsonObject | undefined, i: number): void => {
    if (!row) return;
    const advertiser = keyedAdvertiser(world, row, i, problems, open);
    const type = field(row, 'type');
    if (!type) problems.required(i, 'type', UPDATE_TYPE_REQUIRED);
    if (!IDENTIFYING.some((name) => field(row, name)))
      problems.required(
        i,
        'clickId',
        UPDATE_ATTRIBUTION_REQUIRED,
        'clickId, or the attribution ids the conversion was inserted with (criterionId, engineAccountId, ...)',
      );
    checkValues(row, i, problems);
    if (!advertiser) return;
    const conversionId = field(row, 'conversionId');
    const timestamp = field(row, 'conversionTimestamp');
    if (!conversionId || !timestamp || !isCount(timestamp)) return;
    onceInBatch(firstOfId, advertiser.id, conversionId, i, problems);
    const key = conversionKey(timestamp, conversionId);
    const stored = own(own(world.conversions, advertiser.id), key);
    if (!stored) {
      problems.add(
        i,
        'conversionId',
        CONVERSION_NOT_FOUND,
        `No conversion with conversionId ${conversionId} and this conversionTimestamp exists for the advertiser.`,
      );
      return;
    }
    if (type && stored.type !== undefined && type !== stored.type)
      problems.add(
        i,
        'type',
        TYPE_CHANGE,
        'The type of a stored conversion cannot be changed; remove it and insert a new conversion instead.',
      );
    // The activity is compared when the row names one; left out, the stored one is kept.
    const names = field(row, 'segmentationId') ?? field(row, 'segmentationName');
    const activity = names ? activityOf(advertiser, row, i, problems, undefined) : undefined;
    if (activity && activity.id !== stored.segmentationId)
      problems.add(
        i,
        field(row, 'segmentationId') ? 'segmentationId' : 'segmentationName',
        ACTIVITY_CHANGE,
        `The Floodlight activity of a stored conversion cannot be changed (it is "${String(stored.segmentationName ?? stored.segmentationId)}"); remove it and insert a new conversion instead.`,
      );
    for (const name of ['clickId', ...ATTRIBUTION]) {
      if (row[name] !== undefined && !sameJson(row[name], stored[name]))
        problems.add(
          i,
          name,
          ATTRIBUTION_CHANGE,
          `The ${name} of a stored conversion cannot be changed (it is ${stored[name] === undefined ? 'not set' : JSON.stringify(stored[name])}); remove it and insert a new conversion instead.`,
        );
    }
    if (problems.has(i)) return;
    // What the guide does not list as changeable is kept as stored (descriptive fields too).
    const kept = Object.fromEntries(Object.entries(stored).filter(([name]) => !CHANGEABLE.includes(name)));
    const changed = Object.fromEntries(Object.entries(row).filter(([name]) => CHANGEABLE.includes(name)));
    const conversion = withCurrency({ ...kept, ...changed, state: row.state ?? 'ACTIVE' }, advertiser);
    prepared.push({ advertiser, key, conversion });
  };
  rows.forEach((row, i) => {
    check(row, i);
    problems.settle(i);
  });
  // The valid rows are changed whatever the others are (best effort), then the refused are named.
  const changed: JsonObject[] = [];
  if (prepared.length > 0) {
    const writable = writableWorld(context.store, context.spec);
    nextRevision(context.store.state);
    for (const { advertiser, key, conversion } of prepared) {
      const written = stamp(context, conversion, writable, false);
      (writable.conversions[advertiser.id] as Record<string, JsonObject>)[key] = written;
      changed.push(written);
    }
  }
  problems.throwIfAny(rows.length, 'changed');
  return answer(changed);
};

export const conversionWriteHandlers: SearchAds360Handlers = {
  'conversion.insert': Object.assign(insert, { batchList: 'conversion' }),
  'conversion.update': Object.assign(update, { batchList: 'conversion' }),
};
