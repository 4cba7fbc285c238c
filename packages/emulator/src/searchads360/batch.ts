/**
 * The problems of a batch (conversions, availabilities): every row is checked first, and one
 * refused row refuses the whole batch with one error entry per problem, located as
 * `conversion[i].field` (decision 0021: all or nothing).
 */
import { ApiError, type GoogleErrorItem } from '../errors.js';
import type { FloodlightActivityRecord } from './state.js';

export class BatchProblems {
  readonly items: GoogleErrorItem[] = [];
  private readonly rows = new Set<number>();

  constructor(
    /** The body's array field: `conversion`, `availabilities`. */
    readonly list: string,
    /** The plural noun for the message: `conversions`, `availabilities`. */
    readonly noun: string,
  ) {}

  add(index: number, field: string | undefined, reason: string, message: string): void {
    this.rows.add(index);
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

  /** Whether row `index` has a problem so far. */
  has(index: number): boolean {
    return this.rows.has(index);
  }

  /** Throws the batch's 400 when any row was refused. */
  throwIfAny(total: number): void {
    if (this.items.length === 0) return;
    const count = this.rows.size;
    throw new ApiError(
      400,
      this.items,
      `The request was not processed: ${count} of ${total} ${this.noun} ${count === 1 ? 'is' : 'are'} invalid.`,
    );
  }
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
 * given, must name the same one); undefined, with the row's problem added, when it cannot.
 */
export function activityOf(
  activities: readonly FloodlightActivityRecord[],
  row: Record<string, unknown>,
  i: number,
  problems: BatchProblems,
): FloodlightActivityRecord | undefined {
  const id = field(row, 'segmentationId');
  const name = field(row, 'segmentationName');
  if (!id && !name) {
    problems.required(i, 'segmentationName', 'segmentationId or segmentationName');
    return undefined;
  }
  const byId = id ? activities.find((a) => a.id === id) : undefined;
  const byName = name ? activities.find((a) => a.name === name) : undefined;
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
