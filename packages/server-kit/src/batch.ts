/**
 * Google's batch endpoint, the part the mock and the emulator share: reading a batch request
 * into its calls (each with the outer request's headers it inherits) and writing the calls'
 * answers back as one multipart/mixed answer. Each server dispatches the calls to its own
 * handling, so that a call in a batch gets what the same call alone would get. The wire format
 * itself is @gspec/runtime/multipart's, the one the clients write and read.
 *
 * What is refused as a whole (400, Google's error envelope): a body that is not multipart/mixed,
 * a part that is no HTTP request, more calls than the limit, a batch with no call. Everything
 * else is the business of each call and is answered in its own part.
 */
import type { IncomingHttpHeaders } from 'node:http';
import {
  BatchFormatError,
  BatchLimitError,
  type BatchPartRequest,
  type BatchPartResponse,
  boundaryOf,
  type EncodedBatch,
  encodeBatchResponse,
  parseBatchRequest,
  parseBatchResponse,
} from '@gspec/runtime/multipart';
import { HttpRefusal } from './http.js';
import { redactText } from './redact.js';

/** Calendar's limit on the calls of one batch request. */
export const BATCH_LIMIT = 50;

/** The batch endpoints: `/batch/<api>/<version>` (Calendar's is `/batch/calendar/v3`), and `/batch`. */
export function batchPath(pathname: string): { prefix?: string } | undefined {
  if (pathname === '/batch') return {};
  const match = /^\/batch(\/[^/]+\/[^/]+)\/?$/.exec(pathname);
  return match ? { prefix: match[1] as string } : undefined;
}

/** One call of a batch, ready to dispatch: the part's request with the headers it inherits. */
export interface BatchCall extends BatchPartRequest {
  /** Where the call stands in the batch, from 1. */
  index: number;
}

/** Headers of the outer request that are about its own body or connection, not the calls'. */
const NOT_INHERITED = /^(content-|host$|connection$|transfer-encoding$|keep-alive$|accept-encoding$|expect$)/;

const refuse = (message: string, extra: { location?: string } = {}) =>
  new HttpRefusal(400, {
    domain: 'global',
    reason: 'badRequest',
    message,
    ...(extra.location ? { location: extra.location, locationType: 'header' } : {}),
  });

/**
 * The calls of a batch request: its parts, each with the outer request's headers other than the
 * `Content-` ones, unless the part sets its own. An HttpRefusal (400) for a body that is no batch,
 * naming the part at fault, and for more calls than `limit`.
 */
export function readBatch(
  headers: IncomingHttpHeaders,
  body: string | undefined,
  limit = BATCH_LIMIT,
): BatchCall[] {
  const contentType = headers['content-type'];
  let parts: BatchPartRequest[];
  try {
    // The Content-Type first, so that its refusals, and only those, name the header.
    boundaryOf(contentType);
  } catch (error) {
    if (!(error instanceof BatchFormatError)) throw error;
    throw refuse(`The batch request is malformed: ${error.message}.`, { location: 'Content-Type' });
  }
  try {
    // The reader stops at the first part past the limit: the rest is not read.
    parts = parseBatchRequest(contentType, body ?? '', { maxParts: limit });
  } catch (error) {
    if (!(error instanceof BatchFormatError)) throw error;
    if (error instanceof BatchLimitError) throw refuse(`A batch request may hold at most ${limit} calls.`);
    // The reader's message quotes the line at fault, which may hold a credential.
    throw refuse(`The batch request is malformed: ${redactText(error.message)}.`);
  }
  if (parts.length === 0) throw refuse('The batch request holds no call.');
  const inherited: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || NOT_INHERITED.test(name)) continue;
    inherited[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return parts.map((part, index) => ({
    ...part,
    headers: { ...inherited, ...part.headers },
    index: index + 1,
  }));
}

/** An answer to one call, as the server made it. */
export interface CallAnswer {
  status: number;
  headers: Record<string, string>;
  body?: string;
}

/**
 * The batch's answer: each call's answer in a part of its own, in the calls' order, with
 * `Content-ID: <response-ID>` for a call whose part had `Content-ID: <ID>`.
 */
export function writeBatch(calls: readonly BatchCall[], answers: readonly CallAnswer[]): EncodedBatch {
  const parts: BatchPartResponse[] = answers.map((answer, index) => {
    const id = calls[index]?.contentId;
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(answer.headers)) {
      // A part's own framing: its body is whole, so no length or transfer headers from the call.
      // An empty value is left out: some batch readers take a header line without a value for the blank line.
      if (/^(content-length|transfer-encoding|connection)$/i.test(name) || value === '') continue;
      headers[name] = value;
    }
    return {
      status: answer.status,
      headers,
      ...(answer.body !== undefined && answer.body !== '' ? { body: answer.body } : {}),
      ...(id !== undefined ? { contentId: `response-${id}` } : {}),
    };
  });
  return encodeBatchResponse(parts);
}

/**
 * The answers of a batch's answer (multipart/mixed), in the order they came, each with its
 * `Content-ID` (`response-<id>`) when it has one. Throws the reader's BatchFormatError for a
 * body that is none. Tools that read recorded traffic (a recording's batches) use it.
 */
export function readBatchAnswer(
  contentType: string | undefined,
  body: string,
): (CallAnswer & { contentId?: string })[] {
  return parseBatchResponse(contentType, body);
}
