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
import { ATTRIBUTION, attributionOfRow } from './conversion-attribution.js';
import {
  ACTIVITY_CHANGE,
  ATTRIBUTION_CHANGE,
  CONVERSION_DUPLICATE,
  CONVERSION_ID_TWICE,
  CONVERSION_KEY_REQUIRED,
  CONVERSION_NOT_FOUND,
  CURRENCY_NOT_ISO_4217,
  SEGMENTATION_TYPE_REQUIRED,
  TIMESTAMP_INVALID,
  TYPE_CHANGE,
  UPDATE_ATTRIBUTION_REQUIRED,
  UPDATE_TYPE_REQUIRED,
  VALUE_NOT_INT64,
} from './conversion-refusals.js';
import type { BatchHandler, BatchRequest, SearchAds360Handlers } from './handler-types.js';
import {
  type AdvertiserRecord,
  conversionKey,
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
  ...ATTRIBUTION,
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
