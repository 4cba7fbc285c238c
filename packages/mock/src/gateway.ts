/**
 * One origin for both APIs. Prism serves one document per instance and ignores a server's
 * base path; the gateway routes each request by the live base path (`/calendar/v3`,
 * `/doubleclicksearch/v2`) to the operations of that API, strips the base path, lets Prism
 * validate and mock it in-process, and answers errors in Google's envelope.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createLogger } from '@stoplight/prism-core';
import { createInstance, type IHttpConfig, type IHttpRequest } from '@stoplight/prism-http';
import type { MockApi } from './apis.js';
import {
  type Diagnostic,
  fromFindings,
  fromPrismProblem,
  type GoogleErrorBody,
  type NameLookup,
  type PrismProblem,
  simpleError,
} from './google-errors.js';
import { resolveStaticFile, sendStaticFile } from './static.js';

export interface GatewayOptions {
  apis: MockApi[];
  /** A folder served at `/` (the built API reference); left out, `/` lists the APIs. */
  docsDir?: string;
  /** Log one line per request, and Prism's own findings. */
  verbose?: boolean;
  /** Where log lines go; defaults to stderr. */
  log?: (line: string) => void;
}

export interface Gateway {
  server: Server;
  /** Starts listening; resolves to the origin, such as `http://127.0.0.1:4010`. */
  listen(port: number, host?: string): Promise<string>;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 10 * 1024 * 1024;

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: GoogleErrorBody,
  ) {
    super(body.error.message);
  }
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
      throw new HttpError(
        400,
        simpleError(
          400,
          'invalid',
          `Invalid mock preference code=${values.code}: expected an HTTP status such as 404`,
          {
            location: where,
            locationType: prefer ? 'header' : 'parameter',
          },
        ),
      );
    }
    out.code = Number(values.code);
  }
  if (values.example) out.exampleKey = values.example;
  if (values.dynamic !== undefined) out.dynamic = values.dynamic === 'true';
  return out;
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) {
      throw new HttpError(
        413,
        simpleError(413, 'uploadTooLarge', `The request body is larger than ${MAX_BODY_BYTES} bytes`),
      );
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function parseBody(raw: Buffer, contentType: string | undefined): unknown {
  if (raw.length === 0) return undefined;
  const text = raw.toString('utf8');
  if (contentType && /^application\/([\w.+-]+\+)?json\b/i.test(contentType)) {
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new HttpError(
        400,
        simpleError(400, 'parseError', `The request body is not valid JSON: ${(error as Error).message}`),
      );
    }
  }
  return text;
}

function queryRecord(params: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const key of new Set(params.keys())) {
    if (key.startsWith('__')) continue;
    const all = params.getAll(key);
    out[key] = all.length === 1 ? (all[0] as string) : all;
  }
  return out;
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.statusCode = status;
  response.setHeader('content-type', 'application/json; charset=UTF-8');
  response.setHeader('content-length', Buffer.byteLength(text));
  response.end(text);
}

function serialize(body: unknown, contentType: string | undefined): string | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string' && !(contentType && /json/i.test(contentType))) return body;
  return JSON.stringify(body);
}

function setCors(request: IncomingMessage, response: ServerResponse): void {
  response.setHeader('access-control-allow-origin', request.headers.origin ?? '*');
  response.setHeader('access-control-expose-headers', '*');
  response.setHeader('vary', 'origin');
}

function landingPage(apis: MockApi[]): string {
  const items = apis
    .map((api) => `<li><code>${api.basePath}</code> ${api.title} (${api.name})</li>`)
    .join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>gspec mock</title></head><body><h1>gspec mock</h1><ul>${items}</ul><p>Build the reference with <code>npm run build</code> and start with <code>--docs</code> to serve it here.</p></body></html>`;
}

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

export function createGateway(options: GatewayOptions): Gateway {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const logger = createLogger('prism', { level: options.verbose ? 'warn' : 'silent' });
  const prism = createInstance(
    {
      mock: { dynamic: false },
      checkSecurity: true,
      validateRequest: true,
      validateResponse: true,
      errors: false,
      upstreamProxy: undefined,
      isProxy: false,
    } as IHttpConfig,
    { logger },
  );
  const routes = [...options.apis].sort((a, b) => b.basePath.length - a.basePath.length);
  const names = new Map(options.apis.map((api) => [api, parameterNames(api)]));
  const docsDir = options.docsDir ? path.resolve(options.docsDir) : undefined;

  async function handleApi(
    api: MockApi,
    request: IncomingMessage,
    response: ServerResponse,
    url: URL,
  ): Promise<void> {
    const method = (request.method ?? 'GET').toLowerCase();
    const subPath = url.pathname.slice(api.basePath.length) || '/';
    const preferences = readPreferences(request.headers.prefer as string | undefined, url.searchParams);
    const body = parseBody(await readBody(request), request.headers['content-type']);
    const input: IHttpRequest = {
      method: method as IHttpRequest['method'],
      url: { path: subPath, query: queryRecord(url.searchParams) },
      headers: request.headers as Record<string, string>,
      ...(body !== undefined ? { body } : {}),
    };
    const config = {
      mock: {
        dynamic: preferences.dynamic ?? false,
        code: preferences.code,
        exampleKey: preferences.exampleKey,
      },
      checkSecurity: true,
      validateRequest: true,
      validateResponse: true,
      errors: false,
      upstreamProxy: undefined,
      isProxy: false,
    } as IHttpConfig;
    const result = await prism.request(input, api.operations, config)();
    const canonical = names.get(api);
    const refused =
      result._tag === 'Left'
        ? fromPrismProblem(
            result.left as PrismProblem,
            { method: method.toUpperCase(), path: url.pathname },
            canonical,
          )
        : fromFindings(result.right.validations.input as Diagnostic[], canonical);
    if (refused) {
      if (refused.error.code === 401) {
        response.setHeader(
          'www-authenticate',
          'Bearer realm="https://accounts.google.com/", error="invalid_token"',
        );
      }
      sendJson(response, refused.error.code, refused);
      return;
    }
    if (result._tag === 'Left') throw new Error('unreachable: a refused request always has an envelope');
    const { output } = result.right;
    const headers = output.headers ?? {};
    for (const [name, value] of Object.entries(headers)) {
      if (value !== undefined) response.setHeader(name, value as string);
    }
    const contentType = response.getHeader('content-type') as string | undefined;
    const text = output.statusCode === 204 ? undefined : serialize(output.body, contentType);
    response.statusCode = output.statusCode;
    if (text === undefined) {
      response.removeHeader('content-type');
      response.end();
      return;
    }
    if (contentType && /json/i.test(contentType) && !/charset/i.test(contentType)) {
      response.setHeader('content-type', `${contentType}; charset=UTF-8`);
    }
    response.setHeader('content-length', Buffer.byteLength(text));
    response.end(text);
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://localhost');
    setCors(request, response);
    if (request.method === 'OPTIONS' && request.headers['access-control-request-method']) {
      response.setHeader('access-control-allow-methods', 'GET, POST, PUT, PATCH, DELETE, OPTIONS');
      response.setHeader(
        'access-control-allow-headers',
        request.headers['access-control-request-headers'] ?? '*',
      );
      response.setHeader('access-control-max-age', '600');
      response.statusCode = 204;
      response.end();
      return;
    }
    if (url.pathname === '/healthz') {
      sendJson(response, 200, {
        status: 'ok',
        apis: options.apis.map((api) => ({ name: api.name, basePath: api.basePath })),
      });
      return;
    }
    const api = routes.find((r) => url.pathname === r.basePath || url.pathname.startsWith(`${r.basePath}/`));
    if (api) {
      await handleApi(api, request, response, url);
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
        response.setHeader('content-type', 'text/html; charset=utf-8');
        response.end(landingPage(options.apis));
        return;
      }
    }
    const known = options.apis.map((a) => a.basePath).join(' or ');
    sendJson(response, 404, simpleError(404, 'notFound', `Not Found: ${url.pathname} is not under ${known}`));
  }

  const server = createServer((request, response) => {
    const started = performance.now();
    if (options.verbose) {
      response.on('finish', () => {
        log(
          `${request.method} ${request.url} -> ${response.statusCode} (${(performance.now() - started).toFixed(1)} ms)`,
        );
      });
    }
    handle(request, response).catch((error: unknown) => {
      if (error instanceof HttpError) {
        if (!response.headersSent) sendJson(response, error.status, error.body);
        return;
      }
      log(
        `mock: internal error on ${request.method} ${request.url}: ${(error as Error).stack ?? String(error)}`,
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
      return new Promise((resolve, reject) => {
        const onError = (error: Error) => reject(error);
        server.once('error', onError);
        server.listen(port, host, () => {
          server.off('error', onError);
          const address = server.address() as AddressInfo;
          const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
          resolve(`http://${shownHost}:${address.port}`);
        });
      });
    },
    close() {
      return new Promise((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
    },
  };
}
