/**
 * `gspec-mock --replay FILE.har`: answers from a recording (HAR 1.2, as `--proxy --record`
 * writes it) with no upstream and no network at all.
 *
 * Matching. A request is answered by a recorded exchange with the same method, the same path,
 * the same query and the same body:
 * - the path is compared segment by segment, each segment percent-decoded, so `a%40b` and `a@b`
 *   are the same; the recording's scheme, host and port do not count;
 * - the query is compared as a multiset of name=value pairs, in any order, leaving out
 *   credential parameters (`access_token`, `key`, ...: server-kit's `isCredentialName`) and
 *   the mock's own `__`-prefixed parameters (`__code`);
 * - the body is compared as JSON when both bodies are JSON (key order does not count), as
 *   name=value pairs for forms, call by call for batches (multipart/mixed: the boundary and
 *   the parts' headers do not count), and as text otherwise;
 * - a recorded value `[redacted]` (the recorder's stand-in for a credential) matches any value,
 *   in the query, a form or JSON; a body recorded as `[redacted]` whole (a binary body) matches
 *   any body;
 * - headers are not compared: the credentials in them differ from one run to the next.
 *
 * Repeats. When several recorded exchanges match a request, the first unused one answers and
 * is then used; once all are used, the last of them answers again and again. A client that
 * polls gets the recorded answers in order, then the final state. `POST /__mock/reset` makes
 * every exchange unused again.
 *
 * Misses. A request that no exchange matches gets 404 in Google's error envelope, naming the
 * nearest recorded request and how it differs. The nearest is looked for in this order: the
 * exchanges with the same method and path; else those with the same path (another method);
 * else those of the closest path, where distance is the number of segments that differ at the
 * same position plus the difference in the number of segments (ties: the same method, then the
 * earliest recorded). Within the chosen group, the exchange with the fewest differences wins,
 * the earliest on a tie.
 *
 * Cost. The exchanges are indexed by method and path once at start; a request is compared with
 * the exchanges of its own method and path only, and the whole recording is read again only to
 * explain a miss.
 */
import {
  createServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
  validateHeaderName,
  validateHeaderValue,
} from 'node:http';
import path from 'node:path';
import {
  AllowedHosts,
  corsHeaders,
  crossOriginRefusal,
  googleError,
  type HarEntry,
  HttpRefusal,
  harContentBody,
  harHeader,
  hostRefusal,
  isCredentialName,
  jsonNestingPastLimit,
  listen,
  nonJsonRefusal,
  preflightHeaders,
  REDACTED,
  readBatch,
  readBody,
  redactBody,
  redactTarget,
  redactText,
} from '@gspec/server-kit';
import { sendJson } from './send-json.js';
import { resolveStaticFile, sendStaticFile } from './static.js';
import { targetUrl } from './target.js';

export interface ReplayOptions {
  /** The entries of the recording, as `readHarFile` reads them. */
  entries: readonly HarEntry[];
  /** Where they came from, for `/healthz` and the start-up lines. */
  source: string;
  /** A folder served at `/` (the built API reference), for paths the recording does not hold. */
  docsDir?: string;
  /** Log one line per request (its query's credentials redacted) and what answered it. */
  verbose?: boolean;
  /** Where log lines go; defaults to stderr. */
  log?: (line: string) => void;
  /** Host names to answer besides IP addresses and localhost, as for the gateway. */
  allowedHosts?: string | readonly string[];
}

export interface Replay {
  server: Server;
  /** How many exchanges the recording holds. */
  readonly entries: number;
  /** Starts listening; resolves to the origin, such as `http://127.0.0.1:4010`. */
  listen(port: number, host?: string): Promise<string>;
  /** Makes every recorded exchange unused again, as `POST /__mock/reset` does. */
  reset(): void;
  close(): Promise<void>;
}

/** A request as the matcher sees it. */
export interface ReplayRequest {
  method: string;
  /** The request target: path and query, or an absolute URL. */
  target: string;
  /** The request's Content-Type, if any. */
  contentType?: string | undefined;
  body?: Buffer | string | undefined;
}

/** What the matcher found: the recorded entry (its index in `log.entries`), or why none. */
export type ReplayMatch =
  | { entry: HarEntry; index: number; message?: undefined }
  | { entry?: undefined; index?: undefined; message: string };

export interface ReplayIndex {
  /** The recorded answer of a request (moving it along its repeats), or the message of a miss. */
  match(request: ReplayRequest): ReplayMatch;
  /** Makes every exchange unused again. */
  reset(): void;
}

// ---------------------------------------------------------------------------------------------
// Requests in a comparable form

type Pair = readonly [name: string, value: string];

type Body =
  | { kind: 'none' }
  /** Recorded as `[redacted]` whole: matches any body. */
  | { kind: 'any' }
  | { kind: 'json'; value: unknown }
  | { kind: 'form'; pairs: Pair[] }
  | { kind: 'batch'; calls: Call[] }
  | { kind: 'text'; text: string; redacted: string };

/** A request, or one call of a batch, ready to compare. */
interface Call {
  method: string;
  /** The path, each segment decoded and encoded again the one way. */
  path: string;
  /** The path and query as sent or recorded (credentials redacted), for messages. */
  shown: string;
  query: Pair[];
  body: Body;
}

/** A recorded exchange in the index. */
interface Recorded {
  index: number;
  entry: HarEntry;
  call: Call;
  used: boolean;
}

/** A path with every segment in one spelling: decoded (when its escapes are valid), then encoded. */
function canonicalPath(pathname: string): string {
  return pathname
    .split('/')
    .map((segment) => {
      if (!segment.includes('%')) return encodeURIComponent(segment);
      try {
        return encodeURIComponent(decodeURIComponent(segment));
      } catch {
        return segment;
      }
    })
    .join('/');
}

/** The name=value pairs of a query or a form that count: no credential, and no `__` parameter in a query. */
function pairsOf(text: string, query: boolean): Pair[] {
  const pairs: Pair[] = [];
  for (const [name, value] of new URLSearchParams(text)) {
    if (isCredentialName(name) || (query && name.startsWith('__'))) continue;
    pairs.push([name, value]);
  }
  return pairs;
}

const mediaType = (contentType: string | undefined): string =>
  (contentType ?? '').split(';', 1)[0]?.trim().toLowerCase() ?? '';

/**
 * A body in the form it is compared in. `recorded`: a body recorded as `[redacted]` whole
 * matches any body; `inBatch`: a part of a batch, which cannot hold another batch.
 */
function bodyOf(
  raw: Buffer | string | undefined,
  contentType: string | undefined,
  recorded: boolean,
  inBatch = false,
): Body {
  if (raw === undefined || raw.length === 0) return { kind: 'none' };
  const text = typeof raw === 'string' ? raw : raw.toString('utf8');
  if (recorded && text === REDACTED) return { kind: 'any' };
  const type = mediaType(contentType);
  if (type === 'application/x-www-form-urlencoded') return { kind: 'form', pairs: pairsOf(text, false) };
  if (type === 'multipart/mixed' && !inBatch) {
    const calls = batchCalls(text, contentType as string, recorded);
    if (calls) return { kind: 'batch', calls };
  }
  // JSON whatever its declared type, unless it nests too deep to compare safely.
  if (jsonNestingPastLimit(text) === undefined) {
    try {
      return { kind: 'json', value: JSON.parse(text) };
    } catch {
      // Not JSON after all: text.
    }
  }
  return { kind: 'text', text, redacted: recorded ? text : redactBody(text, contentType) };
}

/** The calls of a batch body; undefined when it is no batch that can be read. */
function batchCalls(text: string, contentType: string, recorded: boolean): Call[] | undefined {
  try {
    return readBatch({ 'content-type': contentType }, text, Number.MAX_SAFE_INTEGER).map((part) =>
      callOf(part.method, part.target, part.headers['content-type'], part.body, recorded, true),
    );
  } catch {
    return undefined;
  }
}

function callOf(
  method: string,
  target: string,
  contentType: string | undefined,
  body: Buffer | string | undefined,
  recorded: boolean,
  inBatch = false,
): Call {
  const url = targetUrl(target);
  return {
    method: method.toUpperCase(),
    path: canonicalPath(url.pathname),
    shown: redactTarget(`${url.pathname}${url.search}`),
    query: pairsOf(url.search, true),
    body: bodyOf(body, contentType, recorded, inBatch),
  };
}

function recordedCall(entry: HarEntry): Call {
  const { request } = entry;
  const contentType = request.postData?.mimeType || harHeader(request.headers, 'content-type');
  return callOf(request.method, request.url, contentType, request.postData?.text, true);
}

// ---------------------------------------------------------------------------------------------
// Comparing, and saying what differs

/** Differences past this many are not looked for: a message names a few, and ranking needs no more. */
const MAX_DIFFERENCES = 20;

const cut = (text: string): string => (text.length > 60 ? `${text.slice(0, 57)}...` : text);

/** A recorded value as a message shows it: JSON, cut short (the recorder redacted it already). */
const show = (value: unknown): string => cut(JSON.stringify(value) ?? String(value));

/**
 * A sent value as a message shows it: the value of a credential is not repeated, nor one
 * inside it (a credential key of an object, a token in a URL).
 */
const showSent = (name: string, value: unknown): string =>
  isCredentialName(name) ? JSON.stringify(REDACTED) : cut(redactText(JSON.stringify(value) ?? String(value)));

const showValues = (values: readonly string[], sent = false): string =>
  values.map((value) => (sent ? showSent('', value) : show(value))).join(', ');

/**
 * The differences of two lists of pairs (a query, a form), by name: the same values in any
 * order, a recorded `[redacted]` standing for any one value. `label` starts each difference.
 */
function pairDifferences(
  recorded: readonly Pair[],
  sent: readonly Pair[],
  label: string,
  out: string[],
): void {
  const group = (pairs: readonly Pair[]) => {
    const byName = new Map<string, string[]>();
    for (const [name, value] of pairs) {
      const list = byName.get(name);
      if (list) list.push(value);
      else byName.set(name, [value]);
    }
    return byName;
  };
  const want = group(recorded);
  const got = group(sent);
  for (const [name, values] of want) {
    if (out.length >= MAX_DIFFERENCES) return;
    const sentValues = got.get(name);
    if (!sentValues) {
      out.push(`${label} ${name}: recorded ${showValues(values)}, not sent`);
      continue;
    }
    if (!sameValues(values, sentValues))
      out.push(`${label} ${name}: recorded ${showValues(values)}, sent ${showValues(sentValues, true)}`);
  }
  for (const [name, values] of got) {
    if (out.length >= MAX_DIFFERENCES) return;
    if (!want.has(name)) out.push(`${label} ${name}: not recorded, sent ${showValues(values, true)}`);
  }
}

/** Whether two lists of one name's values are the same multiset, a recorded `[redacted]` matching any. */
function sameValues(recorded: readonly string[], sent: readonly string[]): boolean {
  if (recorded.length !== sent.length) return false;
  const left = new Map<string, number>();
  for (const value of sent) left.set(value, (left.get(value) ?? 0) + 1);
  for (const value of recorded) {
    if (value === REDACTED) continue;
    const count = left.get(value) ?? 0;
    if (count === 0) return false;
    left.set(value, count - 1);
  }
  // The lengths are equal, so the sent values left are exactly as many as the wildcards.
  return true;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A member's place in a body, for messages: `start.dateTime`, `attendees[0].email`. */
const member = (at: string, key: string): string =>
  /^[A-Za-z_$][\w$]*$/.test(key) ? (at ? `${at}.${key}` : key) : `${at}[${JSON.stringify(key)}]`;

/**
 * The differences of two JSON values: objects by their keys in any order, arrays item by item,
 * a recorded `"[redacted]"` matching any value. Both come from bodies checked for nesting, so
 * the depth of the recursion is bounded.
 */
function jsonDifferences(recorded: unknown, sent: unknown, at: string, key: string, out: string[]): void {
  if (out.length >= MAX_DIFFERENCES || recorded === REDACTED) return;
  const where = `body${at ? ` at ${at}` : ''}`;
  if (Array.isArray(recorded) && Array.isArray(sent)) {
    if (recorded.length !== sent.length)
      out.push(`${where}: recorded ${recorded.length} item(s), sent ${sent.length}`);
    const shared = Math.min(recorded.length, sent.length);
    for (let i = 0; i < shared; i++) jsonDifferences(recorded[i], sent[i], `${at}[${i}]`, key, out);
    return;
  }
  if (isObject(recorded) && isObject(sent)) {
    for (const name of Object.keys(recorded)) {
      if (out.length >= MAX_DIFFERENCES) return;
      if (Object.hasOwn(sent, name)) jsonDifferences(recorded[name], sent[name], member(at, name), name, out);
      else if (recorded[name] !== REDACTED)
        out.push(`body at ${member(at, name)}: recorded ${show(recorded[name])}, not sent`);
    }
    for (const name of Object.keys(sent)) {
      if (out.length >= MAX_DIFFERENCES) return;
      if (!Object.hasOwn(recorded, name))
        out.push(`body at ${member(at, name)}: not recorded, sent ${showSent(name, sent[name])}`);
    }
    return;
  }
  if (recorded !== sent) out.push(`${where}: recorded ${show(recorded)}, sent ${showSent(key, sent)}`);
}

const BODY_KINDS: Record<Body['kind'], string> = {
  none: 'no body',
  any: 'any body',
  json: 'JSON',
  form: 'a form',
  batch: 'a batch',
  text: 'text',
};

/** The differences of two bodies, each read as its kind says. */
function bodyDifferences(recorded: Body, sent: Body, label: string, out: string[]): void {
  if (recorded.kind === 'any') return;
  if (recorded.kind === 'json' && sent.kind === 'json') {
    const before = out.length;
    jsonDifferences(recorded.value, sent.value, '', '', out);
    if (label) for (let i = before; i < out.length; i++) out[i] = `${label} ${out[i]}`;
    return;
  }
  if (recorded.kind === 'form' && sent.kind === 'form') {
    pairDifferences(recorded.pairs, sent.pairs, `${label ? `${label} ` : ''}form field`, out);
    return;
  }
  if (recorded.kind === 'batch' && sent.kind === 'batch') {
    if (recorded.calls.length !== sent.calls.length)
      out.push(
        `${label ? `${label} ` : ''}batch: recorded ${recorded.calls.length} call(s), sent ${sent.calls.length}`,
      );
    const shared = Math.min(recorded.calls.length, sent.calls.length);
    for (let i = 0; i < shared && out.length < MAX_DIFFERENCES; i++)
      callDifferences(recorded.calls[i] as Call, sent.calls[i] as Call, `batch call ${i + 1}:`, out);
    return;
  }
  if (recorded.kind === 'none' && sent.kind === 'none') return;
  const prefix = label ? `${label} body` : 'body';
  if (recorded.kind === 'text' && sent.kind === 'text') {
    if (recorded.text === sent.text || recorded.text === sent.redacted) return;
    const limit = Math.min(recorded.text.length, sent.text.length);
    let at = 0;
    while (at < limit && recorded.text.charCodeAt(at) === sent.text.charCodeAt(at)) at++;
    out.push(`${prefix}: the recorded text and the sent text differ from character ${at + 1} on`);
    return;
  }
  out.push(`${prefix}: recorded ${BODY_KINDS[recorded.kind]}, sent ${BODY_KINDS[sent.kind]}`);
}

/** The differences of two calls of the same method and path: the query, then the body. */
function callDifferences(recorded: Call, sent: Call, label: string, out: string[]): void {
  const prefix = label ? `${label} ` : '';
  if (label) {
    if (recorded.method !== sent.method)
      out.push(`${prefix}method: recorded ${recorded.method}, sent ${sent.method}`);
    if (recorded.path !== sent.path) out.push(`${prefix}path: recorded ${recorded.path}, sent ${sent.path}`);
  }
  pairDifferences(recorded.query, sent.query, `${prefix}query`, out);
  if (out.length < MAX_DIFFERENCES) bodyDifferences(recorded.body, sent.body, label, out);
}

/** Every difference (up to MAX_DIFFERENCES) of a recorded request and a sent one, method and path included. */
function differences(recorded: Call, sent: Call): string[] {
  const out: string[] = [];
  if (recorded.method !== sent.method) out.push(`method: recorded ${recorded.method}, sent ${sent.method}`);
  if (recorded.path !== sent.path) out.push(`path: recorded ${recorded.path}, sent ${sent.path}`);
  callDifferences(recorded, sent, '', out);
  return out;
}

/** Whether a recorded request of the sent one's method and path answers it. */
function matches(recorded: Call, sent: Call): boolean {
  const out: string[] = [];
  pairDifferences(recorded.query, sent.query, '', out);
  if (out.length > 0) return false;
  bodyDifferences(recorded.body, sent.body, '', out);
  return out.length === 0;
}

/** How far apart two paths are: segments that differ at the same place, plus the difference in count. */
function pathDistance(a: string, b: string): number {
  const left = a.split('/');
  const right = b.split('/');
  let distance = Math.abs(left.length - right.length);
  const shared = Math.min(left.length, right.length);
  for (let i = 0; i < shared; i++) if (left[i] !== right[i]) distance++;
  return distance;
}

// ---------------------------------------------------------------------------------------------
// The index

const keyOf = (call: Call) => `${call.method} ${call.path}`;

/** How many differences a miss's message names; the rest are counted. */
const SHOWN_DIFFERENCES = 3;

/** The index of a recording's exchanges by method and path, and the matching of requests against it. */
export function createReplayIndex(entries: readonly HarEntry[]): ReplayIndex {
  const byKey = new Map<string, Recorded[]>();
  const byPath = new Map<string, Recorded[][]>();
  entries.forEach((entry, index) => {
    // An answer under 200 (a WebSocket upgrade a browser recorded) is no answer to replay.
    if (entry.response.status < 200) return;
    const call = recordedCall(entry);
    const key = keyOf(call);
    let group = byKey.get(key);
    if (!group) {
      group = [];
      byKey.set(key, group);
      const groups = byPath.get(call.path);
      if (groups) groups.push(group);
      else byPath.set(call.path, [group]);
    }
    group.push({ index, entry, call, used: false });
  });

  /** The exchange of `group` with the fewest differences from `sent` (the earliest on a tie). */
  function closest(groups: readonly Recorded[][], sent: Call): { recorded: Recorded; found: string[] } {
    let best: { recorded: Recorded; found: string[] } | undefined;
    for (const group of groups)
      for (const recorded of group) {
        const found = differences(recorded.call, sent);
        if (
          !best ||
          found.length < best.found.length ||
          (found.length === best.found.length && recorded.index < best.recorded.index)
        )
          best = { recorded, found };
      }
    return best as { recorded: Recorded; found: string[] };
  }

  /** The groups a miss is explained with (see the module's comment). */
  function nearestGroups(sent: Call): Recorded[][] {
    const same = byKey.get(keyOf(sent));
    if (same) return [same];
    const samePath = byPath.get(sent.path);
    if (samePath) return samePath;
    let best: { group: Recorded[]; distance: number; sameMethod: boolean; first: number } | undefined;
    for (const group of byKey.values()) {
      const head = group[0] as Recorded;
      const candidate = {
        group,
        distance: pathDistance(head.call.path, sent.path),
        sameMethod: head.call.method === sent.method,
        first: head.index,
      };
      if (
        !best ||
        candidate.distance < best.distance ||
        (candidate.distance === best.distance &&
          (candidate.sameMethod > best.sameMethod ||
            (candidate.sameMethod === best.sameMethod && candidate.first < best.first)))
      )
        best = candidate;
    }
    return best ? [best.group] : [];
  }

  function missMessage(sent: Call): string {
    const head = `No recorded answer for ${sent.method} ${sent.shown}.`;
    const groups = nearestGroups(sent);
    if (groups.length === 0) return `${head} The recording holds no exchange.`;
    const { recorded, found } = closest(groups, sent);
    const shown = found.slice(0, SHOWN_DIFFERENCES);
    const more = found.length - shown.length;
    const extra =
      more <= 0
        ? ''
        : found.length >= MAX_DIFFERENCES
          ? '; and more differences'
          : `; and ${more} more difference(s)`;
    return `${head} Nearest recorded: ${recorded.call.method} ${recorded.call.shown} (${shown.join('; ')}${extra})`;
  }

  return {
    match(request) {
      const sent = callOf(request.method, request.target, request.contentType, request.body, false);
      const group = byKey.get(keyOf(sent));
      let last: Recorded | undefined;
      for (const recorded of group ?? []) {
        if (!matches(recorded.call, sent)) continue;
        if (!recorded.used) {
          recorded.used = true;
          return { entry: recorded.entry, index: recorded.index };
        }
        last = recorded;
      }
      if (last) return { entry: last.entry, index: last.index };
      return { message: missMessage(sent) };
    },
    reset() {
      for (const group of byKey.values()) for (const recorded of group) recorded.used = false;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Answers

/**
 * Recorded headers that are not sent again: those of the connection (hop by hop) and of the
 * body's framing and encoding (the body is sent decoded, with its own length), and the CORS
 * headers, which the replay sets for the page asking now.
 */
const NOT_REPLAYED =
  /^(content-encoding|content-length|transfer-encoding|connection|keep-alive|proxy-connection|te|trailer|upgrade|access-control-.*)$/;

/** A recorded answer, ready to send: its status, headers and decoded body. */
interface ReadyAnswer {
  status: number;
  headers: Map<string, string[]>;
  body: Buffer | undefined;
}

/**
 * The answer of an entry. A header whose value is only `[redacted]` (a cookie, say) tells the
 * client nothing and is left out, and so is one Node refuses to send (a hand-edited file).
 */
function answerOf(entry: HarEntry): ReadyAnswer {
  const { response } = entry;
  const headers = new Map<string, string[]>();
  for (const { name, value } of response.headers) {
    const lower = name.toLowerCase();
    if (NOT_REPLAYED.test(lower) || value === REDACTED) continue;
    try {
      validateHeaderName(lower);
      validateHeaderValue(lower, value);
    } catch {
      continue;
    }
    const list = headers.get(lower);
    if (list) list.push(value);
    else headers.set(lower, [value]);
  }
  const body = harContentBody(response.content);
  if (body && body.length > 0 && !headers.has('content-type') && response.content.mimeType) {
    try {
      validateHeaderValue('content-type', response.content.mimeType);
      headers.set('content-type', [response.content.mimeType]);
    } catch {
      // A type Node cannot send: the answer goes without one.
    }
  }
  return { status: response.status, headers, body: body && body.length > 0 ? body : undefined };
}

function setHeaders(response: ServerResponse, headers: Record<string, string>): void {
  for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
}

/**
 * Sends a recorded answer over the CORS headers already set for this request. A recorded `Vary`
 * replaces the one CORS set, with `Origin` added when that one named it. No body goes with a
 * HEAD, 204 or 304.
 */
function sendAnswer(request: IncomingMessage, response: ServerResponse, answer: ReadyAnswer): void {
  const vary = response.getHeader('vary');
  response.statusCode = answer.status;
  for (const [name, values] of answer.headers)
    response.setHeader(name, values.length === 1 ? (values[0] as string) : values);
  const recordedVary = answer.headers.get('vary')?.join(', ');
  if (vary !== undefined && recordedVary !== undefined) {
    const named = recordedVary.split(',').some((name) => name.trim().toLowerCase() === 'origin');
    response.setHeader('vary', named ? recordedVary : `${recordedVary}, ${String(vary)}`);
  }
  const bodiless = answer.status === 204 || answer.status === 304;
  if (answer.body === undefined || bodiless) {
    if (!bodiless) response.setHeader('content-length', 0);
    response.end();
    return;
  }
  response.setHeader('content-length', answer.body.length);
  if (request.method === 'HEAD') response.end();
  else response.end(answer.body);
}

/** The mock's own endpoints; the replay has `POST /__mock/reset`. */
const CONTROL_PREFIX = '/__mock';

/** A replay server over a recording's entries (see the module's comment for how it matches). */
export function createReplay(options: ReplayOptions): Replay {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const index = createReplayIndex(options.entries);
  const answers = new Map<number, ReadyAnswer>();
  const answerAt = (i: number, entry: HarEntry): ReadyAnswer => {
    let answer = answers.get(i);
    if (!answer) {
      answer = answerOf(entry);
      answers.set(i, answer);
    }
    return answer;
  };
  const allowedHosts = AllowedHosts.parse(options.allowedHosts, 'allowedHosts');
  const docsDir = options.docsDir ? path.resolve(options.docsDir) : undefined;

  /**
   * Handles one request. `said.note` is what the log line says after the status, set before
   * the answer goes out (its line is written once the answer is sent).
   */
  async function handle(
    request: IncomingMessage,
    response: ServerResponse,
    said: { note?: string },
  ): Promise<void> {
    const url = targetUrl(request.url ?? '/');
    const misaddressed = hostRefusal(request, allowedHosts, '--allowed-hosts');
    if (misaddressed) throw misaddressed;
    if (url.pathname.startsWith(CONTROL_PREFIX)) {
      const refusal =
        crossOriginRefusal(request, "The mock's own endpoints") ??
        nonJsonRefusal(request, "The mock's own endpoints");
      if (refusal) throw refusal;
      if (url.pathname === '/__mock/reset' && request.method === 'POST') {
        index.reset();
        response.statusCode = 204;
        response.end();
        return;
      }
      sendJson(
        response,
        404,
        googleError(404, [
          {
            domain: 'global',
            reason: 'notFound',
            message: `Not Found: ${request.method} ${url.pathname}; the replay's own endpoint is POST /__mock/reset`,
          },
        ]),
      );
      return;
    }
    // Every other answer, the recorded ones included, carries the CORS headers of the APIs.
    setHeaders(response, corsHeaders(request));
    if (request.method === 'OPTIONS' && request.headers['access-control-request-method']) {
      setHeaders(response, preflightHeaders(request));
      response.statusCode = 204;
      response.end();
      return;
    }
    if (url.pathname === '/healthz') {
      sendJson(response, 200, { status: 'ok', replay: options.source, entries: options.entries.length });
      return;
    }
    // The body is read whole before answering, so that a keep-alive connection stays usable.
    const body = await readBody(request);
    const found = index.match({
      method: request.method ?? 'GET',
      target: request.url ?? '/',
      contentType: request.headers['content-type'],
      body,
    });
    if (found.entry) {
      said.note = `replayed entry #${found.index}`;
      sendAnswer(request, response, answerAt(found.index, found.entry));
      return;
    }
    if (docsDir && (request.method === 'GET' || request.method === 'HEAD')) {
      const file = resolveStaticFile(docsDir, url.pathname);
      if (file) {
        said.note = 'reference';
        sendStaticFile(file, response, request.method);
        return;
      }
    }
    said.note = 'unmatched';
    sendJson(
      response,
      404,
      googleError(404, [{ domain: 'global', reason: 'notFound', message: found.message }]),
    );
  }

  const server = createServer((request, response) => {
    const said: { note?: string } = {};
    if (options.verbose) {
      response.on('finish', () => {
        log(
          `${request.method} ${redactTarget(request.url ?? '/')} -> ${response.statusCode}${said.note ? ` (${said.note})` : ''}`,
        );
      });
    }
    handle(request, response, said).catch((error: unknown) => {
      if (error instanceof HttpRefusal) {
        said.note = 'refused';
        if (!response.headersSent) {
          setHeaders(response, error.headers);
          sendJson(response, error.status, error.body);
        }
        return;
      }
      said.note = 'failed';
      log(
        `mock: internal error on ${request.method} ${redactTarget(request.url ?? '/')}: ${redactText((error as Error).stack ?? String(error))}`,
      );
      if (!response.headersSent)
        sendJson(
          response,
          500,
          googleError(500, [
            { domain: 'global', reason: 'backendError', message: 'The replay failed to answer; see its log' },
          ]),
        );
      else response.destroy();
    });
  });

  return {
    server,
    entries: options.entries.length,
    listen(port, host = '127.0.0.1') {
      return listen(server, port, host);
    },
    reset() {
      index.reset();
    },
    close() {
      return new Promise((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
    },
  };
}
