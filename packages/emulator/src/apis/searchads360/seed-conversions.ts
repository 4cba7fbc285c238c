/**
 * The rows of a Search Ads 360 seed (seed.ts) written through the API's own batch operations, as
 * a client's would be: conversions in batches of one advertiser, each refused row told with its
 * place in the seed.
 */
import type { SeedTarget } from '../../core/api-module.js';
import { ApiError } from '../../core/errors.js';
import { own } from '../../core/own.js';
import type { JsonObject } from '../../core/spec.js';
import type { Store } from '../../core/store.js';
import { isCount } from './batch.js';
import { conversionKey, findCustomer, type SearchAds360State, writableWorld } from './state.js';

/** Stops the seed with `message` at `place` (seed.ts). */
export type Fail = (place: string, message: string) => never;

/**
 * A batch refusal's location as the seed's place: `conversion[2].clickId` of the batch whose
 * rows are the seed's `rows` is `searchads360.conversions[5].clickId` (`key` is the seed's
 * list, `list` the request's).
 */
function seedPlace(location: string | undefined, key: string, list: string, rows: readonly number[]): string {
  const match = location === undefined ? null : new RegExp(`^${list}\\[(\\d+)\\](.*)$`).exec(location);
  if (!match) return `searchads360.${key}${location ? `.${location}` : ''}`;
  const row = rows[Number(match[1])] ?? Number(match[1]);
  return `searchads360.${key}[${row}]${match[2] ?? ''}`;
}

/**
 * Runs one batch of the seed's rows (`rows`: their indexes in the seed's list) as the seed, a
 * refusal named at the seed's place of the first row at fault.
 */
export function seedBatch(
  target: SeedTarget<Store>,
  operationId: string,
  list: string,
  key: string,
  rows: readonly number[],
  body: JsonObject[],
  fail: Fail,
): void {
  try {
    target.invokeAsSeed(operationId, { body: { [list]: body } });
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    const [first, ...rest] = error.body.error.errors;
    const more = rest
      .map((item) => `; ${seedPlace(item.location, key, list, rows)}: ${item.reason}: ${item.message}`)
      .join('');
    fail(
      seedPlace(first?.location, key, list, rows),
      `${first?.reason ?? error.status}: ${first?.message ?? error.message}${more}`,
    );
  }
}

/**
 * The seed's conversions in batches that conversion.insert takes: a conversionId comes once
 * per advertiser in a batch, so a later one with the same id (at another time) opens the next.
 * Each batch lists the seed's indexes of its rows.
 */
function conversionBatches(conversions: readonly JsonObject[]): number[][] {
  const batches: { rows: number[]; ids: Set<string> }[] = [];
  conversions.forEach((row, i) => {
    const key = JSON.stringify([row.advertiserId ?? row.customerId ?? null, row.conversionId ?? null]);
    let batch = batches.find((b) => !b.ids.has(key));
    if (!batch) {
      batch = { rows: [], ids: new Set() };
      batches.push(batch);
    }
    batch.rows.push(i);
    batch.ids.add(key);
  });
  return batches.map((b) => b.rows);
}

/** The advertiser a seed conversion is for: its `advertiserId`, or the one of its `customerId`. */
function advertiserOfConversion(world: SearchAds360State, row: JsonObject): string | undefined {
  if (typeof row.advertiserId === 'string') return row.advertiserId;
  return typeof row.customerId === 'string' ? findCustomer(world, row.customerId)?.advertiser.id : undefined;
}

/**
 * Inserts the seed's conversions with conversion.insert, validated as a client's request is,
 * then gives those that name a `dsConversionId` theirs (checked first: digits, not given
 * twice, not one a stored conversion has), and numbers later inserts past the highest.
 */
export function insertConversions(target: SeedTarget<Store>, conversions: JsonObject[], fail: Fail): void {
  const world = writableWorld(target.store, target.spec);
  const taken = new Set<string>();
  for (const stored of Object.values(world.conversions))
    for (const conversion of Object.values(stored))
      if (typeof conversion.dsConversionId === 'string') taken.add(conversion.dsConversionId);
  const given = new Map<string, number>();
  conversions.forEach((row, i) => {
    const id = row.dsConversionId;
    if (id === undefined) return;
    const at = `searchads360.conversions[${i}].dsConversionId`;
    if (typeof id !== 'string' || !isCount(id))
      fail(at, `expected a dsConversionId in digits, found ${JSON.stringify(id)}`);
    const first = given.get(id);
    if (first !== undefined) fail(at, `${id} is already searchads360.conversions[${first}]'s`);
    if (taken.has(id)) fail(at, `${id} is a stored conversion's already`);
    given.set(id, i);
  });
  // The others are numbered past the highest given, so that no two conversions share one.
  let highest = BigInt(world.nextDsConversionId) - 1n;
  for (const id of given.keys()) if (BigInt(id) > highest) highest = BigInt(id);
  world.nextDsConversionId = `${highest + 1n}`;
  for (const rows of conversionBatches(conversions))
    seedBatch(
      target,
      'conversion.insert',
      'conversion',
      'conversions',
      rows,
      rows.map((i) => conversions[i] ?? {}),
      fail,
    );
  for (const [id, i] of given) {
    const row = conversions[i] ?? {};
    const stored = own(world.conversions, advertiserOfConversion(world, row) ?? '');
    const key = conversionKey(`${row.conversionTimestamp}`, `${row.conversionId}`);
    const conversion = own(stored, key);
    // Stored conversions are replaced, never changed in place (their JSON is kept, json.ts).
    if (stored && conversion) stored[key] = { ...conversion, dsConversionId: id };
  }
}
