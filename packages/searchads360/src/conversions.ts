/**
 * Uploading many conversions: split into batches, refuse repeated keys before anything is
 * sent, and map every refused row of Google's answer (`conversion[i].field`) back to the
 * caller's input. Batches are all or nothing (decision 0021): the rows of a refused batch
 * that had no problem of their own were not stored either, and are returned to resend.
 */
import { type CallOptions, ClientConfigError, type GoogleErrorDetail, isBadRequest } from '@gspec/runtime';
import type { AnswerOf, BodyOf, Resources } from './generated/methods.js';

/** One conversion as `conversion.insert` and `conversion.update` take it. */
export type ConversionInput = NonNullable<BodyOf<'conversion.insert'>['conversion']>[number];
type StoredConversion = NonNullable<AnswerOf<'conversion.insert'>['conversion']>[number];

export interface FailedConversion {
  /** The row's position in the caller's array. */
  index: number;
  conversion: ConversionInput;
  /** Google's problems with this row; `field` is the part of `location` after `conversion[i].`. */
  errors: (GoogleErrorDetail & { field?: string })[];
}

export interface ConversionBatchResult {
  /** The stored conversions, as the service answered them, in input order. */
  stored: StoredConversion[];
  /** The rows the service refused, with why. */
  failed: FailedConversion[];
  /** Rows without a problem of their own, not stored because their batch was refused: send them again. */
  resend: { index: number; conversion: ConversionInput }[];
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

/** A batch failed for another reason than its rows (after the runtime's retries); `result` holds what was done before. */
export class ConversionUploadError extends Error {
  override name = 'ConversionUploadError';
  constructor(
    readonly result: ConversionBatchResult,
    /** The index of the first row of the failed batch; it and every later row were not stored. */
    readonly firstUnsentIndex: number,
    options: { cause: unknown },
  ) {
    super(
      `the batch starting at conversion[${firstUnsentIndex}] failed; rows before it were handled (${result.stored.length} stored): ${
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

async function upload(
  send: (batch: ConversionInput[], options?: CallOptions) => Promise<AnswerOf<'conversion.insert'>>,
  conversions: ConversionInput[],
  { batchSize = 200, call }: ConversionBatchOptions,
): Promise<ConversionBatchResult> {
  if (!Number.isInteger(batchSize) || batchSize < 1) {
    throw new ClientConfigError(`batchSize must be a whole number of at least 1; got ${batchSize}`);
  }
  checkUnique(conversions);
  const result: ConversionBatchResult = { stored: [], failed: [], resend: [] };
  for (let start = 0; start < conversions.length; start += batchSize) {
    const batch = conversions.slice(start, start + batchSize);
    try {
      const answer = await send(batch, call);
      result.stored.push(...(answer.conversion ?? []));
    } catch (error) {
      if (!isBadRequest(error)) throw new ConversionUploadError(result, start, { cause: error });
      const byRow = new Map<number, FailedConversion['errors']>();
      for (const detail of error.details) {
        const match = LOCATION.exec(detail.location ?? '');
        const row = match ? Number(match[1]) : undefined;
        // A problem that names no row of this batch concerns the batch as a whole: every row carries it.
        const rows = row !== undefined && row < batch.length ? [row] : batch.map((_, i) => i);
        for (const i of rows) {
          byRow.set(i, [...(byRow.get(i) ?? []), { ...detail, ...(match?.[2] ? { field: match[2] } : {}) }]);
        }
      }
      batch.forEach((conversion, i) => {
        const errors = byRow.get(i);
        if (errors) result.failed.push({ index: start + i, conversion, errors });
        else result.resend.push({ index: start + i, conversion });
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
