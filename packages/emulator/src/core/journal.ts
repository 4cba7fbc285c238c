/**
 * What the inspector shows of the traffic: a journal of the requests answered (each call of a
 * batch too) and of the watch channels' deliveries, both bounded in memory. The journal keeps
 * at most `entries` requests and `bodyBytes` of body text in all (each body cut at
 * `bodyCap`); the oldest go first. Credentials are never shown, in an entry, the list or the
 * live stream: what is read is redacted by @gspec/server-kit's redact.ts, the one rule the
 * `--verbose` log follows too (the credential headers, the credential parameters of the query,
 * the credential keys of a body by its Content-Type, a batch's parts one by one), the error
 * message kept with an entry and an error's answer are redacted as text besides (they may quote
 * the request), and the bodies of the token endpoint are not kept at all.
 *
 * Recording is on every request's path, reading only on the inspector's, so recording keeps
 * what it is given (a copy of the answer's bytes, the request's text) and the work of
 * decoding, redacting and formatting is done when an entry is read.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { REDACTED, redactBody, redactHeaders, redactTarget, redactText } from '@gspec/server-kit';
import type { Exchange } from './answers.js';
import { type AnswerJson, jsonText } from './json.js';

export interface JournalOptions {
  /** The most requests kept (default 1,000). */
  entries?: number;
  /** The most body text kept over all entries, in UTF-16 code units (default 8 Mi). */
  bodyBytes?: number;
  /** The most kept of one body (default 64 Ki); a longer one is cut and marked so. */
  bodyCap?: number;
  /** The most deliveries kept (default 500). */
  deliveries?: number;
}

/** One request and its answer, as the journal keeps it. */
export interface JournalEntry {
  id: number;
  /** When it was answered (ISO 8601). */
  at: string;
  method: string;
  /** Path and query, credentials redacted. */
  path: string;
  user?: string;
  operationId?: string;
  status: number;
  /** From arrival to the answer being written; absent for the calls of a batch. */
  durationMs?: number;
  /** `X-Emulator-Quota-Cost` of the answer, when the request was charged. */
  quotaUnits?: number;
  /** The batch's path, for a call sent in a batch. */
  batch?: string;
  /** The error the client got (`error.errors[0]`'s reason and the message), for a refusal. */
  error?: { reason?: string; message?: string };
  requestHeaders: Record<string, string>;
  requestBody?: string;
  responseHeaders: Record<string, string>;
  responseBody?: string;
  /** Which bodies were cut at the cap. */
  truncated?: ('request' | 'response')[];
}

export type JournalSummary = Omit<
  JournalEntry,
  'requestHeaders' | 'requestBody' | 'responseHeaders' | 'responseBody'
>;

/** One attempt to deliver a watch channel's message (notifier.ts). */
export interface DeliveryReport {
  channelId: string;
  address: string;
  resourceUri: string;
  resourceId: string;
  state: string;
  number: number;
  /** 1 for the first attempt, then each retry. */
  attempt: number;
  headers: Record<string, string>;
  /** The receiver's status, or the reason there was none (`error`). */
  status?: number;
  error?: string;
  durationMs: number;
}

export interface Delivery extends DeliveryReport {
  id: number;
  at: string;
}

type Listener = (event: string, data: unknown) => void;

/** What `Journal.list` keeps (README, Inspector: GET /__emulator/journal's parameters). */
export interface JournalFilter {
  operation?: string;
  /** `404`, `4xx`, `error` or `ok`. */
  status?: string;
  user?: string;
  after?: number;
  mentions?: string;
}

/** A bounded queue, oldest first: pushing past the capacity drops the oldest, in constant time. */
class Ring<T> {
  private readonly slots: (T | undefined)[];
  private head = 0;
  private size = 0;
  constructor(capacity: number) {
    this.slots = new Array(Math.max(1, capacity));
  }
  push(item: T): T | undefined {
    if (this.size < this.slots.length) {
      this.slots[(this.head + this.size++) % this.slots.length] = item;
      return undefined;
    }
    const dropped = this.slots[this.head];
    this.slots[this.head] = item;
    this.head = (this.head + 1) % this.slots.length;
    return dropped;
  }
  shift(): T | undefined {
    if (this.size === 0) return undefined;
    const item = this.slots[this.head];
    this.slots[this.head] = undefined;
    this.head = (this.head + 1) % this.slots.length;
    this.size--;
    return item;
  }
  get length(): number {
    return this.size;
  }
  all(): T[] {
    const out: T[] = [];
    for (let i = 0; i < this.size; i++) out.push(this.slots[(this.head + i) % this.slots.length] as T);
    return out;
  }
  clear(): void {
    this.slots.fill(undefined);
    this.head = 0;
    this.size = 0;
  }
}

/**
 * A body as recorded, not yet decoded or redacted: the text, a copy of the bytes sent, or an
 * answer's JSON as it was written (no copy: `jsonText` writes it out when it is read).
 */
type RawBody = string | Buffer | { json: AnswerJson; length: number };

/** An entry as recorded; read through `materialize`. */
interface Kept
  extends Omit<
    JournalEntry,
    'at' | 'path' | 'requestHeaders' | 'responseHeaders' | 'requestBody' | 'responseBody'
  > {
  atMs: number;
  rawPath: string;
  rawRequestHeaders: IncomingHttpHeaders | Record<string, string>;
  rawResponseHeaders: Record<string, string>;
  rawRequestBody?: RawBody;
  rawResponseBody?: RawBody;
  /** The token endpoint's: its bodies are not kept. */
  secret: boolean;
  size: number;
}

const sizeOfBody = (body: RawBody | undefined) => (body === undefined ? 0 : body.length);

export class Journal {
  readonly capacity: number;
  readonly bodyBytes: number;
  readonly bodyCap: number;
  private readonly requests: Ring<Kept>;
  private readonly deliveryRing: Ring<Delivery>;
  private bodiesKept = 0;
  private nextId = 1;
  private nextDelivery = 1;
  private readonly listeners = new Set<Listener>();

  constructor(
    options: JournalOptions = {},
    /** Whether a path's bodies hold credentials (the token endpoint's): not kept at all. */
    private readonly secretPath: (pathname: string) => boolean = () => false,
  ) {
    this.capacity = options.entries ?? 1000;
    this.bodyBytes = options.bodyBytes ?? 8 * 1024 * 1024;
    this.bodyCap = options.bodyCap ?? 64 * 1024;
    this.requests = new Ring(this.capacity);
    this.deliveryRing = new Ring(options.deliveries ?? 500);
  }

  /** Tells `listener` of every entry and delivery recorded, and of `clear`; returns the unsubscribe. */
  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get subscribers(): number {
    return this.listeners.size;
  }

  private emit(event: string, data: unknown): void {
    for (const listener of this.listeners) listener(event, data);
  }

  /** Records an answered request (the `onResponse` hook); control-plane requests are left out. */
  record(exchange: Exchange, controlPrefix: string): void {
    const query = exchange.path.indexOf('?');
    const pathname = query < 0 ? exchange.path : exchange.path.slice(0, query);
    if (pathname === controlPrefix || pathname.startsWith(`${controlPrefix}/`)) return;
    const secret = this.secretPath(pathname);
    const requestBody = secret ? undefined : exchange.request?.body || undefined;
    const sent = exchange.sent;
    // The bytes sent are the server's to reuse after this call: a JSON answer is kept as it was
    // written (it makes the same bytes again), anything else as a copy.
    const responseBody: RawBody | undefined = secret
      ? undefined
      : sent === undefined
        ? exchange.text || undefined
        : typeof sent === 'string'
          ? sent.slice(0, this.bodyCap + 1) || undefined
          : sent.length === 0
            ? undefined
            : exchange.sentJson
              ? { json: exchange.sentJson, length: Math.min(sent.length, this.bodyCap * 3 + 1) }
              : Buffer.from(sent.subarray(0, this.bodyCap * 3 + 1));
    const errorBody =
      exchange.status >= 400
        ? (exchange.body as { error?: { message?: string; errors?: { reason?: string }[] } })?.error
        : undefined;
    const cost = exchange.headers['x-emulator-quota-cost'];
    const request = exchange.request;
    // Built field by field (no object spread per optional field): this runs for every request.
    const kept: Kept = {
      id: this.nextId++,
      atMs: Date.now(),
      method: exchange.method,
      rawPath: exchange.path,
      status: exchange.status,
      rawRequestHeaders: request?.headers ?? {},
      // The answer's own headers object, never changed once sent (server.ts hands hooks a copy).
      rawResponseHeaders: exchange.headers,
      secret,
      size: 0,
    };
    if (request?.user) kept.user = request.user;
    if (exchange.operationId) kept.operationId = exchange.operationId;
    if (request?.durationMs !== undefined) kept.durationMs = Math.round(request.durationMs * 100) / 100;
    if (cost !== undefined) kept.quotaUnits = Number(cost);
    if (exchange.batch) kept.batch = exchange.batch;
    if (errorBody) {
      const error: NonNullable<Kept['error']> = {};
      const reason = errorBody.errors?.[0]?.reason;
      if (reason) error.reason = reason;
      if (errorBody.message) error.message = errorBody.message;
      kept.error = error;
    }
    if (requestBody !== undefined) kept.rawRequestBody = requestBody.slice(0, this.bodyCap + 1);
    if (responseBody !== undefined) kept.rawResponseBody = responseBody;
    kept.size = sizeOfBody(kept.rawRequestBody) + sizeOfBody(kept.rawResponseBody);
    this.bodiesKept += kept.size;
    const dropped = this.requests.push(kept);
    if (dropped) this.bodiesKept -= dropped.size;
    // The bound on body text: the oldest entries go until the rest fits.
    while (this.bodiesKept > this.bodyBytes && this.requests.length > 1) {
      const oldest = this.requests.shift();
      if (oldest) this.bodiesKept -= oldest.size;
    }
    if (this.listeners.size > 0) this.emit('request', summarize(kept));
  }

  /**
   * A body as shown: decoded, cut at the cap, its credentials replaced as its Content-Type
   * reads, and as text besides for an error's answer (its message may quote the request).
   */
  private shown(
    raw: RawBody | undefined,
    headers: IncomingHttpHeaders | Record<string, string>,
    error = false,
  ): { text?: string; cut: boolean } {
    if (raw === undefined) return { cut: false };
    const text =
      typeof raw === 'string' ? raw : Buffer.isBuffer(raw) ? raw.toString('utf8') : jsonText(raw.json);
    const cut = text.length > this.bodyCap;
    const type = headers['content-type'];
    const redacted = redactBody(
      cut ? text.slice(0, this.bodyCap) : text,
      Array.isArray(type) ? type[0] : type,
    );
    return { text: error ? redactText(redacted) : redacted, cut };
  }

  private requestShown(kept: Kept): { text?: string; cut: boolean } {
    return this.shown(kept.rawRequestBody, kept.rawRequestHeaders);
  }

  private responseShown(kept: Kept): { text?: string; cut: boolean } {
    return this.shown(kept.rawResponseBody, kept.rawResponseHeaders, kept.status >= 400);
  }

  /** An entry as the inspector shows it. */
  private materialize(kept: Kept): JournalEntry {
    const {
      atMs,
      rawPath,
      rawRequestHeaders,
      rawResponseHeaders,
      rawRequestBody: _request,
      rawResponseBody: _response,
      secret,
      size: _size,
      ...rest
    } = kept;
    const request = this.requestShown(kept);
    const response = this.responseShown(kept);
    const truncated = [...(request.cut ? ['request'] : []), ...(response.cut ? ['response'] : [])] as (
      | 'request'
      | 'response'
    )[];
    const withheld = `${REDACTED} (the token endpoint's bodies hold credentials)`;
    return {
      ...rest,
      ...shownError(rest.error),
      at: new Date(atMs).toISOString(),
      path: redactTarget(rawPath),
      requestHeaders: redactHeaders(rawRequestHeaders),
      ...(secret
        ? { requestBody: withheld }
        : request.text !== undefined
          ? { requestBody: request.text }
          : {}),
      responseHeaders: redactHeaders(rawResponseHeaders),
      ...(secret
        ? { responseBody: withheld }
        : response.text !== undefined
          ? { responseBody: response.text }
          : {}),
      ...(truncated.length > 0 ? { truncated } : {}),
    };
  }

  recordDelivery(report: DeliveryReport): void {
    const delivery: Delivery = {
      id: this.nextDelivery++,
      at: new Date().toISOString(),
      ...report,
      headers: redactHeaders(report.headers),
    };
    this.deliveryRing.push(delivery);
    if (this.listeners.size > 0) this.emit('delivery', delivery);
  }

  entry(id: number): JournalEntry | undefined {
    const kept = this.requests.all().find((entry) => entry.id === id);
    return kept && this.materialize(kept);
  }

  /**
   * The entries, newest last, filtered; `after` keeps those with a greater id, `mentions` those
   * whose path (decoded) or bodies, as shown, contain the text: what the inspector reads an
   * event's or a conversion's history from. Only that filter decodes bodies.
   */
  list(filter: JournalFilter = {}): JournalSummary[] {
    return this.requests
      .all()
      .filter(
        (entry) =>
          (filter.after === undefined || entry.id > filter.after) &&
          (!filter.operation || (entry.operationId ?? '').includes(filter.operation)) &&
          (!filter.user || (entry.user ?? '').includes(filter.user)) &&
          (!filter.status || statusMatches(entry.status, filter.status)) &&
          (!filter.mentions || this.mentions(entry, filter.mentions)),
      )
      .map(summarize);
  }

  private mentions(kept: Kept, text: string): boolean {
    const path = redactTarget(kept.rawPath);
    if (path.includes(text) || decoded(path).includes(text)) return true;
    if (kept.secret) return false;
    return [this.requestShown(kept), this.responseShown(kept)].some((shown) => shown.text?.includes(text));
  }

  deliveries(): readonly Delivery[] {
    return this.deliveryRing.all();
  }

  /** What the bound is and how much of it is used. */
  usage(): { entries: number; capacity: number; bodyBytes: number; bodyBytesLimit: number; bodyCap: number } {
    return {
      entries: this.requests.length,
      capacity: this.capacity,
      bodyBytes: this.bodiesKept,
      bodyBytesLimit: this.bodyBytes,
      bodyCap: this.bodyCap,
    };
  }

  clear(): void {
    this.requests.clear();
    this.deliveryRing.clear();
    this.bodiesKept = 0;
    this.emit('reset', {});
  }
}

/** A path with its escapes decoded, or as it is when they are malformed. */
function decoded(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/** `404`, `4xx`, `error` (400 and up) or `ok` (below 400). */
function statusMatches(status: number, wanted: string): boolean {
  if (wanted === 'error') return status >= 400;
  if (wanted === 'ok') return status < 400;
  if (/^\dxx$/i.test(wanted)) return Math.floor(status / 100) === Number(wanted[0]);
  return String(status) === wanted;
}

/** An entry's line in the list: no headers or bodies, so nothing to decode or redact but the path. */
function summarize(kept: Kept): JournalSummary {
  const {
    atMs,
    rawPath,
    rawRequestHeaders: _a,
    rawResponseHeaders: _b,
    rawRequestBody: _c,
    rawResponseBody: _d,
    secret: _e,
    size: _f,
    ...rest
  } = kept;
  return {
    ...rest,
    ...shownError(rest.error),
    at: new Date(atMs).toISOString(),
    path: redactTarget(rawPath),
  };
}

/** The error kept with an entry, its message redacted as text (it may quote the request). */
function shownError(error: JournalEntry['error']): Pick<JournalEntry, 'error'> {
  return error?.message === undefined ? {} : { error: { ...error, message: redactText(error.message) } };
}
