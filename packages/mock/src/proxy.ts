/**
 * The validating proxy (`gspec-mock --proxy [URL]`, decision 0058): every request is forwarded as
 * it was sent (credentials included, never logged or kept) to the live services, or to the base
 * URL given (the emulator, a gateway), and the answer is passed back unchanged. On the way, the
 * request is checked against the specs with Prism's request validation (what the mock itself
 * refuses), and the answer with server-kit's AnswerChecker (what the contract tests hold every
 * answer to): the status is documented, the content type listed, the documented headers right,
 * the body valid and declaring nothing the spec does not (a `fields` mask lets required fields go).
 * What breaks the specs goes to the ViolationReport; the proxy never fixes an answer.
 *
 * Where requests go, live: each API's calls to the origin of its spec's server
 * (`https://www.googleapis.com` for `/calendar/v3`, `https://doubleclicksearch.googleapis.com` for
 * `/doubleclicksearch/v2`), its batch endpoint (`/batch/calendar/v3`, `/batch/doubleclicksearch/v2`,
 * and `/batch`, sent where its first call's API lives) likewise, and Google's token endpoint
 * paths (`/token`, `/revoke`, `/tokeninfo`) to `https://oauth2.googleapis.com`. With a URL, all of
 * them go to that URL's origin and path prefix. Any other path is answered 404 by the proxy
 * itself: it relays only to the APIs it checks.
 *
 * A bad upstream is the caller's to know: unreachable or refusing the connection answers 502, a
 * TLS failure 502, no answer within the timeout 504, each in Google's error envelope with the
 * cause, and reported as an `upstream` violation.
 */
import './lazy-deps.js';
import {
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type Server,
  type ServerResponse,
} from 'node:http';
import { request as httpsRequest } from 'node:https';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { parseBatchRequest, parseBatchResponse } from '@gspec/runtime/multipart';
import {
  AllowedHosts,
  AnswerChecker,
  batchPath,
  createPathRouter,
  type HarWriter,
  HttpRefusal,
  harEntry,
  hostRefusal,
  listen,
  pointerToken,
  readBody,
  redactTarget,
  redactText,
  shortJson,
} from '@gspec/server-kit';
import type { IHttpOperation } from '@stoplight/types';
import type { MockApi } from './apis.js';
import { simpleError } from './google-errors.js';
import { validateRequest } from './prism-validation.js';
import { sendJson } from './send-json.js';
import { targetUrl } from './target.js';
import type { Violation, ViolationReport } from './violations.js';

/** Google's token endpoint, where the live proxy sends `/token`, `/revoke` and `/tokeninfo`. */
export const LIVE_TOKEN_ORIGIN = 'https://oauth2.googleapis.com';
const TOKEN_PATHS = new Set(['/token', '/revoke', '/tokeninfo']);

/** How large an answer the proxy reads to check; a larger one is refused with 502. */
export const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

export interface ProxyOptions {
  apis: MockApi[];
  /** The base URL every request goes to; left out, the live hosts of the specs' servers. */
  upstream?: string;
  report: ViolationReport;
  /** Where exchanges are recorded (HAR), every credential redacted. */
  record?: HarWriter;
  /** How long to wait for the upstream's answer; 60 s by default. */
  timeoutMs?: number;
  allowedHosts?: string | readonly string[];
  verbose?: boolean;
  log?: (line: string) => void;
}

export interface ValidatingProxy {
  server: Server;
  listen(port: number, host?: string): Promise<string>;
  close(): Promise<void>;
}

/** Headers about one connection, never passed on (RFC 9110 7.6.1), and Host, which is the upstream's. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
]);

function forwardedHeaders(headers: IncomingHttpHeaders, length: number): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  const named = new Set(
    String(headers.connection ?? '')
      .split(',')
      .map((name) => name.trim().toLowerCase()),
  );
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || named.has(name)) continue;
    out[name] = value;
  }
  if (length > 0 || headers['content-length'] !== undefined) out['content-length'] = length;
  return out;
}

/** The answer's body as its Content-Encoding left it, decoded; undefined when it cannot be. */
function decoded(body: Buffer, encoding: string | undefined): Buffer | undefined {
  const coding = (encoding ?? '').trim().toLowerCase();
  try {
    if (coding === '' || coding === 'identity') return body;
    if (coding === 'gzip' || coding === 'x-gzip') return gunzipSync(body);
    if (coding === 'deflate') return inflateSync(body);
    if (coding === 'br') return brotliDecompressSync(body);
  } catch {
    return undefined;
  }
  return undefined;
}

interface UpstreamAnswer {
  status: number;
  statusText: string;
  headers: IncomingHttpHeaders;
  raw: Buffer;
}

/** What went wrong reaching the upstream, as the caller and the report see it. */
class UpstreamFailure extends Error {
  constructor(
    readonly kind: 'unreachable' | 'tls' | 'timeout' | 'reset' | 'tooLarge',
    readonly status: 502 | 504,
    message: string,
  ) {
    super(message);
  }
}

function upstreamFailure(error: NodeJS.ErrnoException, where: string, timeoutMs: number): UpstreamFailure {
  const code = error.code ?? '';
  if (error.name === 'TimeoutError' || code === 'ETIMEDOUT')
    return new UpstreamFailure('timeout', 504, `${where} did not answer within ${timeoutMs} ms`);
  if (
    /^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO|DEPTH_ZERO|SELF_SIGNED|ERR_OSSL)/.test(code) ||
    /certificate|SSL|TLS/i.test(error.message)
  )
    return new UpstreamFailure('tls', 502, `the TLS connection to ${where} failed: ${error.message}`);
  if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'UND_ERR_SOCKET')
    return new UpstreamFailure('reset', 502, `${where} closed the connection before answering (${code})`);
  return new UpstreamFailure(
    'unreachable',
    502,
    `${where} cannot be reached: ${error.message}${code ? ` (${code})` : ''}`,
  );
}

/** Sends one request upstream and reads the whole answer, as bytes, as it came. */
function send(
  url: URL,
  method: string,
  headers: OutgoingHttpHeaders,
  body: Buffer,
  timeoutMs: number,
): Promise<UpstreamAnswer> {
  const where = url.origin;
  return new Promise((resolve, reject) => {
    const signal = AbortSignal.timeout(timeoutMs);
    const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, {
      method,
      headers,
      signal,
    });
    request.on('error', (error: NodeJS.ErrnoException) =>
      reject(
        upstreamFailure(
          signal.aborted ? Object.assign(error, { name: 'TimeoutError' }) : error,
          where,
          timeoutMs,
        ),
      ),
    );
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_ANSWER_BYTES) {
          response.destroy();
          reject(
            new UpstreamFailure(
              'tooLarge',
              502,
              `${where} answered more than ${MAX_ANSWER_BYTES} bytes, more than the proxy checks`,
            ),
          );
          return;
        }
        chunks.push(chunk);
      });
      response.on('error', (error: NodeJS.ErrnoException) =>
        reject(upstreamFailure(error, where, timeoutMs)),
      );
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 502,
          statusText: response.statusMessage ?? '',
          headers: response.headers,
          raw: Buffer.concat(chunks),
        }),
      );
    });
    request.end(body);
  });
}

/** One API with what the proxy needs of it: its operations routed, its document checked against. */
interface ProxiedApi {
  api: MockApi;
  router: ReturnType<typeof createPathRouter<IHttpOperation>>;
  checker: AnswerChecker;
  /** The origin its calls go to. */
  origin: string;
}

/** A call of the APIs (alone, or a part of a batch) as the proxy checks it. */
interface CheckedCall {
  method: string;
  target: string;
  headers: Record<string, string | string[] | undefined>;
  body: string | undefined;
}

/** A call's answer as the proxy checks it. */
interface CallAnswerText {
  status: number;
  header(name: string): string | undefined;
  text: string | undefined;
}

export function createProxy(options: ProxyOptions): ValidatingProxy {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const report = options.report;
  const timeoutMs = options.timeoutMs ?? 60_000;
  const allowedHosts = AllowedHosts.parse(options.allowedHosts, 'allowedHosts');
  const base = options.upstream ? new URL(options.upstream) : undefined;
  const prefix = base ? base.pathname.replace(/\/+$/, '') : '';
  const apis: ProxiedApi[] = [...options.apis]
    .sort((a, b) => b.basePath.length - a.basePath.length)
    .map((api) => {
      if (!base && !api.server)
        throw new Error(
          `${api.name}: its spec names no server, so the proxy has no live host to send it to; give --proxy a URL`,
        );
      return {
        api,
        router: createPathRouter(api.operations),
        checker: new AnswerChecker(api.name, api.document),
        origin: base ? base.origin : new URL(api.server as string).origin,
      };
    });

  const apiOf = (pathname: string): ProxiedApi | undefined =>
    apis.find((p) => pathname === p.api.basePath || pathname.startsWith(`${p.api.basePath}/`));

  /** Where a request goes, or undefined for a path the proxy does not relay. */
  function destination(
    pathname: string,
    target: string,
    body: Buffer,
    contentType: string | undefined,
  ): URL | undefined {
    const at = (origin: string) =>
      new URL(`${origin}${prefix}${target.startsWith('/') ? target : `/${target}`}`);
    const api = apiOf(pathname);
    if (api) return at(api.origin);
    if (TOKEN_PATHS.has(pathname)) return at(base ? base.origin : LIVE_TOKEN_ORIGIN);
    const batch = batchPath(pathname);
    if (!batch) return undefined;
    if (base) return at(base.origin);
    if (batch.prefix) {
      const owner = apis.find((p) => p.api.basePath === batch.prefix);
      return owner ? at(owner.origin) : undefined;
    }
    // `/batch`: sent where its first call's API lives.
    try {
      const first = parseBatchRequest(contentType, body.toString('utf8'), { maxParts: 1 })[0];
      const owner = first ? apiOf(targetUrl(first.target).pathname) : undefined;
      return owner ? at(owner.origin) : undefined;
    } catch {
      return undefined;
    }
  }

  /** The operation of a call and what is wrong with the call, before it is sent. */
  function checkRequest(call: CheckedCall): {
    operation?: string;
    pending: Violation[];
    check?: (answer: CallAnswerText) => void;
  } {
    const url = targetUrl(call.target);
    const api = apiOf(url.pathname);
    if (!api) return { pending: [] };
    const method = call.method.toLowerCase();
    const subPath = url.pathname.slice(api.api.basePath.length) || '/';
    const routed = api.router.route(method, subPath);
    if (routed.kind !== 'operation') {
      // Preflights are the browser's, not the API's.
      if (method === 'options') return { pending: [] };
      // One row per API and method in the report, whatever the path; `got` keeps the path.
      const operation = `${call.method.toUpperCase()} ${api.api.basePath} (no operation)`;
      return {
        operation,
        pending: [
          {
            operation,
            side: 'request',
            kind: routed.kind === 'noPath' ? 'unknownPath' : 'unknownMethod',
            pointer: '',
            expected:
              routed.kind === 'noPath'
                ? `a path of ${api.api.name}`
                : `one of the methods ${routed.allowed.map((m) => m.toUpperCase()).join(', ')}`,
            got: `${call.method.toUpperCase()} ${url.pathname}`,
          },
        ],
      };
    }
    const { operation } = routed;
    const operationId = operation.iid ?? operation.id;
    const pending = validateRequest(
      operation,
      method,
      subPath,
      url.searchParams,
      call.headers,
      call.body,
    ).map((finding): Violation => ({ operation: operationId, side: 'request', ...finding }));
    const operationPointer = `/paths/${pointerToken(operation.path)}/${method}`;
    const trimmed = (url.searchParams.get('fields') ?? '').trim() !== '';
    return {
      operation: operationId,
      pending,
      check: (answer) => {
        for (const finding of api.checker.checkAnswer(operationPointer, answer, { trimmed }))
          report.add({
            operation: operationId,
            side: 'answer',
            kind: finding.kind,
            pointer: finding.pointer,
            expected: finding.expected,
            got: finding.got,
            status: answer.status,
          });
      },
    };
  }

  /** Checks one call and its answer, and settles the request's findings by what the service did. */
  function checkExchange(call: CheckedCall, answer: CallAnswerText): void {
    const { operation, pending, check } = checkRequest(call);
    if (!operation) return;
    report.exchange(operation);
    check?.(answer);
    if (pending.length === 0) return;
    // The spec and the service agree when the service refused what the spec calls invalid.
    if (answer.status >= 400 && answer.status < 500) report.refusedAsExpected(operation);
    else for (const violation of pending) report.add({ ...violation, status: answer.status });
  }

  function checkBatch(request: CheckedCall, answer: CallAnswerText): void {
    let calls: ReturnType<typeof parseBatchRequest>;
    let parts: ReturnType<typeof parseBatchResponse>;
    try {
      calls = parseBatchRequest(String(request.headers['content-type'] ?? ''), request.body ?? '');
    } catch {
      return; // Not a batch the service can read either: its answer says so.
    }
    if (answer.status !== 200) return;
    try {
      parts = parseBatchResponse(answer.header('content-type'), answer.text ?? '');
    } catch (error) {
      report.add({
        operation: `POST ${targetUrl(request.target).pathname}`,
        side: 'answer',
        kind: 'batch',
        pointer: '',
        expected: 'a multipart/mixed batch answer',
        got: shortJson(redactText((error as Error).message)),
        status: answer.status,
      });
      return;
    }
    const byId = new Map(parts.filter((p) => p.contentId).map((p) => [p.contentId as string, p]));
    calls.forEach((call, index) => {
      const part =
        (call.contentId !== undefined ? byId.get(`response-${call.contentId}`) : undefined) ?? parts[index];
      if (!part) return;
      const inherited: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers))
        if (typeof value === 'string' && !name.startsWith('content-')) inherited[name] = value;
      checkExchange(
        {
          method: call.method,
          target: call.target,
          headers: { ...inherited, ...call.headers },
          body: call.body,
        },
        {
          status: part.status,
          header: (name) => part.headers[name.toLowerCase()],
          text: part.body,
        },
      );
    });
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const misaddressed = hostRefusal(request, allowedHosts, '--allowed-hosts');
    if (misaddressed) throw misaddressed;
    const target = request.url ?? '/';
    const url = targetUrl(target);
    if (url.pathname === '/healthz') {
      sendJson(response, 200, { status: 'ok', proxy: base ? base.href : 'live', violations: report.size });
      return;
    }
    const body = await readBody(request);
    const contentType = request.headers['content-type'];
    const upstreamUrl = destination(url.pathname, target, body, contentType);
    if (!upstreamUrl) {
      sendJson(
        response,
        404,
        simpleError(
          404,
          'notFound',
          `Not Found: the proxy relays only ${apis.map((p) => p.api.basePath).join(', ')}, their batch endpoints and the token endpoint; ${url.pathname} is none of them`,
        ),
      );
      return;
    }
    const started = new Date();
    const clock = performance.now();
    let answer: UpstreamAnswer;
    try {
      answer = await send(
        upstreamUrl,
        request.method ?? 'GET',
        forwardedHeaders(request.headers, body.length),
        body,
        timeoutMs,
      );
    } catch (error) {
      if (!(error instanceof UpstreamFailure)) throw error;
      const operation =
        checkRequest({ method: request.method ?? 'GET', target, headers: request.headers, body: undefined })
          .operation ?? `${request.method} ${url.pathname}`;
      report.add({
        operation,
        side: 'upstream',
        kind: error.kind,
        pointer: '',
        expected: 'an answer',
        got: error.message,
      });
      sendJson(
        response,
        error.status,
        simpleError(error.status, 'backendError', `The proxy's upstream failed: ${error.message}`),
      );
      return;
    }
    const contentEncoding = answer.headers['content-encoding'];
    const plain = decoded(answer.raw, typeof contentEncoding === 'string' ? contentEncoding : undefined);
    const checked: CallAnswerText = {
      status: answer.status,
      header: (name) => {
        const value = answer.headers[name.toLowerCase()];
        return Array.isArray(value) ? value.join(', ') : value;
      },
      text: plain?.toString('utf8'),
    };
    const call: CheckedCall = {
      method: request.method ?? 'GET',
      target,
      headers: request.headers,
      body: body.length > 0 ? body.toString('utf8') : undefined,
    };
    try {
      if (plain === undefined)
        report.add({
          operation: checkRequest(call).operation ?? `${request.method} ${url.pathname}`,
          side: 'answer',
          kind: 'contentEncoding',
          pointer: '/headers/content-encoding',
          expected: 'gzip, deflate, br or none, readable',
          got: shortJson(contentEncoding),
          status: answer.status,
        });
      else if (batchPath(url.pathname)) checkBatch(call, checked);
      else if (apiOf(url.pathname)) checkExchange(call, checked);
    } catch (error) {
      log(
        `proxy: cannot check ${request.method} ${redactTarget(target)}: ${redactText((error as Error).message)}`,
      );
    }
    options.record?.add(
      harEntry({
        method: request.method ?? 'GET',
        url: upstreamUrl.href,
        requestHeaders: request.headers,
        requestBody: body,
        status: answer.status,
        statusText: answer.statusText,
        responseHeaders: answer.headers,
        responseBody: plain ?? answer.raw,
        started,
        timeMs: performance.now() - clock,
      }),
    );
    // The answer as it came: status, headers (but those of the connection) and the bytes.
    const headers: OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(answer.headers))
      if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
    headers['content-length'] = answer.raw.length;
    response.writeHead(answer.status, answer.statusText, headers);
    response.end(request.method === 'HEAD' ? undefined : answer.raw);
  }

  const server = createServer((request, response) => {
    const clock = performance.now();
    if (options.verbose)
      response.on('finish', () =>
        log(
          `${request.method} ${redactTarget(request.url ?? '/')} -> ${response.statusCode} (${(performance.now() - clock).toFixed(1)} ms)`,
        ),
      );
    handle(request, response).catch((error: unknown) => {
      if (error instanceof HttpRefusal) {
        if (!response.headersSent) {
          for (const [name, value] of Object.entries(error.headers)) response.setHeader(name, value);
          sendJson(response, error.status, error.body);
        }
        return;
      }
      log(
        `proxy: internal error on ${request.method} ${redactTarget(request.url ?? '/')}: ${redactText((error as Error).stack ?? String(error))}`,
      );
      if (!response.headersSent)
        sendJson(response, 500, simpleError(500, 'backendError', 'The proxy failed; see its log'));
      else response.destroy();
    });
  });

  return {
    server,
    listen: (port, host = '127.0.0.1') => listen(server, port, host),
    close: () =>
      new Promise((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
