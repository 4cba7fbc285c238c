/**
 * The problems of a batch (conversions, availabilities), best effort per row (decision 0035):
 * each row is checked on its own, a refused row gets one error entry per problem located as
 * `conversion[i].field`, each made by the declared refusal of its condition, and the rows
 * without a problem are written. The batch's 400 then names every refused row; a row it does
 * not name was written. The refusals the row checks of both batch kinds share (the advertiser
 * of a row, its Floodlight activity) are declared here; decision 0057 has their evidence.
 */
import { ApiError, type GoogleErrorItem, type Refusal, refusal } from '../../core/errors.js';
import { own } from '../../core/own.js';
import { isObject, type JsonObject } from '../../core/spec.js';
import {
  type AdvertiserPlace,
  type AdvertiserRecord,
  type FloodlightActivityRecord,
  findAdvertiser,
  findCustomer,
  type SearchAds360State,
} from './state.js';

const BATCHES = ['conversion.insert', 'conversion.update', 'conversion.updateAvailability'];

/** The batch's answer when any row was refused: its items are the rows' own refusals. */
export const BATCH_ROWS_REFUSED = refusal({
  id: 'searchads360.batchRowsRefused',
  scope: 'searchads360',
  operations: BATCHES,
  status: 400,
  reason: 'invalid',
  location: 'conversion[i].field, availabilities[i].field',
  when: 'a row of a best-effort batch was refused: one item per problem, each of its row’s own entry; every row no item names was written',
  evidence: [
    'fact:conventions:searchads360Batches/bestEffort',
    'fact:conventions:searchads360Batches/callerChecksEveryConversion',
    'decision:0057',
  ],
});

/** A row that names neither its agency and advertiser nor a customer id. */
export const ROW_ADVERTISER_REQUIRED = refusal({
  id: 'searchads360.rowAdvertiserRequired',
  scope: 'searchads360',
  operations: BATCHES,
  status: 400,
  reason: 'required',
  location: 'conversion[i].agencyId, conversion[i].advertiserId (availabilities[i] alike)',
  when: 'a row lacks `agencyId` or `advertiserId` and names no `customerId` either',
  evidence: ['decision:0057'],
});

/**
 * A row addressed by the new platform's customer id alone, where no account the emulator knows
 * has that customer id: it cannot make up the agency and advertiser such a customer needs.
 */
export const ROW_CUSTOMER_ID_UNKNOWN = refusal({
  id: 'searchads360.rowCustomerIdUnknown',
  scope: 'searchads360',
  operations: BATCHES,
  status: 400,
  reason: 'notFound',
  location: 'conversion[i].customerId (availabilities[i] alike)',
  when: 'a row names `customerId` without `agencyId` and `advertiserId`, and no engine account or advertiser the emulator knows has that customer id',
  evidence: ['decision:0057'],
});

/** A row's agency that the emulator does not know (strict mode, or what no seed names). */
export const ROW_AGENCY_NOT_FOUND = refusal({
  id: 'searchads360.rowAgencyNotFound',
  scope: 'searchads360',
  operations: BATCHES,
  status: 400,
  reason: 'notFound',
  location: 'conversion[i].agencyId (availabilities[i] alike)',
  when: 'the row’s agency is not one the emulator knows (strict mode: no seed or example names it)',
  evidence: ['decision:0057'],
});

/** A row's advertiser that is not one of the named agency's. */
export const ROW_ADVERTISER_NOT_FOUND = refusal({
  id: 'searchads360.rowAdvertiserNotFound',
  scope: 'searchads360',
  operations: BATCHES,
  status: 400,
  reason: 'notFound',
  location: 'conversion[i].advertiserId (availabilities[i] alike)',
  when: 'the row’s advertiser is not in the named agency: one no seed names (strict mode), or one of another agency',
  evidence: ['decision:0057'],
});

/** A row that names no Floodlight activity. */
export const ACTIVITY_REQUIRED = refusal({
  id: 'searchads360.activityRequired',
  scope: 'searchads360',
  operations: ['conversion.insert', 'conversion.updateAvailability'],
  status: 400,
  reason: 'required',
  location: 'conversion[i].segmentationName (availabilities[i] alike)',
  when: 'an inserted conversion or an availability names neither `segmentationId` nor `segmentationName`',
  evidence: ['decision:0057'],
});

/** A Floodlight activity id the advertiser does not have. */
export const ACTIVITY_ID_NOT_FOUND = refusal({
  id: 'searchads360.activityIdNotFound',
  scope: 'searchads360',
  operations: BATCHES,
  status: 400,
  reason: 'notFound',
  location: 'conversion[i].segmentationId (availabilities[i] alike)',
  when: '`segmentationId` is no Floodlight activity of a seeded or example advertiser (one created on first use gets it)',
  evidence: ['decision:0057'],
});

/** A Floodlight activity name the advertiser does not have (named without an id). */
export const ACTIVITY_NAME_NOT_FOUND = refusal({
  id: 'searchads360.activityNameNotFound',
  scope: 'searchads360',
  operations: BATCHES,
  status: 400,
  reason: 'notFound',
  location: 'conversion[i].segmentationName (availabilities[i] alike)',
  when: '`segmentationName`, given without `segmentationId`, is no Floodlight activity of a seeded or example advertiser',
  evidence: ['decision:0057'],
});

export class BatchProblems {
  readonly items: GoogleErrorItem[] = [];
  /** The row of each entry of `items`. */
  private readonly itemRows: number[] = [];
  private readonly rows = new Set<number>();

  constructor(
    /** The body's array field: `conversion`, `availabilities`. */
    readonly list: string,
    /** The plural noun for the message: `conversions`, `availabilities`. */
    readonly noun: string,
  ) {}

  /** A problem of row `index` at `field` (none: the row as a whole), made by its refusal. */
  add(index: number, field: string | undefined, refused: Refusal, message: string): void {
    this.rows.add(index);
    this.itemRows.push(index);
    this.items.push(
      refused.item(message, {
        location: field ? `${this.list}[${index}].${field}` : `${this.list}[${index}]`,
      }),
    );
  }

  /** A required field of row `index` that is missing, as `refused` names it. */
  required(index: number, field: string, refused: Refusal, what = field): void {
    this.add(index, field, refused, `Required field: ${what}`);
  }

  /** Problems of row `index` found before the handler (its schema problems, validate.ts). */
  addItems(index: number, items: readonly GoogleErrorItem[]): void {
    this.rows.add(index);
    for (const item of items) {
      this.itemRows.push(index);
      this.items.push(item);
    }
  }

  private readonly undo = new Map<number, (() => void)[]>();

  /** Records how to take back what row `index` created on first use, should it be refused. */
  created(index: number, undo: () => void): void {
    this.undo.set(index, [...(this.undo.get(index) ?? []), undo]);
  }

  /**
   * Once row `index` is checked: if it was refused, what it created on first use is taken
   * back, so a refused row leaves no entity behind for the next rows to be checked against.
   */
  settle(index: number): void {
    const undo = this.undo.get(index);
    this.undo.delete(index);
    if (undo && this.rows.has(index)) for (const step of undo.reverse()) step();
  }

  /** Whether row `index` has a problem so far. */
  has(index: number): boolean {
    return this.rows.has(index);
  }

  /**
   * Throws the batch's 400 when any row was refused, after the other rows were written: the
   * message says how many of `total` were refused and that the rest were `done`.
   */
  throwIfAny(total: number, done: 'stored' | 'changed' | 'recorded'): void {
    if (this.items.length === 0) return;
    const count = this.rows.size;
    // In row order (a row's schema problems were added before the rows were checked).
    const order = this.items
      .map((_, k) => k)
      .sort((a, b) => (this.itemRows[a] ?? 0) - (this.itemRows[b] ?? 0));
    throw new ApiError(
      BATCH_ROWS_REFUSED,
      order.map((k) => this.items[k] as GoogleErrorItem),
      `Refused ${count} of ${total} ${this.noun}, named in errors; ${done} the other ${total - count}.`,
    );
  }
}

/**
 * The rows of a batch body's array, by index (a row that is not an object, or that the schema
 * refused, is undefined), the schema problems of single rows already added to `problems`.
 */
export function batchRows(
  rows: readonly unknown[] = [],
  rowProblems: Map<number, GoogleErrorItem[]> | undefined,
  problems: BatchProblems,
): (JsonObject | undefined)[] {
  return rows.map((row, i) => {
    const items = rowProblems?.get(i);
    if (items) problems.addItems(i, items);
    return isObject(row) && !items ? row : undefined;
  });
}

/** The text of a field if it is a non-empty string. */
export const field = (row: Record<string, unknown>, name: string): string | undefined => {
  const value = row[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
};

const INT64_MAX = 9223372036854775807n;
const INT64_MIN = -9223372036854775808n;

/** A whole number from zero to the largest int64, written as digits (milliseconds since 1970). */
export const isCount = (value: string): boolean => /^\d+$/.test(value) && BigInt(value) <= INT64_MAX;

/** A whole number within int64, written as digits with an optional minus (micros, millis). */
export const isInt64 = (value: string): boolean => {
  if (!/^-?\d+$/.test(value)) return false;
  const number = BigInt(value);
  return number >= INT64_MIN && number <= INT64_MAX;
};

/**
 * The agency and advertiser a batch row names; undefined, with the row's problem added, when
 * they cannot be found. `open` (default mode) has created the ones no one named yet
 * (state.ts `worldWithRowAdvertisers`), so an unknown one is then an advertiser of another
 * agency.
 */
export function advertiserOfRow(
  world: SearchAds360State,
  row: JsonObject,
  i: number,
  problems: BatchProblems,
  open: boolean,
): AdvertiserRecord | undefined {
  const agencyId = field(row, 'agencyId');
  const advertiserId = field(row, 'advertiserId');
  if (!agencyId || !advertiserId) {
    const customerId = field(row, 'customerId');
    if (customerId) {
      // The new platform names the account by its customer id alone (new-platform guide): the
      // row is the advertiser's whose account, or whose own customer id, it is.
      const place = findCustomer(world, customerId) ?? findAdvertiserOfCustomer(world, customerId);
      if (place) {
        row.agencyId = place.agency.id;
        row.advertiserId = place.advertiser.id;
        return place.advertiser;
      }
      problems.add(
        i,
        'customerId',
        ROW_CUSTOMER_ID_UNKNOWN,
        `Customer id ${customerId} is not an account the emulator knows, and a row without agencyId and advertiserId cannot create one: name them once (default mode creates them), or seed the advertiser with this customer id.`,
      );
      return undefined;
    }
    if (!agencyId) problems.required(i, 'agencyId', ROW_ADVERTISER_REQUIRED);
    if (!advertiserId) problems.required(i, 'advertiserId', ROW_ADVERTISER_REQUIRED);
    return undefined;
  }
  const agency = own(world.agencies, agencyId);
  const advertiser = own(agency?.advertisers, advertiserId);
  if (advertiser) return advertiser;
  // Default mode creates unknown agencies, but an advertiser belongs to one agency only.
  const elsewhere = open ? findAdvertiser(world, advertiserId) : undefined;
  if (!agency && !elsewhere) {
    problems.add(i, 'agencyId', ROW_AGENCY_NOT_FOUND, `Agency ${agencyId} is not found.`);
    return undefined;
  }
  problems.add(
    i,
    'advertiserId',
    ROW_ADVERTISER_NOT_FOUND,
    `Advertiser ${advertiserId} is not found in agency ${agencyId}${elsewhere ? ` (it is in agency ${elsewhere.agency.id})` : ''}.`,
  );
  return undefined;
}

/**
 * The Floodlight activity a row names: by `segmentationId` when it has one (its name then is
 * the activity's, whatever the row says), else by `segmentationName`; undefined, with the
 * row's problem added, when it cannot be found. An advertiser created on first use gets the
 * activity it does not know yet (by id, with the name if no other activity has it; by name
 * alone, with the next id after its activities'), and learns the name of an activity it knew
 * by id alone.
 */
export function activityOf(
  advertiser: AdvertiserRecord,
  row: Record<string, unknown>,
  i: number,
  problems: BatchProblems,
  required: Refusal | undefined,
): FloodlightActivityRecord | undefined {
  const activities = advertiser.floodlightActivities;
  const id = field(row, 'segmentationId');
  const name = field(row, 'segmentationName');
  if (!id && !name) {
    if (required) problems.required(i, 'segmentationName', required, 'segmentationId or segmentationName');
    return undefined;
  }
  const open = advertiser.createdOnFirstUse === true;
  const named = name ? activities.find((a) => a.name === name) : undefined;
  if (id) {
    const byId = activities.find((a) => a.id === id);
    if (byId) {
      if (open && name && !byId.name && !named) {
        byId.name = name;
        problems.created(i, () => delete byId.name);
      }
      return byId;
    }
    if (!open || !/^\d+$/.test(id)) {
      problems.add(i, 'segmentationId', ACTIVITY_ID_NOT_FOUND, `Floodlight activity id ${id} is not found.`);
      return undefined;
    }
    const activity: FloodlightActivityRecord = { id, ...(name && !named ? { name } : {}) };
    activities.push(activity);
    problems.created(i, () => activities.splice(activities.indexOf(activity), 1));
    return activity;
  }
  if (named) return named;
  if (!open) {
    problems.add(
      i,
      'segmentationName',
      ACTIVITY_NAME_NOT_FOUND,
      `Floodlight activity name "${name}" is not found.`,
    );
    return undefined;
  }
  const next = activities.reduce((max, a) => (BigInt(a.id) > max ? BigInt(a.id) : max), 0n) + 1n;
  const activity: FloodlightActivityRecord = { id: String(next), ...(name ? { name } : {}) };
  activities.push(activity);
  problems.created(i, () => activities.splice(activities.indexOf(activity), 1));
  return activity;
}

/** The advertiser whose own customer id (its account in the new platform) is `customerId`. */
function findAdvertiserOfCustomer(world: SearchAds360State, customerId: string): AdvertiserPlace | undefined {
  for (const agency of Object.values(world.agencies))
    for (const advertiser of Object.values(agency.advertisers))
      if (advertiser.customerId === customerId) return { agency, advertiser };
  return undefined;
}

/** A numeric id (agency, advertiser, engine account, entity), as the spec's int64 strings are. */
export const ID_SCHEMA = { type: 'string', pattern: '^[0-9]+$' };

/** The ISO 4217 currency codes this Node knows. */
export const CURRENCIES: ReadonlySet<string> = new Set(Intl.supportedValuesOf('currency'));
