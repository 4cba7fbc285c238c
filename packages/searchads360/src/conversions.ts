/**
 * Uploading many conversions: split into batches, refuse repeated keys before anything is
 * sent, and read Google's answer row by row. Batches are best effort per conversion (decision
 * 0035): the rows a 400 names (`conversion[i].field`) were refused, every row it does not name
 * was stored, and a row answered `duplicate` was stored before (an earlier run, or a send whose
 * answer was lost). So the result says, for every row, stored now, stored before, or failed
 * with why; nothing is returned "to resend", since resending a stored row stores nothing.
 */
import { type CallOptions, ClientConfigError, type GoogleErrorDetail, isBadRequest } from '@gspec/runtime';
import type { AnswerOf, BodyOf, Resources } from './generated/methods.js';

/** One conversion as `conversion.insert` and `conversion.update` take it. */
export type ConversionInput = NonNullable<BodyOf<'conversion.insert'>['conversion']>[number];
type StoredConversion = NonNullable<AnswerOf<'conversion.insert'>['conversion']>[number];

/** A row the service stored (insert) or changed (update) in this call. */
export interface StoredRow {
  /** The row's position in the caller's array. */
  index: number;
  conversion: ConversionInput;
  /**
   * The conversion as the service answered it (with `dsConversionId`), when its batch was
   * answered `200`; a partly refused batch is answered with a `400` that lists only the
   * refused rows, so the stored rows of such a batch have none.
   */
  answer?: StoredConversion;
}

/** A row answered `duplicate` alone: a conversion with its keys was stored before this call. */
export interface AlreadyStoredRow {
  index: number;
  conversion: ConversionInput;
  /** The service's `duplicate` entry for the row. */
  error: GoogleErrorDetail;
}

export interface FailedConversion {
  /** The row's position in the caller's array. */
  index: number;
  conversion: ConversionInput;
  /** Google's problems with this row; `field` is the part of `location` after `conversion[i].`. */
  errors: (GoogleErrorDetail & { field?: string })[];
}

export interface ConversionBatchResult {
  /** The rows this call stored (insert) or changed (update), in input order. */
  stored: StoredRow[];
  /**
   * Insert: the rows whose keys (`conversionId` with `conversionTimestamp`) were stored
   * before, answered `duplicate` and nothing else. They need no resend; to change such a
   * conversion, use `updateConversions`.
   */
  alreadyStored: AlreadyStoredRow[];
  /** The rows the service refused, with why; fix them and send only them again. */
  failed: FailedConversion[];
}

export interface ConversionBatchOptions {
  /** Conversions per request. Default 200, a size the service accepts; the spec sets no bound. */
  batchSize?: number;
  /** Options of every call, such as `{ idempotent: true }` to let the runtime retry a batch after a lost answer. */
  call?: CallOptions;
}

/** Two rows with the same `conversionId` and `conversionTimestamp`; nothing was sent. */
export class DuplicateConversionError extends Error {
  override name = 'DuplicateConversionError';
  constructor(
    readonly duplicates: { index: number; firstIndex: number }[],
    conversions: ConversionInput[],
  ) {
    const lines = duplicates.slice(0, 5).map(({ index, firstIndex }) => {
      const c = conversions[index];
      return `conversion[${index}] repeats conversionId ${JSON.stringify(c?.conversionId)} and conversionTimestamp ${JSON.stringify(c?.conversionTimestamp)} of conversion[${firstIndex}]`;
    });
    const more = duplicates.length > 5 ? `\n(and ${duplicates.length - 5} more)` : '';
    super(
      `nothing was sent: a conversion is identified by conversionId and conversionTimestamp together\n${lines.join('\n')}${more}`,
    );
  }
}

/**
 * A batch got no answer about its rows (an error that is not a 400, after the runtime's
 * retries); `result` holds what was done before it.
 */
export class ConversionUploadError extends Error {
  override name = 'ConversionUploadError';
  constructor(
    readonly result: ConversionBatchResult,
    /**
     * The index of the first row of that batch; it and every later row are in no list of
     * `result`. Rows of that batch may have been stored if the answer was lost: sending them
     * again is safe, as a stored row answers `duplicate` and is reported as already stored.
     */
    readonly firstUnsentIndex: number,
    options: { cause: unknown },
  ) {
    super(
      `the batch starting at conversion[${firstUnsentIndex}] failed; rows before it were handled (${result.stored.length} stored, ${result.alreadyStored.length} stored before, ${result.failed.length} failed): ${
        options.cause instanceof Error ? options.cause.message : String(options.cause)
      }`,
      options,
    );
  }
}

function checkUnique(conversions: ConversionInput[]): void {
  const first = new Map<string, number>();
  const duplicates: { index: number; firstIndex: number }[] = [];
  conversions.forEach((c, index) => {
    const key = JSON.stringify([c.conversionId, c.conversionTimestamp]);
    const seen = first.get(key);
    if (seen === undefined) first.set(key, index);
    else duplicates.push({ index, firstIndex: seen });
  });
  if (duplicates.length > 0) throw new DuplicateConversionError(duplicates, conversions);
}

const LOCATION = /^conversion\[(\d+)\](?:\.(.+))?$/;

/**
 * Consecutive batches of at most `batchSize` rows, in input order. A batch also ends before a
 * row whose `conversionId` it already holds (the same conversion at another timestamp): the
 * service refuses a `conversionId` repeated within one request, so such rows go in separate
 * requests.
 */
export function batchBounds(conversions: ConversionInput[], batchSize: number): [number, number][] {
  const bounds: [number, number][] = [];
  let start = 0;
  let ids = new Set<unknown>();
  conversions.forEach((c, index) => {
    if (index - start === batchSize || (c.conversionId !== undefined && ids.has(c.conversionId))) {
      bounds.push([start, index]);
      start = index;
      ids = new Set();
    }
    if (c.conversionId !== undefined) ids.add(c.conversionId);
  });
  if (start < conversions.length) bounds.push([start, conversions.length]);
  return bounds;
}

async function upload(
  send: (batch: ConversionInput[], options?: CallOptions) => Promise<AnswerOf<'conversion.insert'>>,
  conversions: ConversionInput[],
  { batchSize = 200, call }: ConversionBatchOptions,
): Promise<ConversionBatchResult> {
  if (!Number.isInteger(batchSize) || batchSize < 1) {
    throw new ClientConfigError(`batchSize must be a whole number of at least 1; got ${batchSize}`);
  }
  checkUnique(conversions);
  const result: ConversionBatchResult = { stored: [], alreadyStored: [], failed: [] };
  for (const [start, end] of batchBounds(conversions, batchSize)) {
    const batch = conversions.slice(start, end);
    try {
      const answer = await send(batch, call);
      const answered = answer.conversion ?? [];
      batch.forEach((conversion, i) => {
        const stored = answered[i];
        result.stored.push({ index: start + i, conversion, ...(stored ? { answer: stored } : {}) });
      });
    } catch (error) {
      if (!isBadRequest(error)) throw new ConversionUploadError(result, start, { cause: error });
      const byRow = new Map<number, FailedConversion['errors']>();
      for (const detail of error.details) {
        const match = LOCATION.exec(detail.location ?? '');
        const row = match ? Number(match[1]) : undefined;
        // A problem that names no row of this batch concerns the request as a whole: nothing
        // of the batch was stored, and every row carries it.
        const rows = row !== undefined && row < batch.length ? [row] : batch.map((_, i) => i);
        for (const i of rows) {
          byRow.set(i, [...(byRow.get(i) ?? []), { ...detail, ...(match?.[2] ? { field: match[2] } : {}) }]);
        }
      }
      batch.forEach((conversion, i) => {
        const errors = byRow.get(i);
        const index = start + i;
        // Best effort: a row the answer does not name was stored.
        if (!errors) result.stored.push({ index, conversion });
        else if (errors.every((e) => e.reason === 'duplicate'))
          result.alreadyStored.push({ index, conversion, error: errors[0] as GoogleErrorDetail });
        else result.failed.push({ index, conversion, errors });
      });
    }
  }
  return result;
}

type ConversionMethods = { conversion: Pick<Resources['conversion'], 'insert' | 'update'> };

/** `conversion.insert` for any number of conversions; see ConversionBatchResult. */
export function insertConversions(
  searchAds: ConversionMethods,
  conversions: ConversionInput[],
  options: ConversionBatchOptions = {},
): Promise<ConversionBatchResult> {
  return upload(
    (conversion, call) => searchAds.conversion.insert({ conversion }, call),
    conversions,
    options,
  );
}

/** `conversion.update` for any number of conversions; see ConversionBatchResult. */
export function updateConversions(
  searchAds: ConversionMethods,
  conversions: ConversionInput[],
  options: ConversionBatchOptions = {},
): Promise<ConversionBatchResult> {
  return upload(
    (conversion, call) => searchAds.conversion.update({ conversion }, call),
    conversions,
    options,
  );
}
