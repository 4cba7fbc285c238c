/**
 * Recordings of HTTP exchanges as HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/), the
 * format browsers' developer tools, Polly.js and `@mswjs/source` share. The mock's proxy writes
 * them (`gspec-mock --proxy --record`), its replay answers from them (`--replay`), and the
 * emulator turns their answers into a seed (`gspec-emulator --seed-from`).
 *
 * A recording never holds a credential: every exchange goes through `harEntry`, which redacts
 * headers, the query, form fields and JSON keys as redact.ts says (the token endpoint's answers
 * included: `access_token`, `refresh_token` and `id_token` are credential names). A redacted
 * value reads `[redacted]`.
 *
 * Bodies are kept decoded (HAR's `content.text` is the content after any Content-Encoding); a
 * body that is not UTF-8 is kept as base64 with `encoding: "base64"`.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { JsonFileError, parseJsonText } from './json-file.js';
import { REDACTED, redactBody, redactHeaders, redactTarget } from './redact.js';

export interface HarNameValue {
  name: string;
  value: string;
}

export interface HarPostData {
  mimeType: string;
  text: string;
}

export interface HarRequest {
  method: string;
  /** The absolute URL, its credential parameters redacted. */
  url: string;
  httpVersion: string;
  cookies: HarNameValue[];
  headers: HarNameValue[];
  queryString: HarNameValue[];
  postData?: HarPostData;
  headersSize: number;
  bodySize: number;
}

export interface HarContent {
  /** The length of the decoded content in bytes. */
  size: number;
  mimeType: string;
  text?: string;
  encoding?: 'base64';
}

export interface HarResponse {
  status: number;
  statusText: string;
  httpVersion: string;
  cookies: HarNameValue[];
  headers: HarNameValue[];
  content: HarContent;
  redirectURL: string;
  headersSize: number;
  bodySize: number;
}

export interface HarEntry {
  startedDateTime: string;
  /** Milliseconds from the request's start to the answer's end. */
  time: number;
  request: HarRequest;
  response: HarResponse;
  cache: Record<string, never>;
  timings: { send: number; wait: number; receive: number };
  comment?: string;
}

export interface Har {
  log: {
    version: '1.2';
    creator: { name: string; version: string };
    entries: HarEntry[];
    comment?: string;
  };
}

/** One exchange as a recorder sees it, before redaction. */
export interface Exchange {
  method: string;
  /** The absolute URL the request went to. */
  url: string;
  requestHeaders: IncomingHttpHeaders | Record<string, string>;
  requestBody?: Buffer | string | undefined;
  status: number;
  statusText?: string;
  responseHeaders: IncomingHttpHeaders | Record<string, string>;
  /** The decoded answer body (after any Content-Encoding). */
  responseBody?: Buffer | string | undefined;
  started: Date;
  timeMs: number;
  comment?: string;
}

const headerList = (headers: Record<string, string>): HarNameValue[] =>
  Object.entries(headers).map(([name, value]) => ({ name, value }));

/** The query of a URL as HAR lists it, decoded. */
function queryList(url: string): HarNameValue[] {
  const mark = url.indexOf('?');
  if (mark < 0) return [];
  const list: HarNameValue[] = [];
  for (const [name, value] of new URLSearchParams(url.slice(mark + 1))) list.push({ name, value });
  return list;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A body as text (redacted by its type) or, when it is not UTF-8, as base64 (kept whole: no credential is binary). */
function bodyText(
  body: Buffer | string | undefined,
  contentType: string | undefined,
): { text: string; size: number; base64: boolean } | undefined {
  if (body === undefined || body.length === 0) return undefined;
  if (typeof body === 'string')
    return { text: redactBody(body, contentType), size: Buffer.byteLength(body), base64: false };
  try {
    return { text: redactBody(utf8.decode(body), contentType), size: body.length, base64: false };
  } catch {
    return { text: body.toString('base64'), size: body.length, base64: true };
  }
}

function headerValue(
  headers: IncomingHttpHeaders | Record<string, string>,
  name: string,
): string | undefined {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name || value === undefined) continue;
    return Array.isArray(value) ? value.join(', ') : String(value);
  }
  return undefined;
}

/** One exchange as a HAR entry, every credential redacted. */
export function harEntry(exchange: Exchange): HarEntry {
  const url = redactTarget(exchange.url);
  const requestType = headerValue(exchange.requestHeaders, 'content-type');
  const responseType = headerValue(exchange.responseHeaders, 'content-type');
  const sent = bodyText(exchange.requestBody, requestType);
  const answered = bodyText(exchange.responseBody, responseType);
  const time = Math.max(0, Math.round(exchange.timeMs));
  return {
    startedDateTime: exchange.started.toISOString(),
    time,
    request: {
      method: exchange.method.toUpperCase(),
      url,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: headerList(redactHeaders(exchange.requestHeaders)),
      queryString: queryList(url),
      ...(sent
        ? { postData: { mimeType: requestType ?? '', text: sent.base64 ? REDACTED : sent.text } }
        : {}),
      headersSize: -1,
      bodySize: sent?.size ?? 0,
    },
    response: {
      status: exchange.status,
      statusText: exchange.statusText ?? '',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: headerList(redactHeaders(exchange.responseHeaders)),
      content: {
        size: answered?.size ?? 0,
        mimeType: responseType ?? '',
        ...(answered ? { text: answered.text } : {}),
        ...(answered?.base64 ? { encoding: 'base64' as const } : {}),
      },
      redirectURL: '',
      headersSize: -1,
      bodySize: -1,
    },
    cache: {},
    timings: { send: 0, wait: time, receive: 0 },
    ...(exchange.comment ? { comment: exchange.comment } : {}),
  };
}

/** A recording that cannot be read: the message names the file and the place in it. */
export class HarError extends Error {
  override name = 'HarError';
}

type JsonObject = Record<string, unknown>;
const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function checkNameValues(value: unknown, where: string, fail: (where: string, what: string) => never): void {
  if (value === undefined) return;
  if (!Array.isArray(value)) fail(where, 'expected an array of {name, value}');
  (value as unknown[]).forEach((item, i) => {
    if (!isObject(item) || typeof item.name !== 'string' || typeof item.value !== 'string')
      fail(`${where}[${i}]`, 'expected {"name": string, "value": string}');
  });
}

/**
 * The entries of a HAR document, checked as far as the tools here read them: each entry's
 * request (method, absolute URL, headers, postData.text) and response (status, headers,
 * content). Fields HAR requires but nothing here reads (timings, cache, sizes) may be missing,
 * as some tools leave them out. The message of a HarError names `source` and the place.
 */
export function parseHar(text: string, source: string): HarEntry[] {
  const fail = (where: string, what: string): never => {
    throw new HarError(`${source}: ${where}: ${what}`);
  };
  let document: unknown;
  try {
    // FILE:LINE:COLUMN and the line (redacted when it holds a credential), not the parser's
    // own message: it quotes the text, which may hold one.
    document = parseJsonText(text, source);
  } catch (error) {
    if (error instanceof JsonFileError) throw new HarError(error.message);
    throw error;
  }
  if (!isObject(document) || !isObject(document.log))
    fail('log', 'missing: a HAR file is a JSON object with a "log" object');
  const log = (document as { log: JsonObject }).log;
  if (!Array.isArray(log.entries)) fail('log.entries', 'expected an array of entries');
  const entries = log.entries as unknown[];
  entries.forEach((entry, i) => {
    const at = `log.entries[${i}]`;
    if (!isObject(entry)) fail(at, 'expected an object');
    const { request, response } = entry as JsonObject;
    if (!isObject(request)) fail(`${at}.request`, 'expected an object');
    const req = request as JsonObject;
    if (typeof req.method !== 'string' || !/^[A-Za-z]+$/.test(req.method))
      fail(`${at}.request.method`, `expected an HTTP method, found ${JSON.stringify(req.method)}`);
    if (typeof req.url !== 'string' || !URL.canParse(req.url))
      fail(`${at}.request.url`, `expected an absolute URL, found ${JSON.stringify(req.url)}`);
    checkNameValues(req.headers, `${at}.request.headers`, fail);
    if (req.postData !== undefined) {
      if (!isObject(req.postData)) fail(`${at}.request.postData`, 'expected an object');
      const { text: posted } = req.postData as JsonObject;
      if (posted !== undefined && typeof posted !== 'string')
        fail(`${at}.request.postData.text`, 'expected a string');
    }
    if (!isObject(response)) fail(`${at}.response`, 'expected an object');
    const res = response as JsonObject;
    if (
      typeof res.status !== 'number' ||
      !Number.isInteger(res.status) ||
      res.status < 100 ||
      res.status > 599
    )
      fail(`${at}.response.status`, `expected an HTTP status, found ${JSON.stringify(res.status)}`);
    checkNameValues(res.headers, `${at}.response.headers`, fail);
    if (!isObject(res.content)) fail(`${at}.response.content`, 'expected an object');
    const content = res.content as JsonObject;
    if (content.text !== undefined && typeof content.text !== 'string')
      fail(`${at}.response.content.text`, 'expected a string');
    if (content.encoding !== undefined && content.encoding !== 'base64')
      fail(
        `${at}.response.content.encoding`,
        `expected "base64" or none, found ${JSON.stringify(content.encoding)}`,
      );
    // Optional arrays read by the tools, defaulted so that they need not check again.
    req.headers ??= [];
    res.headers ??= [];
  });
  return entries as HarEntry[];
}

/** The entries of a HAR file (see parseHar); a missing or unreadable file is a HarError. */
export function readHarFile(file: string): HarEntry[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new HarError(
      code === 'ENOENT' ? `${file}: no such file` : `${file}: cannot be read (${(error as Error).message})`,
    );
  }
  return parseHar(text, file);
}

/** The decoded body of a recorded answer: its text, or its bytes when it was kept as base64. */
export function harContentBody(content: HarContent): Buffer | undefined {
  if (content.text === undefined) return undefined;
  return content.encoding === 'base64'
    ? Buffer.from(content.text, 'base64')
    : Buffer.from(content.text, 'utf8');
}

/** A header of a recorded request or answer (names compared in lower case), the last if repeated. */
export function harHeader(headers: readonly HarNameValue[], name: string): string | undefined {
  const lower = name.toLowerCase();
  let found: string | undefined;
  for (const header of headers) if (header.name.toLowerCase() === lower) found = header.value;
  return found;
}

/**
 * Writes a recording as exchanges come, so that the file is complete HAR at every moment: each
 * `add` rewrites it whole through a temporary file renamed over it, at most once per
 * `intervalMs` (the rest wait for the next write or `close`). The file must not exist when the
 * writer starts: a recording never overwrites a file it did not write.
 */
export class HarWriter {
  readonly file: string;
  private readonly har: Har;
  private timer: NodeJS.Timeout | undefined;
  private dirty = false;
  private closed = false;

  constructor(
    file: string,
    creator: { name: string; version: string },
    private readonly intervalMs = 500,
  ) {
    this.file = file;
    this.har = { log: { version: '1.2', creator, entries: [] } };
    try {
      // `wx`: created here or not at all, so that no file of someone else's is ever replaced.
      writeFileSync(file, `${JSON.stringify(this.har, null, 2)}\n`, { flag: 'wx' });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new HarError(
        code === 'EEXIST'
          ? `${file} exists already; record to a new file (a recording never overwrites one)`
          : `${file}: cannot be written (${(error as Error).message})`,
      );
    }
  }

  get count(): number {
    return this.har.log.entries.length;
  }

  add(entry: HarEntry): void {
    if (this.closed) return;
    this.har.log.entries.push(entry);
    this.dirty = true;
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.dirty) this.write();
    }, this.intervalMs);
    this.timer.unref();
  }

  /** Writes what is pending; later entries are not taken. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.dirty) this.write();
  }

  private write(): void {
    const temporary = `${this.file}.${process.pid}.partial`;
    writeFileSync(temporary, `${JSON.stringify(this.har, null, 2)}\n`);
    renameSync(temporary, this.file);
    this.dirty = false;
  }
}
