/**
 * The ID-mapping file (`reports.getIdMappingFile`) as typed rows, parsed with csv-parse.
 *
 * csv-parse is imported from its `browser/esm` entry: its default entry is built on Node's
 * `stream` and its `sync` entry on Node's `Buffer`, while the browser build carries its own
 * small polyfills and so runs on Node, in browsers and on edge runtimes alike. Its streaming
 * parser is fed chunk by chunk and rows are handed out as they are parsed, so a caller who
 * holds the download as a web ReadableStream never holds the whole file. This module is a
 * separate entry point (`@gspec/searchads360/id-mapping`) so that the parser is loaded only
 * by programs that read the file.
 */
import type { CallOptions } from '@gspec/runtime';
import { parse } from 'csv-parse/browser/esm';
import type { ArgsOf, Resources } from './generated/methods.js';

/** One row of the file; 64-bit ids stay strings. Columns are found by header name (decision 0022). */
export interface IdMappingRow {
  entityType: string;
  legacyAgencyId: string;
  legacyAdvertiserId: string;
  legacyEngineAccountId: string;
  legacyEntityId: string;
  customerId: string;
  entityId: string;
  entityName: string;
  /** Columns the spec does not document, by header name. */
  other: Record<string, string>;
}

/** The documented columns, by header name. */
export const idMappingColumns = {
  'Entity type': 'entityType',
  'Legacy agency ID': 'legacyAgencyId',
  'Legacy advertiser ID': 'legacyAdvertiserId',
  'Legacy engine account ID': 'legacyEngineAccountId',
  'Legacy entity ID': 'legacyEntityId',
  'Customer ID': 'customerId',
  'Entity ID': 'entityId',
  'Entity name': 'entityName',
} as const satisfies Record<string, Exclude<keyof IdMappingRow, 'other'>>;

export class IdMappingFormatError extends Error {
  override name = 'IdMappingFormatError';
}

function toRow(record: Record<string, string>, position: number): IdMappingRow {
  const row: Partial<IdMappingRow> & { other: Record<string, string> } = { other: {} };
  for (const [header, value] of Object.entries(record)) {
    const key = idMappingColumns[header as keyof typeof idMappingColumns];
    if (key) row[key] = value;
    else row.other[header] = value;
  }
  const missing = Object.keys(idMappingColumns).filter(
    (header) => row[idMappingColumns[header as keyof typeof idMappingColumns]] === undefined,
  );
  if (missing.length > 0) {
    throw new IdMappingFormatError(
      `the ID-mapping file has no column ${missing.map((m) => JSON.stringify(m)).join(', ')} (row ${position})`,
    );
  }
  return row as IdMappingRow;
}

/** Parses the file from its text or from a stream of its bytes, yielding rows as they are read. */
export async function* parseIdMappingFile(
  source: string | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array | string>,
): AsyncGenerator<IdMappingRow> {
  const parser = parse({ columns: true, bom: true, skip_empty_lines: true, relax_column_count: false });
  const records: Record<string, string>[] = [];
  let failure: unknown;
  let wake: (() => void) | undefined;
  parser.on('readable', () => {
    for (let record = parser.read(); record !== null; record = parser.read()) records.push(record);
    wake?.();
  });
  parser.on('error', (error: unknown) => {
    failure = error;
    wake?.();
  });
  let ended = false;
  parser.on('end', () => {
    ended = true;
    wake?.();
  });
  const feed = async () => {
    const decoder = new TextDecoder('utf-8');
    const chunks: Iterable<string> | AsyncIterable<Uint8Array | string> =
      typeof source === 'string' ? [source] : Symbol.asyncIterator in source ? source : iterate(source);
    for await (const chunk of chunks) {
      parser.write(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }));
    }
    const rest = decoder.decode();
    if (rest) parser.write(rest);
    parser.end();
  };
  const feeding = feed().catch((error: unknown) => {
    failure = error;
    wake?.();
  });
  let position = 0;
  for (;;) {
    if (failure)
      throw failure instanceof Error
        ? new IdMappingFormatError(`the ID-mapping file is not valid CSV: ${failure.message}`, {
            cause: failure,
          })
        : failure;
    const record = records.shift();
    if (record) {
      position++;
      yield toRow(record, position);
      continue;
    }
    if (ended) break;
    await new Promise<void>((resolve) => {
      wake = resolve;
    });
    wake = undefined;
  }
  await feeding;
}

async function* iterate(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  try {
    for (let next = await reader.read(); !next.done; next = await reader.read()) yield next.value;
  } finally {
    reader.releaseLock();
  }
}

/**
 * Downloads the ID-mapping file of one advertiser with `reports.getIdMappingFile` (retried
 * and failing like every resource method) and yields its rows.
 */
export async function* idMappingRows(
  searchAds: { reports: Pick<Resources['reports'], 'getIdMappingFile'> },
  args: ArgsOf<'reports.getIdMappingFile'>,
  options?: CallOptions,
): AsyncGenerator<IdMappingRow> {
  const text = await searchAds.reports.getIdMappingFile({ alt: 'media', ...args }, options);
  yield* parseIdMappingFile(text);
}
