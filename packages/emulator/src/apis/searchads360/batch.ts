/**
 * The problems of a batch (conversions, availabilities), best effort per row (decision 0035):
 * each row is checked on its own, a refused row gets one error entry per problem located as
 * `conversion[i].field`, and the rows without a problem are written. The batch's 400 then names
 * every refused row; a row it does not name was written.
 */
import { ApiError, type GoogleErrorItem } from '../../core/errors.js';
import { isObject, type JsonObject } from '../../core/spec.js';
import type { AdvertiserRecord, FloodlightActivityRecord } from './state.js';

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

  add(index: number, field: string | undefined, reason: string, message: string): void {
    this.rows.add(index);
    this.itemRows.push(index);
    this.items.push({
      domain: 'global',
      reason,
      message,
      location: field ? `${this.list}[${index}].${field}` : `${this.list}[${index}]`,
      locationType: 'parameter',
    });
  }

  required(index: number, field: string, what = field): void {
    this.add(index, field, 'required', `Required field: ${what}`);
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
      400,
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

/** A whole number from zero to the largest int64, written as digits (micros, millis, ms since 1970). */
export const isCount = (value: string): boolean => /^\d+$/.test(value) && BigInt(value) <= INT64_MAX;

/**
 * The Floodlight activity a row names by `segmentationId` or `segmentationName` (both, when
 * given, must name the same one); undefined, with the row's problem added, when it cannot. An
 * advertiser created on first use gets the activity it does not know yet (by id, with the name
 * if given; by name alone, with the next id after its activities').
 */
export function activityOf(
  advertiser: AdvertiserRecord,
  row: Record<string, unknown>,
  i: number,
  problems: BatchProblems,
): FloodlightActivityRecord | undefined {
  const activities = advertiser.floodlightActivities;
  const id = field(row, 'segmentationId');
  const name = field(row, 'segmentationName');
  if (!id && !name) {
    problems.required(i, 'segmentationName', 'segmentationId or segmentationName');
    return undefined;
  }
  let byId = id ? activities.find((a) => a.id === id) : undefined;
  let byName = name ? activities.find((a) => a.name === name) : undefined;
  if (advertiser.createdOnFirstUse && !byId && !byName && (!id || /^\d+$/.test(id))) {
    const next = activities.reduce((max, a) => (BigInt(a.id) > max ? BigInt(a.id) : max), 0n) + 1n;
    const activity: FloodlightActivityRecord = { id: id ?? String(next), ...(name ? { name } : {}) };
    activities.push(activity);
    problems.created(i, () => activities.splice(activities.indexOf(activity), 1));
    byId = id ? activity : undefined;
    byName = name ? activity : undefined;
  }
  if (id && !byId)
    problems.add(i, 'segmentationId', 'notFound', `Floodlight activity id ${id} is not found.`);
  if (name && !byName)
    problems.add(i, 'segmentationName', 'notFound', `Floodlight activity name "${name}" is not found.`);
  if (byId && byName && byId !== byName)
    problems.add(
      i,
      'segmentationName',
      'invalid',
      `segmentationName "${name}" and segmentationId ${id} name different Floodlight activities.`,
    );
  return (id && !byId) || (name && !byName) ? undefined : (byId ?? byName);
}

/** A numeric id (agency, advertiser, engine account, entity), as the spec's int64 strings are. */
export const ID_SCHEMA = { type: 'string', pattern: '^[0-9]+$' };

/** The ISO 4217 currency codes this Node knows. */
export const CURRENCIES: ReadonlySet<string> = new Set(Intl.supportedValuesOf('currency'));
