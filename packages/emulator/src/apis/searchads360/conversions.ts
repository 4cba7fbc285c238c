/**
 * conversion.insert and conversion.update: batches checked row by row against the entities
 * of the state, best effort per conversion (decision 0035): the valid rows are written, and
 * the 400 names each refused row (`conversion[i].field`); a row it does not name was written.
 *
 * - a conversion is identified within its advertiser by `conversionId` with
 *   `conversionTimestamp`; insert refuses a stored pair (`duplicate`: a resent conversion
 *   that is stored already), and both refuse a `conversionId` repeated in the batch for the
 *   same advertiser (`invalid`; the first row with it is handled); update refuses keys that
 *   match nothing (`notFound`);
 * - the Floodlight activity is found by `segmentationId` or `segmentationName`; the click by
 *   `clickId`, or the attribution by `engineAccountId` (or `customerId`) with the entity ids;
 *   unknown ones are `notFound`, contradicting ones `invalid`;
 * - a TRANSACTION carries `revenueMicros` (its currency defaults to the advertiser's), an
 *   ACTION carries `countMillis` and no revenue;
 * - update replaces the changeable fields and refuses a change of any other (decision 0023).
 *
 * The service fills in the attribution of the click, the activity's id and name,
 * `dsConversionId`, `conversionModifiedTimestamp`, `state` and `attributionModel`.
 */

import { ApiError } from '../../core/errors.js';
import { own } from '../../core/own.js';
import type { Json, JsonObject } from '../../core/spec.js';
import { nextRevision, now } from '../../core/state.js';
import { slot } from '../../core/storage.js';
import { activityOf, BatchProblems, batchRows, CURRENCIES, field, isCount } from './batch.js';
import type { Context } from './context.js';
import type { BatchHandler, BatchRequest, SearchAds360Handlers } from './handler-types.js';
import {
  type AdvertiserRecord,
  type ClickRecord,
  conversionKey,
  type EngineAccountRecord,
  type EntityRecord,
  type EntityType,
  findAdvertiser,
  findClick,
  readWorld,
  type SearchAds360State,
  worldWithRowAdvertisers,
  writableWorld,
} from './state.js';

const CONVERSION = '#/components/schemas/Conversion';
export const CONVERSION_LIST_KIND = 'doubleclicksearch#conversionList';

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

/** Fields that describe the sale or the user: kept as inserted, since update may not change them. */
const DESCRIPTIVE = [
  'adUserDataConsent',
  'channel',
  'storeId',
  'inventoryAccountId',
  'productId',
  'productCountry',
  'productLanguage',
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
 */
function rowsOf(
  context: Context<BatchRequest<'conversion.insert' | 'conversion.update', 'conversion'>>,
  problems: BatchProblems,
): (JsonObject | undefined)[] {
  const rows = batchRows(context.request.body.conversion, context.request.rowProblems, problems);
  if (rows.length === 0)
    throw new ApiError(400, [
      {
        domain: 'global',
        reason: 'required',
        message: 'Required field: conversion (a batch of at least one conversion)',
        location: 'conversion',
        locationType: 'parameter',
      },
    ]);
  return rows.map((row) => {
    if (!row) return undefined;
    // attributionModel is the service's to set; it is ignored, as the spec says.
    const { attributionModel: _ignored, ...writable } = context.tools.writable(row, CONVERSION);
    return writable;
  });
}

/** The keys of a row, and its agency and advertiser; undefined when they cannot be found. */
function advertiserOfRow(
  world: SearchAds360State,
  row: JsonObject,
  i: number,
  problems: BatchProblems,
  open = false,
): AdvertiserRecord | undefined {
  for (const name of ['agencyId', 'advertiserId', 'conversionId', 'conversionTimestamp'])
    if (!field(row, name)) problems.required(i, name);
  const timestamp = field(row, 'conversionTimestamp');
  if (timestamp && !isCount(timestamp))
    problems.add(
      i,
      'conversionTimestamp',
      'invalid',
      `conversionTimestamp must be milliseconds since 1970 in digits, not "${timestamp}"`,
    );
  const agencyId = field(row, 'agencyId');
  const advertiserId = field(row, 'advertiserId');
  if (!agencyId || !advertiserId) return undefined;
  const agency = own(world.agencies, agencyId);
  const elsewhere = agency ? undefined : findAdvertiser(world, advertiserId);
  if (elsewhere && open) {
    // Default mode creates unknown agencies, but an advertiser belongs to one agency only.
    problems.add(
      i,
      'advertiserId',
      'notFound',
      `Advertiser ${advertiserId} is not found in agency ${agencyId} (it is in agency ${elsewhere.agency.id}).`,
    );
    return undefined;
  }
  if (!agency) {
    problems.add(i, 'agencyId', 'notFound', `Agency ${agencyId} is not found.`);
    return undefined;
  }
  const advertiser = own(agency.advertisers, advertiserId);
  if (!advertiser)
    problems.add(
      i,
      'advertiserId',
      'notFound',
      `Advertiser ${advertiserId} is not found in agency ${agencyId}.`,
    );
  return advertiser;
}

/** The value fields of a conversion of `type`: revenue for a TRANSACTION, a count for an ACTION. */
function checkValues(row: JsonObject, type: string, i: number, problems: BatchProblems): void {
  for (const [name, unit] of [
    ['revenueMicros', 'micros'],
    ['quantityMillis', 'millis'],
    ['countMillis', 'millis'],
  ] as const) {
    const value = field(row, name);
    if (value !== undefined && !isCount(value))
      problems.add(
        i,
        name,
        'invalid',
        `${name} must be a whole number of ${unit} of at least 0, not "${value}"`,
      );
  }
  if (type === 'TRANSACTION') {
    if (!field(row, 'revenueMicros'))
      problems.required(i, 'revenueMicros', 'revenueMicros (a TRANSACTION carries its revenue)');
    if (row.countMillis !== undefined)
      problems.add(
        i,
        'countMillis',
        'invalid',
        'countMillis counts the actions of an ACTION; a TRANSACTION gives revenueMicros and quantityMillis',
      );
    const currency = field(row, 'currencyCode');
    if (currency !== undefined && !CURRENCIES.has(currency))
      problems.add(
        i,
        'currencyCode',
        'invalid',
        `currencyCode "${currency}" is not an ISO 4217 currency code`,
      );
  } else if (type === 'ACTION') {
    if (!field(row, 'countMillis'))
      problems.required(i, 'countMillis', 'countMillis (an ACTION carries its count)');
    for (const name of ['revenueMicros', 'currencyCode', 'quantityMillis'])
      if (row[name] !== undefined)
        problems.add(
          i,
          name,
          'invalid',
          `An ACTION carries no ${name}; a conversion with revenue is a TRANSACTION`,
        );
  }
}

/** A TRANSACTION of an advertiser without a currency of its own (created on first use) names its currency. */
function needsCurrency(
  advertiser: AdvertiserRecord,
  row: JsonObject,
  i: number,
  problems: BatchProblems,
): void {
  if (!advertiser.currencyCode && !field(row, 'currencyCode'))
    problems.required(
      i,
      'currencyCode',
      `currencyCode (advertiser ${advertiser.id} was created on first use and has no currency of its own to default to)`,
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

/** The attribution of a new conversion, from its click or from its engine account and entity ids. */
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
        'notFound',
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
    let fits = true;
    for (const name of ATTRIBUTION) {
      const given = row[name];
      if (given !== undefined && given !== out[name]) {
        fits = false;
        problems.add(
          i,
          name,
          'invalid',
          `Click ${clickId} has ${name} ${String(out[name] ?? '(none)')}, not ${String(given)}; leave it out to take the click's.`,
        );
      }
    }
    const device = field(row, 'deviceType');
    if (device && click.deviceType && device !== click.deviceType) {
      fits = false;
      problems.add(
        i,
        'deviceType',
        'invalid',
        `Click ${clickId} was on a ${click.deviceType} device, not ${device}.`,
      );
    }
    if (device && !click.deviceType) out.deviceType = device;
    return fits ? out : undefined;
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
        'notFound',
        `Engine account ${engineAccountId} is not found for advertiser ${advertiser.id}.`,
      );
      return undefined;
    }
    if (customerId && account.customerId !== customerId) {
      problems.add(
        i,
        'customerId',
        'invalid',
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
        'notFound',
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
      problems.add(i, name, 'notFound', `${label} ${id} is not found in engine account ${account.id}.`);
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
        'invalid',
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
      'invalid',
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

/** The currency a TRANSACTION is stored in: its own, else the advertiser's. */
function withCurrency(conversion: JsonObject, advertiser: AdvertiserRecord): JsonObject {
  if (conversion.type === 'TRANSACTION' && conversion.currencyCode === undefined && advertiser.currencyCode)
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
  body: { kind: CONVERSION_LIST_KIND, conversion: conversions },
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
      'invalid',
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
  const world = context.openIds
    ? worldWithRowAdvertisers(context.store, context.spec, rows)
    : readWorld(context.store.state, context.spec);
  const firstOfId = new Map<string, number>();
  const prepared: { advertiser: AdvertiserRecord; conversion: JsonObject }[] = [];
  const check = (row: JsonObject | undefined, i: number): void => {
    if (!row) return;
    const advertiser = advertiserOfRow(world, row, i, problems, context.openIds === true);
    const type = field(row, 'type');
    if (!type) problems.required(i, 'type');
    else checkValues(row, type, i, problems);
    if (!advertiser) return;
    if (type === 'TRANSACTION') needsCurrency(advertiser, row, i, problems);
    if (!field(row, 'segmentationType')) problems.required(i, 'segmentationType');
    const activity = activityOf(advertiser, row, i, problems);
    const attribution = attributionOfRow(advertiser, row, i, problems);
    const conversionId = field(row, 'conversionId');
    const timestamp = field(row, 'conversionTimestamp');
    if (conversionId) {
      onceInBatch(firstOfId, advertiser.id, conversionId, i, problems);
      if (timestamp && own(own(world.conversions, advertiser.id), conversionKey(timestamp, conversionId)))
        problems.add(
          i,
          'conversionId',
          'duplicate',
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

const update: BatchHandler<'conversion.update', 'conversion'> = (context) => {
  const problems = new BatchProblems('conversion', 'conversions');
  const rows = rowsOf(context, problems);
  const world = context.openIds
    ? worldWithRowAdvertisers(context.store, context.spec, rows)
    : readWorld(context.store.state, context.spec);
  const firstOfId = new Map<string, number>();
  const prepared: { advertiser: AdvertiserRecord; key: string; conversion: JsonObject }[] = [];
  const check = (row: JsonObject | undefined, i: number): void => {
    if (!row) return;
    const advertiser = advertiserOfRow(world, row, i, problems, context.openIds === true);
    if (!field(row, 'type')) problems.required(i, 'type');
    if (!field(row, 'clickId') && !field(row, 'engineAccountId') && !field(row, 'customerId'))
      problems.required(i, 'clickId', 'clickId, or the attribution ids the conversion was inserted with');
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
        'notFound',
        `No conversion with conversionId ${conversionId} and this conversionTimestamp exists for the advertiser.`,
      );
      return;
    }
    const type = field(row, 'type');
    // The values are checked against the stored type; a new type is refused on its own.
    if (type && type !== stored.type)
      problems.add(
        i,
        'type',
        'invalid',
        'The type of a stored conversion cannot be changed; remove it and insert a new conversion instead.',
      );
    else {
      checkValues(row, String(stored.type), i, problems);
      if (stored.type === 'TRANSACTION') needsCurrency(advertiser, row, i, problems);
    }
    if (!field(row, 'segmentationType')) problems.required(i, 'segmentationType');
    const activity = activityOf(advertiser, row, i, problems);
    if (activity && activity.id !== stored.segmentationId)
      problems.add(
        i,
        field(row, 'segmentationId') ? 'segmentationId' : 'segmentationName',
        'invalid',
        `The Floodlight activity of a stored conversion cannot be changed (it is "${String(stored.segmentationName)}"); remove it and insert a new conversion instead.`,
      );
    for (const name of ['clickId', ...ATTRIBUTION, 'deviceType', ...DESCRIPTIVE]) {
      if (row[name] !== undefined && !sameJson(row[name], stored[name]))
        problems.add(
          i,
          name,
          'invalid',
          `The ${name} of a stored conversion cannot be changed (it is ${stored[name] === undefined ? 'not set' : JSON.stringify(stored[name])}); remove it and insert a new conversion instead.`,
        );
    }
    if (problems.has(i)) return;
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
