/**
 * `@gspec/runtime/multipart`: the wire format of Google's batch requests, both ways. A batch
 * is one `multipart/mixed` body whose parts are each `Content-Type: application/http` and
 * hold one whole HTTP message: a request (request line, headers, blank line, body) going in,
 * an answer (status line, headers, blank line, body) coming back. The client encodes requests
 * and parses answers; the mock and the emulator (through @gspec/server-kit) parse requests and
 * encode answers, so that both sides read and write one format.
 *
 * Written here rather than taken from the registry (decision 0048): the maintained multipart
 * parsers refuse what Google takes and what third-party batchers send, a preamble before the
 * first boundary and lines ended by LF alone. This reader takes both, and CRLF; the writer
 * writes CRLF. Bodies are text (the APIs speak JSON), so the module works on strings.
 *
 * A server reads a batch body before it knows who sent it, so the reader takes time in
 * proportion to the body whatever it holds: line breaks, delimiters and blank lines are found
 * by scanning indexes, not by regular expressions that can backtrack (the trailing line breaks
 * of a part were once stripped by `/(\r?\n)+$/`, which took seconds over a run of 60,000 line
 * breaks followed by text). The regular expressions left are anchored to the start of one line
 * or header (boundaryOf's tries start only at a `;`), so none goes back over what it read more
 * than once; the fuzz in test/multipart.fuzz.test.ts throws every kind of text at the reader.
 */

/** One HTTP request in a batch: its method, its target (path and query), headers, body. */
export interface BatchPartRequest {
  method: string;
  /** The path and query, such as `/calendar/v3/calendars/primary/events?maxResults=5`. */
  target: string;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body?: string;
  /** The part's Content-ID as sent, without angle brackets; absent when the part had none. */
  contentId?: string;
}

/** One HTTP answer in a batch. */
export interface BatchPartResponse {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body?: string;
  /** The answer part's Content-ID, without angle brackets (`response-` and the request's). */
  contentId?: string;
}

/** A batch body that is not one: what is wrong, and in which part (counted from 1). */
export class BatchFormatError extends Error {
  override name = 'BatchFormatError';
  constructor(
    message: string,
    /** The part the problem is in, counted from 1; absent for the body as a whole. */
    readonly part?: number,
  ) {
    super(part === undefined ? message : `part ${part}: ${message}`);
  }
}

/** A batch body with more parts than the reader was told to take. */
export class BatchLimitError extends BatchFormatError {
  override name = 'BatchLimitError';
  constructor(readonly limit: number) {
    super(`a batch holds at most ${limit} parts`);
  }
}

const REASONS: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  204: 'No Content',
  304: 'Not Modified',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  410: 'Gone',
  412: 'Precondition Failed',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

/** The reason phrase of a status, for a status line. */
export const reasonPhrase = (status: number): string => REASONS[status] ?? 'Unknown';

/** A boundary no JSON body will hold by chance. */
export function newBoundary(): string {
  const bytes = new Uint8Array(18);
  crypto.getRandomValues(bytes);
  return `batch_${Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}

/**
 * The boundary of a `multipart/mixed` Content-Type, quoted or not; a BatchFormatError when the
 * type is another or has no boundary.
 */
export function boundaryOf(contentType: string | null | undefined): string {
  const type = (contentType ?? '').trim();
  if (!/^multipart\/mixed\s*(;|$)/i.test(type))
    throw new BatchFormatError(
      `a batch is multipart/mixed, not ${type === '' ? 'a body without Content-Type' : JSON.stringify(type)}`,
    );
  // Linear in the Content-Type: a try starts only at a `;`, the blanks it skips are its own, and
  // the first try to reach `=` succeeds (an unclosed quote falls to the unquoted form).
  const match = /;\s*boundary\s*=\s*(?:"([^"]+)"|([^\s;]+))/i.exec(type);
  const boundary = match?.[1] ?? match?.[2];
  if (!boundary) throw new BatchFormatError('the multipart/mixed Content-Type has no boundary');
  if (boundary.length > 70) throw new BatchFormatError('the boundary is longer than 70 characters');
  return boundary;
}

const LF = 10;
const CR = 13;
const SPACE = 32;
const TAB = 9;

/** The index just past a line break (`\r\n` or `\n`) that starts at `at`; -1 when none does. */
function lineBreakAt(text: string, at: number): number {
  const char = text.charCodeAt(at);
  if (char === LF) return at + 1;
  return char === CR && text.charCodeAt(at + 1) === LF ? at + 2 : -1;
}

/** The index past the line breaks that start at `at`, as many as there are. */
function pastLineBreaks(text: string, at: number): number {
  for (let next = lineBreakAt(text, at); next >= 0; next = lineBreakAt(text, at)) at = next;
  return at;
}

/** `text` without the one line break it ends with, if it ends with one. */
function withoutFinalLineBreak(text: string): string {
  if (text.charCodeAt(text.length - 1) !== LF) return text;
  return text.slice(0, text.charCodeAt(text.length - 2) === CR ? -2 : -1);
}

/** A part of a multipart body: its headers (names in lower case) and its content. */
interface RawPart {
  headers: Record<string, string>;
  content: string;
}

/** Sets a header, `__proto__` included (plain assignment would change the prototype instead). */
function putHeader(headers: Record<string, string>, name: string, value: string): void {
  if (name === '__proto__')
    Object.defineProperty(headers, name, { value, enumerable: true, writable: true, configurable: true });
  else headers[name] = value;
}

/** Headers, one per line, up to the end of `text`; names in lower case, repeats joined. */
function readHeaders(text: string, part: number, what: string): Record<string, string> {
  const headers: Record<string, string> = {};
  if (text === '') return headers;
  for (const line of text.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    const name = colon > 0 ? line.slice(0, colon).trim().toLowerCase() : '';
    if (!/^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(name))
      throw new BatchFormatError(`${what} line ${JSON.stringify(line)} is no "Name: value" header`, part);
    const value = line.slice(colon + 1).trim();
    // Own members only: a header named `constructor` or `__proto__` is a header like any other.
    const known = Object.hasOwn(headers, name) ? headers[name] : undefined;
    putHeader(headers, name, known === undefined ? value : `${known}, ${value}`);
  }
  return headers;
}

/**
 * Splits at the first blank line: what is above it, and what is below. A text that starts with
 * a line break has nothing above; without a blank line, all of it is above (less the line
 * break it ends with) and nothing below.
 */
function splitAtBlankLine(text: string): [head: string, rest: string | undefined] {
  const leading = lineBreakAt(text, 0);
  if (leading >= 0) return ['', text.slice(leading)];
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) {
    const below = lineBreakAt(text, at + 1);
    if (below < 0) continue;
    const end = text.charCodeAt(at - 1) === CR ? at - 1 : at;
    return [text.slice(0, end), text.slice(below)];
  }
  return [withoutFinalLineBreak(text), undefined];
}

/** A delimiter line: where it starts (its leading line break included), where it ends, and whether it closes. */
interface Delimiter {
  start: number;
  /** Past `--boundary`, the closing `--` and trailing blanks; the line break, if any, is not in it. */
  end: number;
  closing: boolean;
}

/**
 * The first delimiter line that starts at `from` or after: `--boundary` at the start of the
 * body or after a line break (`\r\n` or `\n`, counted in the delimiter), then `--` for the
 * closing one, spaces or tabs, and a line break or the end of the body (after the closing
 * one, a CR alone counts as a line break: what follows it is the epilogue).
 */
function nextDelimiter(body: string, dashBoundary: string, from: number): Delimiter | undefined {
  for (let at = body.indexOf(dashBoundary, from); at >= 0; at = body.indexOf(dashBoundary, at + 1)) {
    let start = at;
    if (at > 0) {
      if (body.charCodeAt(at - 1) !== LF) continue;
      start = at >= 2 && body.charCodeAt(at - 2) === CR ? at - 2 : at - 1;
      // A line break before `from` belongs to what came before; `\n` alone may still start the line.
      if (start < from) start = at - 1;
      if (start < from) continue;
    }
    let end = at + dashBoundary.length;
    const closing = body.startsWith('--', end);
    if (closing) end += 2;
    while (body.charCodeAt(end) === SPACE || body.charCodeAt(end) === TAB) end++;
    // RFC 2046: close-delimiter transport-padding [CRLF epilogue]. The epilogue is dropped, so
    // after the closing line a CR alone ends it as well as CRLF or LF.
    if (end < body.length && lineBreakAt(body, end) < 0 && !(closing && body.charCodeAt(end) === CR))
      continue;
    return { start, end, closing };
  }
  return undefined;
}

/** The parts of a multipart body; the preamble and the epilogue are dropped. */
function readParts(body: string, boundary: string, maxParts: number): RawPart[] {
  const dashBoundary = `--${boundary}`;
  const parts: RawPart[] = [];
  let delimiter = nextDelimiter(body, dashBoundary, 0);
  if (delimiter === undefined) throw new BatchFormatError(`the body has no line --${boundary}`);
  while (!delimiter.closing) {
    // Past the delimiter line and its line break.
    const brk = lineBreakAt(body, delimiter.end);
    const start = brk < 0 ? delimiter.end : brk;
    const next = nextDelimiter(body, dashBoundary, delimiter.end);
    if (next === undefined)
      throw new BatchFormatError(`the body ends before its closing line --${boundary}--`);
    const number = parts.length + 1;
    if (number > maxParts) throw new BatchLimitError(maxParts);
    // Empty when the next delimiter's line break is the one that ended this delimiter line.
    const text = start < next.start ? body.slice(start, next.start) : '';
    const [head, content] = splitAtBlankLine(text);
    parts.push({ headers: readHeaders(head, number, 'the part header'), content: content ?? '' });
    delimiter = next;
  }
  return parts;
}

/** An HTTP message's body below its blank line, without the line breaks that end the part. */
function messageBody(rest: string | undefined): string | undefined {
  if (rest === undefined) return undefined;
  let end = rest.length;
  while (end > 0 && rest.charCodeAt(end - 1) === LF) end -= rest.charCodeAt(end - 2) === CR ? 2 : 1;
  return end === 0 ? undefined : rest.slice(0, end);
}

function checkPartType(part: RawPart, number: number): void {
  const type = part.headers['content-type'];
  if (type === undefined || !/^application\/http\s*(;|$)/i.test(type))
    throw new BatchFormatError(
      `each part is Content-Type: application/http, not ${type === undefined ? 'a part without one' : JSON.stringify(type)}`,
      number,
    );
}

/** A Content-ID without the angle brackets around it, if it has them. */
const stripAngles = (id: string | undefined): string | undefined =>
  id !== undefined && id.length >= 2 && id.startsWith('<') && id.endsWith('>') ? id.slice(1, -1) : id;

export interface ParseBatchOptions {
  /** The most parts to read before refusing the body; 1000 unless said. */
  maxParts?: number;
}

/**
 * The requests of a batch body, in order. Each part is `application/http`; a request line of
 * `METHOD target [HTTP/x.y]`, where the target is a path or an absolute URL (its path and query
 * are kept).
 */
export function parseBatchRequest(
  contentType: string | null | undefined,
  body: string,
  options: ParseBatchOptions = {},
): BatchPartRequest[] {
  const boundary = boundaryOf(contentType);
  return readParts(body, boundary, options.maxParts ?? 1000).map((part, index) => {
    const number = index + 1;
    checkPartType(part, number);
    // Blank lines before the request line are tolerated, as HTTP/1.1 servers do.
    const message = part.content.slice(pastLineBreaks(part.content, 0));
    const [head, rest] = splitAtBlankLine(message);
    const [requestLine = '', ...headerLines] = head.split(/\r?\n/);
    const request = /^([A-Za-z]+) (\S+)(?: HTTP\/\d(?:\.\d)?)?\s*$/.exec(requestLine);
    if (!request)
      throw new BatchFormatError(
        `expected a request line such as "GET /calendar/v3/colors HTTP/1.1", found ${JSON.stringify(requestLine)}`,
        number,
      );
    let target = request[2] as string;
    if (/^https?:\/\//i.test(target)) {
      let url: URL;
      try {
        url = new URL(target);
      } catch {
        throw new BatchFormatError(`the request target ${JSON.stringify(target)} is no URL`, number);
      }
      target = `${url.pathname}${url.search}`;
    } else if (!target.startsWith('/'))
      throw new BatchFormatError(`the request target ${JSON.stringify(target)} is no path`, number);
    const contentId = stripAngles(part.headers['content-id']);
    const parsedBody = messageBody(rest);
    return {
      method: (request[1] as string).toUpperCase(),
      target,
      headers: readHeaders(headerLines.join('\n'), number, 'the request header'),
      ...(parsedBody !== undefined ? { body: parsedBody } : {}),
      ...(contentId !== undefined ? { contentId } : {}),
    };
  });
}

/** The answers of a batch body, in the order they came. */
export function parseBatchResponse(
  contentType: string | null | undefined,
  body: string,
): BatchPartResponse[] {
  const boundary = boundaryOf(contentType);
  return readParts(body, boundary, Number.POSITIVE_INFINITY).map((part, index) => {
    const number = index + 1;
    checkPartType(part, number);
    const message = part.content.slice(pastLineBreaks(part.content, 0));
    const [head, rest] = splitAtBlankLine(message);
    const [statusLine = '', ...headerLines] = head.split(/\r?\n/);
    const status = /^HTTP\/\d(?:\.\d)? (\d{3})(?: .*)?$/.exec(statusLine);
    if (!status)
      throw new BatchFormatError(
        `expected a status line such as "HTTP/1.1 200 OK", found ${JSON.stringify(statusLine)}`,
        number,
      );
    const contentId = stripAngles(part.headers['content-id']);
    const parsedBody = messageBody(rest);
    return {
      status: Number(status[1]),
      headers: readHeaders(headerLines.join('\n'), number, 'the answer header'),
      ...(parsedBody !== undefined ? { body: parsedBody } : {}),
      ...(contentId !== undefined ? { contentId } : {}),
    };
  });
}

function headerLines(headers: Record<string, string>): string {
  let text = '';
  for (const [name, value] of Object.entries(headers)) {
    if (/[\r\n]/.test(name) || /[\r\n]/.test(value))
      throw new TypeError(`the header ${JSON.stringify(name)} holds a line break`);
    text += `${name}: ${value}\r\n`;
  }
  return text;
}

/** A multipart/mixed body and its Content-Type. */
export interface EncodedBatch {
  contentType: string;
  body: string;
}

/**
 * A batch body of HTTP messages, each its start line, headers and body in an
 * `application/http` part with its `<Content-ID>`; CRLF line breaks, the boundary unquoted as
 * Google's.
 */
function encodeMessages<Part extends BatchPartRequest | BatchPartResponse>(
  parts: readonly Part[],
  boundary: string,
  startLine: (part: Part) => string,
): EncodedBatch {
  let body = '';
  for (const part of parts) {
    body += `--${boundary}\r\nContent-Type: application/http\r\n`;
    if (part.contentId !== undefined) body += `Content-ID: <${part.contentId}>\r\n`;
    body += `\r\n${startLine(part)}\r\n${headerLines(part.headers)}\r\n${part.body ?? ''}\r\n`;
  }
  return { contentType: `multipart/mixed; boundary=${boundary}`, body: `${body}--${boundary}--\r\n` };
}

/** Encodes requests as a batch body, each with its request line, headers and body. */
export function encodeBatchRequest(
  parts: readonly BatchPartRequest[],
  boundary = newBoundary(),
): EncodedBatch {
  return encodeMessages(parts, boundary, (part) => `${part.method} ${part.target} HTTP/1.1`);
}

/** Encodes answers as a batch body, each with its status line, headers and body. */
export function encodeBatchResponse(
  parts: readonly BatchPartResponse[],
  boundary = newBoundary(),
): EncodedBatch {
  return encodeMessages(parts, boundary, (part) => `HTTP/1.1 ${part.status} ${reasonPhrase(part.status)}`);
}
