/**
 * One origin for both APIs. Prism serves one document per instance and ignores a server's
 * base path; the gateway routes each request by the live base path (`/calendar/v3`,
 * `/doubleclicksearch/v2`) to the operations of that API, strips the base path, lets Prism
 * validate and mock it in-process, and answers errors in Google's envelope.
 *
 * Google's batch endpoints (`/batch/calendar/v3`, `/batch`) are served by the same code: one
 * call is a function from its method, target, headers and body to an answer, and a batch
 * hands each of its parts to that function, so a call in a batch gets what it would get alone.
 */
import './lazy-deps.js';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import path from 'node:path';
import { Writable } from 'node:stream';
import {
  AllowedHosts,
  applyFieldMask,
  type BatchCall,
  batchPath,
  CheckedMasks,
  corsHeaders,
  createPathRouter,
  crossOriginRefusal,
  curlExample,
  type FieldMask,
  FieldMaskError,
  fieldMaskErrorItem,
  HttpRefusal,
  hostRefusal,
  ifNoneMatchHits,
  isJsonContentType,
  jsonNestingRefusal,
  LANDING_HEADERS,
  type LandingInfo,
  landingHtml,
  landingJson,
  listen,
  nonJsonRefusal,
  notFoundHint,
  type PathRouter,
  preflightHeaders,
  readBatch,
  readBearer,
  readBody,
  redactTarget,
  redactText,
  requestOrigin,
  type ServedApi,
  serveFavicon,
  unsupportedMediaType,
  wantsHtml,
  writeBatch,
} from '@gspec/server-kit';
import { createLogger } from '@stoplight/prism-core';
import { createInstance, type IHttpConfig, type IHttpRequest } from '@stoplight/prism-http';
import type { IHttpOperation } from '@stoplight/types';
import type { MockApi } from './apis.js';
import { type FaultConfig, FaultInjector, type FaultStep, injectedError } from './faults.js';
import {
  AUTH_ERROR,
  type Diagnostic,
  fromFindings,
  fromPrismProblem,
  type GoogleErrorBody,
  type NameLookup,
  type PrismProblem,
  simpleError,
} from './google-errors.js';
import { sendJson } from './send-json.js';
import { resolveStaticFile, sendStaticFile } from './static.js';
import { targetUrl } from './target.js';

const PASS: FaultStep = { kind: 'pass' };

export interface GatewayOptions {
  apis: MockApi[];
  /** A folder served at `/` (the built API reference); left out, `/` lists the APIs. */
  docsDir?: string;
  /**
   * Log one line per request and per call of a batch, the credentials of its query redacted
   * (@gspec/server-kit's redact.ts), and Prism's own findings.
   */
  verbose?: boolean;
  /** Where log lines go; defaults to stderr. */
  log?: (line: string) => void;
  /** Fault rules (latency, errors, scripted answers), from `readFaultFile` or `parseFaults`. */
  faults?: FaultConfig;
  /**
   * Host names the mock answers to besides IP addresses, `localhost` and names under
   * `.localhost` (decision 0052); `*` for any. A list, or one string separated by commas.
   */
  allowedHosts?: string | readonly string[];
}

export interface Gateway {
  server: Server;
  /** Starts listening; resolves to the origin, such as `http://127.0.0.1:4010`. */
  listen(port: number, host?: string): Promise<string>;
  close(): Promise<void>;
}

/** Mock preferences: the `Prefer` header as in Prism, or `__code`/`__example` query parameters. */
export function readPreferences(
  prefer: string | undefined,
  query: URLSearchParams,
): { code?: number; exampleKey?: string; dynamic?: boolean } {
  const values: Record<string, string> = {};
  if (prefer) {
    for (const part of prefer.split(/[,;]/)) {
      const [key, ...rest] = part.split('=');
      if (key?.trim())
        values[key.trim()] = rest
          .join('=')
          .trim()
          .replace(/^"(.*)"$/, '$1');
    }
  } else {
    for (const key of ['code', 'example', 'dynamic']) {
      const value = query.get(`__${key}`);
      if (value !== null) values[key] = value;
    }
  }
  const where = prefer ? 'Prefer' : '__code';
  const out: { code?: number; exampleKey?: string; dynamic?: boolean } = {};
  if (values.code !== undefined) {
    if (!/^[1-5][0-9]{2}$/.test(values.code)) {
      throw new HttpRefusal(400, {
        domain: 'global',
        reason: 'invalid',
        message: `Invalid mock preference code=${values.code}: expected an HTTP status such as 404`,
        location: where,
        locationType: prefer ? 'header' : 'parameter',
      });
    }
    out.code = Number(values.code);
  }
  if (values.example) out.exampleKey = values.example;
  if (values.dynamic !== undefined) out.dynamic = values.dynamic === 'true';
  return out;
}

/**
 * The request's credentials as Prism checks them, and what is wrong with them for the 401
 * message. Google takes the scheme in any case (`bearer t`) and a token in the
 * `access_token` query parameter; Prism takes only `Bearer`, so those are rewritten for it.
 */
export function readCredentials(
  authorization: string | undefined,
  accessToken: string | null,
): { authorization?: string; problem?: string } {
  const credential = readBearer(authorization, accessToken);
  if (credential.problem !== undefined) return { problem: credential.problem };
  const rewritten = `Bearer ${credential.token}`;
  return { authorization: rewritten === authorization ? authorization : rewritten };
}

/**
 * The request's JSON body (every operation of both APIs takes JSON): a body with another
 * Content-Type is refused with 415 as the emulator refuses it, one that is not JSON with 400.
 * A body without Content-Type is read as JSON, alone as in a batch: third-party batchers send
 * their parts' JSON bodies without one, and Google takes them.
 */
function parseBody(raw: Buffer | string | undefined, contentType: string | undefined): unknown {
  if (raw === undefined || raw.length === 0) return undefined;
  if (contentType && !isJsonContentType(contentType)) throw unsupportedMediaType(contentType);
  const text = typeof raw === 'string' ? raw : raw.toString('utf8');
  const tooDeep = jsonNestingRefusal(text);
  if (tooDeep) throw tooDeep;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new HttpRefusal(400, {
      domain: 'global',
      reason: 'parseError',
      message: `The request body is not valid JSON: ${(error as Error).message}`,
    });
  }
}

function queryRecord(params: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const key of new Set(params.keys())) {
    // `__code` and the like are the mock's own; `access_token` is a credential, checked apart.
    if (key.startsWith('__') || key === 'access_token') continue;
    const all = params.getAll(key);
    out[key] = all.length === 1 ? (all[0] as string) : all;
  }
  return out;
}

function serialize(body: unknown, contentType: string | undefined): string | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string' && !(contentType && /json/i.test(contentType))) return body;
  return JSON.stringify(body);
}

function setCors(request: IncomingMessage, response: ServerResponse, headers = corsHeaders(request)): void {
  for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
}

/** The mock's own endpoints (`/__mock/faults`, `/__mock/reset`), and paths that look like them. */
const CONTROL_PREFIX = '/__mock';

/**
 * The root without `--docs`: what the mock is and which base URL to give a client, as a page
 * for a browser and as JSON for anything else (server-kit's front-door.ts, as the emulator's).
 */
function landing(request: IncomingMessage, response: ServerResponse, apis: readonly MockApi[]): void {
  const origin = requestOrigin(request.headers.host);
  const first = apis[0];
  const info: LandingInfo = {
    name: 'gspec mock',
    description: `A contract mock of ${apis.map((api) => api.title).join(' and ')}: it checks each request against the spec and answers with the spec's examples. Any bearer token is accepted. Start it with --docs DIR to serve the API reference here.`,
    origin,
    apis,
    links: { health: { path: '/healthz', text: 'Health: the APIs served' } },
    example: curlExample(
      `${origin}${first?.basePath ?? ''}${
        first?.operations.find((o) => o.method === 'get' && !o.path.includes('{'))?.path ?? ''
      }`,
    ),
  };
  for (const [name, value] of Object.entries(LANDING_HEADERS)) response.setHeader(name, value);
  if (wantsHtml(request.headers.accept)) {
    response.statusCode = 200;
    response.setHeader('content-type', 'text/html; charset=utf-8');
    response.end(request.method === 'HEAD' ? undefined : landingHtml(info));
    return;
  }
  sendJson(response, 200, landingJson(info));
}

/** An API as server-kit's notFoundHint takes it. */
const served = (api: MockApi, router: PathRouter<IHttpOperation>): ServedApi => ({
  name: api.name,
  title: api.title,
  basePath: api.basePath,
  router,
});

/** Every query, path and header parameter name of an API, by its lower-case spelling. */
function parameterNames(api: MockApi): NameLookup {
  const byLowerCase = new Map<string, string>();
  for (const operation of api.operations) {
    const { query = [], path: pathParams = [], headers = [] } = operation.request ?? {};
    for (const param of [...query, ...pathParams, ...headers])
      byLowerCase.set(param.name.toLowerCase(), param.name);
  }
  return (name) => byLowerCase.get(name) ?? name;
}

/** The answer to send, decided before any configured latency is waited out. */
interface Answer {
  status: number;
  headers: Record<string, string | number>;
  body?: string;
}

/**
 * One API call as the gateway answers it, whether it came as an HTTP request of its own or as
 * a part of a batch (with the outer request's headers it inherits already merged in).
 */
interface Call {
  method: string;
  /** The path and query, such as `/calendar/v3/colors?fields=kind`. */
  target: string;
  /** Names in lower case. */
  headers: IncomingHttpHeaders;
  body?: Buffer | string | undefined;
}

/** A call's answer, and the latency its fault rule adds before it is sent. */
interface CallResult {
  answer: Answer;
  delayMs: number;
}

function jsonAnswer(status: number, body: unknown, headers: Record<string, string> = {}): Answer {
  return {
    status,
    headers: { 'content-type': 'application/json; charset=UTF-8', ...headers },
    body: JSON.stringify(body),
  };
}

/** The 405 of a method the path does not take, with the methods it does in `Allow`. */
function methodNotAllowed(method: string, pathname: string, allowed: readonly string[]): Answer {
  return jsonAnswer(
    405,
    simpleError(405, 'httpMethodNotAllowed', `Method ${method.toUpperCase()} is not allowed on ${pathname}`),
    { allow: allowed.join(', ') },
  );
}

function send(response: ServerResponse, answer: Answer): void {
  response.statusCode = answer.status;
  for (const [name, value] of Object.entries(answer.headers)) response.setHeader(name, value);
  if (answer.body === undefined) {
    response.end();
    return;
  }
  response.setHeader('content-length', Buffer.byteLength(answer.body));
  response.end(answer.body);
}

/** The answer to a refusal of the HTTP layer, with the headers it carries. */
const refused = (error: HttpRefusal): Answer => jsonAnswer(error.status, error.body, error.headers);

const AUTHENTICATE = 'Bearer realm="https://accounts.google.com/", error="invalid_token"';

/** Google's envelope for a refused request, with the header a 401 carries. */
function refusal(body: GoogleErrorBody): Answer {
  return jsonAnswer(
    body.error.code,
    body,
    body.error.code === 401 ? { 'www-authenticate': AUTHENTICATE } : {},
  );
}

/** Prism's mocked output as an answer: JSON gets a charset, 204 and empty bodies none. */
function fromOutput(output: {
  statusCode: number;
  headers?: Record<string, unknown>;
  body?: unknown;
}): Answer {
  const headers: Record<string, string | number> = {};
  for (const [name, value] of Object.entries(output.headers ?? {})) {
    if (value !== undefined) headers[name.toLowerCase()] = value as string;
  }
  const contentType = headers['content-type'] as string | undefined;
  const body = output.statusCode === 204 ? undefined : serialize(output.body, contentType);
  if (body === undefined) {
    delete headers['content-type'];
    return { status: output.statusCode, headers };
  }
  if (contentType && /json/i.test(contentType) && !/charset/i.test(contentType)) {
    headers['content-type'] = `${contentType}; charset=UTF-8`;
  }
  return { status: output.statusCode, headers, body };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Turns Prism's pino log lines into plain lines on our log, so that `--verbose` output reads
 * like the rest of the mock's and goes where its log goes (stderr), not to stdout.
 */
function prismLogStream(log: (line: string) => void): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (!line) continue;
        try {
          const entry = JSON.parse(line) as { msg?: string; name?: string };
          // Prism warns that a 204 has no content for `Accept: */*`; a 204 has none by design.
          if (entry.msg?.startsWith('Unable to find content for')) continue;
          log(`  prism: ${entry.msg ?? line}`);
        } catch {
          log(`  prism: ${line}`);
        }
      }
      done();
    },
  });
}

/** The JSON schema of an operation's first success answer; undefined for 204 and text answers. */
function successSchema(operation: IHttpOperation): unknown {
  const success = operation.responses.find((r) => /^2\d\d$/.test(r.code));
  return success?.contents?.find((c) => /json/i.test(c.mediaType))?.schema;
}

/** How many masks (per operation and text) the gateway keeps parsed and checked. */
const MAX_MASKS = 256;

/**
 * Partial responses and conditional reads on Prism's answer (decision 0038). The mock keeps
 * no state: the version of a resource is the etag of the example it answers, so
 * `If-None-Match` with that etag (or `*`) is a 304 on the reads that document 304, and any
 * other tag the example itself. A `fields` mask trims a JSON success answer.
 */
function shapeAnswer(
  answer: Answer,
  operation: IHttpOperation,
  mask: FieldMask | undefined,
  ifNoneMatch: string | string[] | undefined,
): Answer {
  if (answer.status < 200 || answer.status >= 300 || answer.body === undefined) return answer;
  if (!/json/i.test(String(answer.headers['content-type'] ?? ''))) return answer;
  const body = JSON.parse(answer.body) as unknown;
  if (
    ifNoneMatch !== undefined &&
    answer.status === 200 &&
    operation.responses.some((r) => r.code === '304') &&
    typeof body === 'object' &&
    body !== null &&
    ifNoneMatchHits(ifNoneMatch, (body as { etag?: unknown }).etag)
  ) {
    const { 'content-type': _type, ...headers } = answer.headers;
    return { status: 304, headers: { ...headers, etag: String((body as { etag: string }).etag) } };
  }
  if (!mask) return answer;
  return { ...answer, body: JSON.stringify(applyFieldMask(body, mask)) };
}

export function createGateway(options: GatewayOptions): Gateway {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const logger = createLogger(
    'prism',
    { level: options.verbose ? 'warn' : 'silent' },
    options.verbose ? prismLogStream(log) : undefined,
  );
  // Prism's response validation only ever logs (errors: false), so it runs only when its
  // findings are shown; in quiet mode it would cost a schema check per request for nothing.
  const baseConfig = {
    mock: { dynamic: false },
    checkSecurity: true,
    validateRequest: true,
    validateResponse: options.verbose ?? false,
    errors: false,
    upstreamProxy: undefined,
    isProxy: false,
  } as IHttpConfig;
  const prism = createInstance(baseConfig, { logger });
  const faults = options.faults ? new FaultInjector(options.faults) : undefined;
  const routes = [...options.apis]
    .sort((a, b) => b.basePath.length - a.basePath.length)
    .map((api) => ({ api, router: createPathRouter(api.operations), names: parameterNames(api) }));
  const docsDir = options.docsDir ? path.resolve(options.docsDir) : undefined;
  const masks = new CheckedMasks(MAX_MASKS);

  /** The checked mask of a `fields` value; throws the 400 of a bad one. */
  function maskOf(operation: IHttpOperation, operationId: string, text: string): FieldMask {
    try {
      // Prism's operations come dereferenced: a reference left is not followed.
      return masks.get(`${operationId}\n${text}`, text, successSchema(operation), () => undefined);
    } catch (error) {
      if (error instanceof FieldMaskError) throw new HttpRefusal(400, fieldMaskErrorItem(error));
      throw error;
    }
  }

  type Route = (typeof routes)[number];

  /**
   * The config of one request, its `mock` part always a new object: Prism's mocker writes the
   * request's Accept header into `config.mock.mediaTypes` when that is unset, so a shared one
   * would hold the first request's Accept for every request after it (a JSON read followed by
   * the ID-mapping CSV answered 406).
   */
  function configFor(preferences: { code?: number; exampleKey?: string; dynamic?: boolean }): IHttpConfig {
    if (preferences.code === undefined && preferences.exampleKey === undefined && !preferences.dynamic)
      return { ...baseConfig, mock: { dynamic: false } } as IHttpConfig;
    return {
      ...baseConfig,
      mock: {
        dynamic: preferences.dynamic ?? false,
        ...(preferences.code !== undefined ? { code: preferences.code } : {}),
        ...(preferences.exampleKey !== undefined ? { exampleKey: preferences.exampleKey } : {}),
      },
    } as IHttpConfig;
  }

  async function answerApi(
    { api, router, names }: Route,
    call: Call,
    url: URL,
  ): Promise<{ answer: Answer; operationId?: string }> {
    const method = call.method.toLowerCase();
    const subPath = url.pathname.slice(api.basePath.length) || '/';
    const routed = router.route(method, subPath);
    if (routed.kind === 'noPath') {
      const hint = notFoundHint(url.pathname, [served(api, router)]);
      return {
        answer: jsonAnswer(
          404,
          simpleError(404, 'notFound', `Not Found: no operation at ${url.pathname}${hint}`),
        ),
      };
    }
    if (routed.kind === 'noMethod') {
      return {
        answer: methodNotAllowed(method, url.pathname, routed.allowed),
      };
    }
    const { operation } = routed;
    const operationId = operation.iid ?? operation.id;
    const asked = readPreferences(call.headers.prefer as string | undefined, url.searchParams);
    const preferences =
      asked.code === undefined && asked.exampleKey === undefined
        ? { ...faults?.respond(operationId), ...asked }
        : asked;
    const body = parseBody(call.body, call.headers['content-type']);
    const credentials = readCredentials(call.headers.authorization, url.searchParams.get('access_token'));
    // Copied only when rewritten: most requests carry `Bearer` as it is.
    const headers =
      credentials.authorization !== undefined && credentials.authorization !== call.headers.authorization
        ? { ...call.headers, authorization: credentials.authorization }
        : call.headers;
    const input: IHttpRequest = {
      method: method as IHttpRequest['method'],
      url: { path: subPath, query: queryRecord(url.searchParams) },
      headers: headers as Record<string, string>,
      ...(body !== undefined ? { body } : {}),
    };
    const operations = [operation];
    const result = await prism.request(input, operations, configFor(preferences))();
    const refused =
      result._tag === 'Left'
        ? fromPrismProblem(
            result.left as PrismProblem,
            { method: method.toUpperCase(), path: url.pathname },
            names,
          )
        : fromFindings(result.right.validations.input as Diagnostic[], names);
    if (refused?.error.code === 401 && credentials.problem) {
      return { answer: refusal(AUTH_ERROR(credentials.problem)), operationId };
    }
    if (refused) return { answer: refusal(refused), operationId };
    if (result._tag === 'Left') throw new Error('unreachable: a refused request always has an envelope');
    // Partial responses and conditional reads: nothing to do for requests with neither.
    const fields = url.searchParams.get('fields');
    const ifNoneMatch = call.headers['if-none-match'];
    let mask: FieldMask | undefined;
    if (fields?.trim()) {
      try {
        mask = maskOf(operation, operationId, fields);
      } catch (error) {
        if (error instanceof HttpRefusal) return { answer: refusal(error.body), operationId };
        throw error;
      }
    }
    const shape =
      mask || ifNoneMatch !== undefined
        ? (answer: Answer) => shapeAnswer(answer, operation, mask, ifNoneMatch)
        : (answer: Answer) => answer;

    const step = faults ? faults.next(operationId) : PASS;
    if (step.kind === 'pass') return { answer: shape(fromOutput(result.right.output)), operationId };
    if (step.kind === 'error') {
      const headers: Record<string, string> =
        step.retryAfter !== undefined ? { 'retry-after': step.retryAfter } : {};
      if (step.status === 401) headers['www-authenticate'] = AUTHENTICATE;
      return { answer: jsonAnswer(step.status, injectedError(step), headers), operationId };
    }
    // A scripted spec example: the same request again, asking Prism for that example.
    const scripted = await prism.request(input, operations, configFor(step))();
    if (scripted._tag === 'Left') {
      throw new Error(
        `the fault rule of ${operationId} asks for ${JSON.stringify(step)}, which Prism could not answer: ${(scripted.left as Error).message}`,
      );
    }
    return { answer: shape(fromOutput(scripted.right.output)), operationId };
  }

  /** The API whose base path `pathname` is under, the longest base path first. */
  function routeOf(pathname: string): Route | undefined {
    return routes.find((r) => pathname === r.api.basePath || pathname.startsWith(`${r.api.basePath}/`));
  }

  /** The APIs in the order given, for messages. */
  const servedApis = options.apis.map((api) =>
    served(api, (routes.find((r) => r.api === api) as Route).router),
  );

  /**
   * The 404 of a path under no API's base path: the base path it lacks and the base URL to
   * give a client, when an API has the path; else the base paths served.
   */
  const notServed = (pathname: string, host: string | undefined): Answer =>
    jsonAnswer(
      404,
      simpleError(
        404,
        'notFound',
        `Not Found: no operation at ${pathname}${notFoundHint(pathname, servedApis, requestOrigin(host))}`,
      ),
    );

  /**
   * One call, start to end: the answer it gets and the latency its fault rule draws. The HTTP
   * path and every part of a batch come through here, so Prism's validation, the preferences,
   * auth, partial responses, conditional reads and faults apply alike to both. A refusal of the
   * HTTP layer (a bad Prefer, a body that is no JSON) is the call's answer, not an exception.
   */
  async function answerCall(call: Call): Promise<CallResult> {
    const url = targetUrl(call.target);
    const route = routeOf(url.pathname);
    if (!route) return { answer: notServed(url.pathname, call.headers.host), delayMs: 0 };
    try {
      const { answer, operationId } = await answerApi(route, call, url);
      // Drawn right after the answer, as for a call alone, so that a seed gives the same draws.
      return { answer, delayMs: operationId && faults ? faults.latency(operationId) : 0 };
    } catch (error) {
      if (!(error instanceof HttpRefusal)) throw error;
      return { answer: refused(error), delayMs: 0 };
    }
  }

  /**
   * Sends what `decide` answers once its latency is waited out; an HttpRefusal it throws (a body
   * over the limit, a batch that is no batch) is sent as Google's envelope, without latency.
   */
  async function reply(response: ServerResponse, decide: () => Promise<CallResult>): Promise<void> {
    let result: CallResult;
    try {
      result = await decide();
    } catch (error) {
      if (!(error instanceof HttpRefusal)) throw error;
      result = { answer: refused(error), delayMs: 0 };
    }
    if (result.delayMs > 0) await sleep(result.delayMs);
    send(response, result.answer);
  }

  /** A call sent alone. Its body is read whole first, so that a keep-alive connection stays usable. */
  async function answerRequest(request: IncomingMessage): Promise<CallResult> {
    const raw = await readBody(request);
    return answerCall({
      method: request.method ?? 'GET',
      target: request.url ?? '/',
      headers: request.headers,
      body: raw,
    });
  }

  /**
   * A part whose call the batch does not carry, answered in its own part: a path of another API
   * than the batch's, of no API (`/healthz`, `/__mock/...`), or another batch. 400 badRequest as
   * the emulator answers it, not 404: the path may well exist, and a 404 in a part reads as "no
   * such resource", which a client may act on. The message says which endpoint takes the call.
   */
  function notInBatch(
    call: BatchCall,
    batchPathname: string,
    accepted: readonly string[],
  ): Answer | undefined {
    const { pathname } = targetUrl(call.target);
    const route = routeOf(pathname);
    if (route && accepted.includes(route.api.basePath)) return undefined;
    const where = `Part ${call.index}: ${call.method} ${pathname}`;
    const message = batchPath(pathname)
      ? `${where} is a batch request; a batch cannot hold another batch.`
      : `${where} cannot be sent in ${batchPathname}, which takes calls under ${accepted.join(' or ')} only${
          route ? `; send it alone, or in /batch${route.api.basePath}` : ''
        }.`;
    return jsonAnswer(400, simpleError(400, 'badRequest', message));
  }

  /**
   * A batch request (`/batch/<api>/<version>`, or `/batch` for the calls of every API): its calls
   * are answered one after the other, in order, so that fault sequences and seeded draws fall on
   * the calls as they would if the client had sent them one by one in that order. The answer
   * waits out the longest latency a part drew, not their sum, as the calls of a batch are
   * answered together. A batch that is no batch is refused whole with 400 (readBatch).
   */
  async function answerBatch(
    request: IncomingMessage,
    url: URL,
    prefix: string | undefined,
  ): Promise<CallResult> {
    // `/batch/<api>/<version>` of an API the mock does not serve is an unknown path.
    const accepted =
      prefix === undefined
        ? options.apis.map((api) => api.basePath)
        : options.apis.some((api) => api.basePath === prefix)
          ? [prefix]
          : [];
    // The body is read whole before answering, so that a keep-alive connection stays usable.
    const raw = await readBody(request);
    if (accepted.length === 0) {
      const endpoints = ['/batch', ...options.apis.map((api) => `/batch${api.basePath}`)].join(', ');
      const message = `Not Found: ${url.pathname} is no batch endpoint of the mock; those are ${endpoints}`;
      return { answer: jsonAnswer(404, simpleError(404, 'notFound', message)), delayMs: 0 };
    }
    if (request.method !== 'POST') {
      return {
        answer: methodNotAllowed(request.method ?? 'GET', url.pathname, ['POST']),
        delayMs: 0,
      };
    }
    const calls = readBatch(request.headers, raw.toString('utf8'));
    const answers: Answer[] = [];
    let delayMs = 0;
    for (const call of calls) {
      const refusedPart = notInBatch(call, url.pathname, accepted);
      const result = refusedPart ? { answer: refusedPart, delayMs: 0 } : await answerCall(call);
      if (options.verbose)
        log(`  part ${call.index}: ${call.method} ${redactTarget(call.target)} -> ${result.answer.status}`);
      answers.push(result.answer);
      delayMs = Math.max(delayMs, result.delayMs);
    }
    const batch = writeBatch(
      calls,
      answers.map((answer) => ({
        status: answer.status,
        headers: Object.fromEntries(
          Object.entries(answer.headers).map(([name, value]) => [name, String(value)]),
        ),
        ...(answer.body !== undefined ? { body: answer.body } : {}),
      })),
    );
    return {
      answer: { status: 200, headers: { 'content-type': batch.contentType }, body: batch.body },
      delayMs,
    };
  }

  function handleControl(request: IncomingMessage, response: ServerResponse, url: URL): void {
    if (url.pathname === '/__mock/faults' && request.method === 'GET') {
      sendJson(response, 200, {
        source: faults?.config.source ?? null,
        seed: faults?.config.seed ?? null,
        calls: faults?.calls() ?? {},
      });
      return;
    }
    if (url.pathname === '/__mock/reset' && request.method === 'POST') {
      faults?.reset();
      response.statusCode = 204;
      response.end();
      return;
    }
    sendJson(
      response,
      404,
      simpleError(
        404,
        'notFound',
        `Not Found: ${request.method} ${url.pathname}; the mock's own endpoints are GET /__mock/faults and POST /__mock/reset`,
      ),
    );
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = targetUrl(request.url ?? '/');
    // A Host that names no host of the mock: a page rebinding its own name to this machine.
    const misaddressed = hostRefusal(request, allowedHosts, '--allowed-hosts');
    if (misaddressed) throw misaddressed;
    // The icon a browser asks for at every page and document it opens.
    if (serveFavicon(request, response, url.pathname)) return;
    // The mock's own endpoints reset its faults: no CORS, no page of another origin, only JSON.
    if (url.pathname.startsWith(CONTROL_PREFIX)) {
      const refusal =
        crossOriginRefusal(request, "The mock's own endpoints") ??
        nonJsonRefusal(request, "The mock's own endpoints");
      if (refusal) throw refusal;
      handleControl(request, response, url);
      return;
    }
    setCors(request, response);
    if (request.method === 'OPTIONS' && request.headers['access-control-request-method']) {
      setCors(request, response, preflightHeaders(request));
      response.statusCode = 204;
      response.end();
      return;
    }
    if (url.pathname === '/healthz') {
      sendJson(response, 200, {
        status: 'ok',
        apis: options.apis.map((api) => ({ name: api.name, basePath: api.basePath })),
        faults: faults?.config.source ?? null,
      });
      return;
    }
    const batch = batchPath(url.pathname);
    if (batch) {
      await reply(response, () => answerBatch(request, url, batch.prefix));
      return;
    }
    if (routeOf(url.pathname)) {
      await reply(response, () => answerRequest(request));
      return;
    }
    if (request.method === 'GET' || request.method === 'HEAD') {
      if (docsDir) {
        const file = resolveStaticFile(docsDir, url.pathname);
        if (file) {
          sendStaticFile(file, response, request.method);
          return;
        }
      } else if (url.pathname === '/') {
        landing(request, response, options.apis);
        return;
      }
    }
    send(response, notServed(url.pathname, request.headers.host));
  }

  const allowedHosts = AllowedHosts.parse(options.allowedHosts, 'allowedHosts');
  const server = createServer((request, response) => {
    const started = performance.now();
    if (options.verbose) {
      response.on('finish', () => {
        log(
          `${request.method} ${redactTarget(request.url ?? '/')} -> ${response.statusCode} (${(performance.now() - started).toFixed(1)} ms)`,
        );
      });
    }
    handle(request, response).catch((error: unknown) => {
      if (error instanceof HttpRefusal) {
        if (!response.headersSent) {
          for (const [name, value] of Object.entries(error.headers)) response.setHeader(name, value);
          sendJson(response, error.status, error.body);
        }
        return;
      }
      log(
        `mock: internal error on ${request.method} ${redactTarget(request.url ?? '/')}: ${redactText((error as Error).stack ?? String(error))}`,
      );
      if (!response.headersSent) {
        sendJson(response, 500, simpleError(500, 'backendError', 'The mock failed to answer; see its log'));
      } else {
        response.destroy();
      }
    });
  });

  return {
    server,
    listen(port, host = '127.0.0.1') {
      return listen(server, port, host);
    },
    close() {
      return new Promise((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
    },
  };
}
