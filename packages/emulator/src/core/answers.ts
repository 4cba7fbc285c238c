/**
 * Writing the emulator's answers: the bytes and headers of an answer, the 503 of a write whose
 * commit failed, the 500 of a failure no handler expected, and the envelope of what Node's
 * HTTP parser refuses before any handler runs. When an answer goes out is its state store's
 * turn (state-store.ts: one turn's answers after one commit).
 */
import { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import {
  type BatchCall,
  type CallAnswer,
  corsHeaders,
  redactTarget,
  redactText,
  writeBatch,
} from '@gspec/server-kit';
import { refusal, refuse } from './errors.js';

/** A failure no handler expected. */
export const BACKEND_ERROR = refusal({
  id: 'any.backendError',
  scope: 'every API',
  operations: [],
  status: 500,
  reason: 'backendError',
  when: 'the emulator failed unexpectedly (a bug: please report it)',
  evidence: ['fact:conventions:errors/reasons/backendError'],
});

/** A change that could not be saved, or a shared store's turn that could not commit. */
export const NOT_SAVED = refusal({
  id: 'any.notSaved',
  scope: 'every API',
  operations: [],
  status: 503,
  reason: 'backendError',
  when: '`--persist` could not save a change, or the shared PostgreSQL store could not be reached or commit',
  evidence: ['fact:conventions:errors/reasons/backendError', 'decision:0054'],
});

/** What Node's HTTP parser refuses before any handler, by status. */
const CLIENT_ERRORS = {
  400: refusal({
    id: 'http.notHttp',
    scope: 'every API',
    operations: [],
    status: 400,
    reason: 'badRequest',
    when: 'a request Node’s HTTP parser cannot read',
    evidence: ['fact:conventions:errors/reasons/badRequest', 'decision:0054'],
  }),
  408: refusal({
    id: 'http.requestTimeout',
    scope: 'every API',
    operations: [],
    status: 408,
    reason: 'requestTimeout',
    when: 'a request whose headers or body did not arrive in time',
    evidence: ['decision:0052', 'decision:0054'],
  }),
  431: refusal({
    id: 'http.headersTooLarge',
    scope: 'every API',
    operations: [],
    status: 431,
    reason: 'requestHeadersTooLarge',
    when: 'a request line and headers over Node’s 16 KB limit',
    evidence: ['decision:0052', 'decision:0054'],
  }),
} as const;

import { type AnswerJson, bodyJson, jsonBytes, releaseBytes } from './json.js';

/** One answer, as seen by `onResponse`: for tests that check every answer against the spec. */
export interface Exchange {
  method: string;
  path: string;
  /** The operation the request was routed to; undefined for unknown paths, 405s and control calls. */
  operationId?: string;
  status: number;
  headers: Record<string, string>;
  body?: unknown;
  /** A body that is not JSON, as sent (the ID-mapping CSV). */
  text?: string;
  /**
   * For a call sent in a batch, the batch's path (`/batch/calendar/v3`): each call is told
   * with its own method, path and answer, and then the batch's own answer (multipart/mixed).
   */
  batch?: string;
  /** The request: its headers (credentials included: redact before keeping), body, user and time. */
  request?: {
    headers: IncomingHttpHeaders | Record<string, string>;
    body?: string;
    /** The user the request acted as, once its token was admitted. */
    user?: string;
    /** From its arrival to its answer being written (absent for the calls of a batch). */
    durationMs?: number;
  };
  /** The body as sent; valid only during the call (its buffer serves later answers): copy what is kept. */
  sent?: Buffer | string;
  /** A JSON body as it was written into `sent`: kept instead of a copy of the bytes, it makes them again. */
  sentJson?: AnswerJson;
}

export interface Answer {
  status: number;
  headers: Record<string, string>;
  body?: unknown;
  text?: { contentType: string; body: string };
  /** A JSON body in pieces (the state dump), written one after another as the socket drains. */
  chunks?: string[];
  operationId?: string;
  /** The calls of a batch with their answers (batch.ts), encoded as multipart/mixed when sent. */
  parts?: BatchPart[];
  /** The user the request acted as (for the journal). */
  user?: string;
  /** The request's body and when it arrived (`performance.now()`), for the journal. */
  requestBody?: string;
  received?: number;
}

/** One call of a batch with its answer, as the batch's answer carries it until it is sent. */
export interface BatchPart {
  call: BatchCall;
  answer: Answer;
  /** Whether the call changed the state: if the turn's commit fails, its part alone becomes a 503. */
  wrote: boolean;
}

/** The JSON or text of an answer, with its Content-Type, as one string (a batch part's body). */
function callAnswer(result: Answer): CallAnswer {
  const headers = { ...result.headers };
  let body: string | undefined;
  if (result.text) {
    body = result.text.body;
    headers['content-type'] = result.text.contentType;
  } else if (result.body !== undefined) {
    body = JSON.stringify(result.body);
    headers['content-type'] = 'application/json; charset=UTF-8';
  }
  return { status: result.status, headers, ...(body !== undefined ? { body } : {}) };
}

export interface AnswerWriterOptions {
  /** One line per answer, the credentials of its query redacted (@gspec/server-kit's redactTarget). */
  log?: (line: string) => void;
  onResponse?: (exchange: Exchange) => void;
  /**
   * Whether a request's answer is for the server's own pages only (the control plane): it gets
   * no CORS headers, so that no page of another origin can read it (decision 0052).
   */
  sameOriginOnly?: (request: IncomingMessage) => boolean;
}

/**
 * The answer of a request that wrote in a commit that failed: Google's 503, with the quota
 * headers it was charged. The change stays in memory and the next commit that works keeps it.
 */
export function unsaved(error: unknown, result: Answer): Answer {
  // A batch stays a batch: only the parts of the calls that wrote are 503s.
  if (result.parts)
    return {
      ...result,
      parts: result.parts.map((part) =>
        part.wrote ? { ...part, answer: unsaved(error, part.answer) } : part,
      ),
    };
  const failure = refuse(
    NOT_SAVED,
    `${(error as Error).message}. The change is applied in memory but not saved; the next successful save keeps it.`,
  );
  const quotaHeaders = Object.entries(result.headers).filter(([name]) =>
    name.startsWith('x-emulator-quota-'),
  );
  return {
    status: failure.status,
    headers: Object.fromEntries(quotaHeaders),
    body: failure.body,
    ...(result.operationId ? { operationId: result.operationId } : {}),
  };
}

/**
 * The answer of a request in a shared store's turn that failed (core/postgres.ts): Google's
 * 503. `ran`: the request was handled and is undone (its turn could not commit); else the store
 * could not be reached and nothing was done.
 */
export function notCommitted(error: Error, ran: boolean): Answer {
  const failure = refuse(
    NOT_SAVED,
    ran
      ? `${error.message}. The request is undone; send it again.`
      : `${error.message}. Nothing was done; send the request again.`,
  );
  return { status: failure.status, headers: {}, body: failure.body };
}

export class AnswerWriter {
  constructor(private readonly options: AnswerWriterOptions = {}) {}

  send(request: IncomingMessage, response: ServerResponse, given: Answer): void {
    // A batch's answer is text: each call's answer in its part, in the calls' order.
    const { parts } = given;
    const answers = parts?.map((part) => callAnswer(part.answer));
    const result: Answer =
      parts && answers
        ? {
            status: given.status,
            headers: given.headers,
            text: writeBatch(
              parts.map((p) => p.call),
              answers,
            ),
          }
        : given;
    // The answer's own headers object (each answer has a new one), with CORS unless it says
    // otherwise or is the control plane's.
    const { headers } = result;
    if (!this.options.sameOriginOnly?.(request))
      for (const [name, value] of Object.entries(corsHeaders(request))) headers[name] ??= value;
    // Bytes, encoded once: their length is the Content-Length, and the socket copies them as
    // they are (encoding a large string on every write cost more than building the answer).
    let bytes: Buffer | undefined;
    let json: AnswerJson | undefined;
    if (result.text) {
      bytes = Buffer.from(result.text.body);
      headers['content-type'] = result.text.contentType;
    } else if (result.body !== undefined) {
      json = bodyJson(result.body);
      bytes = jsonBytes(json);
      headers['content-type'] = 'application/json; charset=UTF-8';
    }
    if (bytes) headers['content-length'] = String(bytes.length);
    const { chunks } = result;
    if (chunks) {
      headers['content-type'] = 'application/json; charset=UTF-8';
      headers['content-length'] = String(chunks.reduce((sum, chunk) => sum + Buffer.byteLength(chunk), 0));
    }
    response.writeHead(result.status, headers);
    if (chunks) Readable.from(chunks).pipe(response);
    else if (bytes) {
      const written = bytes;
      // Once the socket has the bytes, their buffer serves the next answers.
      response.end(written, () => releaseBytes(written));
    } else response.end();
    const url = request.url ?? '/';
    // The log goes where CI keeps it: the query's credentials are redacted as the journal's.
    this.options.log?.(
      `${request.method} ${redactTarget(url)} ${result.status}${result.operationId ? ` ${result.operationId}` : ''}`,
    );
    if (parts && answers) this.tellParts(url, parts, answers);
    this.options.onResponse?.({
      method: request.method ?? 'GET',
      path: url,
      ...(result.operationId ? { operationId: result.operationId } : {}),
      status: result.status,
      headers,
      ...(result.text ? { text: result.text.body } : result.body !== undefined ? { body: result.body } : {}),
      request: {
        headers: request.headers,
        ...(given.requestBody !== undefined ? { body: given.requestBody } : {}),
        ...(given.user !== undefined ? { user: given.user } : {}),
        ...(given.received !== undefined ? { durationMs: performance.now() - given.received } : {}),
      },
      ...(bytes ? { sent: bytes } : {}),
      ...(json ? { sentJson: json } : {}),
    });
  }

  /**
   * The calls of a batch, each logged and told to `onResponse` as the same request alone would
   * be, marked with the batch's path.
   */
  private tellParts(batch: string, parts: BatchPart[], answers: CallAnswer[]): void {
    parts.forEach(({ call, answer }, i) => {
      const { status, headers, body } = answers[i] as CallAnswer;
      this.options.log?.(
        `  part ${call.index}: ${call.method} ${redactTarget(call.target)} ${status}${answer.operationId ? ` ${answer.operationId}` : ''}`,
      );
      this.options.onResponse?.({
        method: call.method,
        path: call.target,
        ...(answer.operationId ? { operationId: answer.operationId } : {}),
        status,
        headers,
        ...(answer.text
          ? { text: answer.text.body }
          : answer.body !== undefined
            ? { body: answer.body }
            : {}),
        batch,
        request: {
          headers: call.headers,
          ...(call.body !== undefined ? { body: call.body } : {}),
          ...(answer.user !== undefined ? { user: answer.user } : {}),
        },
        ...(body !== undefined ? { sent: body } : {}),
      });
    });
  }

  /** A failure outside every handler's own refusals: a 500 in the envelope, if still possible. */
  unexpected(response: ServerResponse, error: unknown): void {
    this.options.log?.(`unexpected: ${redactText(String((error as Error).stack))}`);
    if (response.headersSent) {
      response.end();
      return;
    }
    const body = JSON.stringify(
      refuse(BACKEND_ERROR, `The emulator failed: ${(error as Error).message}`).body,
    );
    response.writeHead(500, { 'content-type': 'application/json; charset=UTF-8' }).end(body);
  }
}

/**
 * What Node's HTTP parser refuses before any handler runs (headers over its 16 KB limit,
 * malformed requests), answered in the envelope too, and the connection closed.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (!socket.writable || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const status =
    error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const message =
    status === 431
      ? 'The request line and headers are larger than the server accepts'
      : status === 408
        ? 'The request was not received in time'
        : `The request is not valid HTTP (${error.code ?? error.message})`;
  const body = JSON.stringify(refuse(CLIENT_ERRORS[status], message).body);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=UTF-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
