/**
 * The HTTP layer the mock and the emulator share, so that they answer alike before either looks
 * at an operation: the route of a request by the spec's path templates, its body (with one way
 * to refuse an oversize one that the client can read), its content type, its bearer token, the
 * CORS headers of every answer, and listening.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type GoogleErrorBody, type GoogleErrorItem, googleError } from './google-errors.js';

/** The largest request body an API call may have (Google's own limit for JSON bodies is lower). */
export const MAX_BODY_BYTES = 10 * 1024 * 1024;

/** A refusal of the HTTP layer: its status, Google's envelope and any headers to send with it. */
export class HttpRefusal extends Error {
  override name = 'HttpRefusal';
  readonly body: GoogleErrorBody;
  constructor(
    readonly status: number,
    item: GoogleErrorItem,
    readonly headers: Record<string, string> = {},
  ) {
    super(item.message);
    this.body = googleError(status, [item]);
  }
}

/** The 413 of a body over `limit` bytes. */
export const tooLarge = (limit: number): HttpRefusal =>
  new HttpRefusal(413, {
    domain: 'global',
    reason: 'uploadTooLarge',
    message: `The request body is larger than ${limit} bytes`,
  });

/**
 * The 413 of a request whose declared length (Content-Length) is over `limit`, or undefined:
 * known before a byte of the body is read.
 */
export function declaredTooLarge(request: IncomingMessage, limit: number): HttpRefusal | undefined {
  const declared = request.headers['content-length'];
  if (declared === undefined || !/^\d+$/.test(declared) || Number(declared) <= limit) return undefined;
  return tooLarge(limit);
}

/**
 * The request's body, whole; empty when it has none. A body over `limit` is refused with 413
 * as soon as it passes the limit, declared (Content-Length) or as it streams in: nothing more
 * of it is kept. The rest is still read and dropped as it arrives (Node does that once the
 * answer is sent), so that a client still sending sees the answer rather than a reset
 * connection; Node's request timeout bounds how long.
 */
export function readBody(request: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const refusal = declaredTooLarge(request, limit);
    if (refusal) {
      reject(refusal);
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    // Events rather than `for await`: the async iterator cost more than the rest of reading.
    request.on('data', (chunk: Buffer) => {
      if (over) return;
      size += chunk.length;
      if (size <= limit) {
        chunks.push(chunk);
        return;
      }
      over = true;
      chunks.length = 0;
      reject(tooLarge(limit));
    });
    request.once('end', () => {
      if (!over) resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks));
    });
    request.once('error', reject);
    // A client gone before the end of its body: nothing will be answered to anyone.
    request.once('close', () => {
      if (!request.complete) reject(new Error('the client closed the connection before the end of the body'));
    });
  });
}

/**
 * The deepest a request body may nest objects and arrays. No request of the APIs nests more
 * than a few levels, and the live services refuse a body that nests past their schemas (each
 * level beyond is an unknown field); V8 takes a hundred times longer per byte to build a deep
 * body than a flat one, so a deep one is refused before it is parsed.
 */
export const MAX_JSON_DEPTH = 100;

/**
 * Where a JSON text nests objects and arrays more than `max` deep (the offset of the opening
 * bracket too many), or undefined; one pass, strings skipped, no parse. Valid or not: the parser
 * says what else is wrong.
 */
export function jsonNestingPastLimit(text: string, max = MAX_JSON_DEPTH): number | undefined {
  // A text of fewer than max + 1 brackets cannot nest past max.
  if (text.length <= max) return undefined;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // a backslash: the next character is escaped
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > max) return i;
    } else if (c === 125 || c === 93) depth--;
  }
  return undefined;
}

/** The 400 of a body that nests past MAX_JSON_DEPTH, or undefined. */
export function jsonNestingRefusal(text: string): HttpRefusal | undefined {
  const at = jsonNestingPastLimit(text);
  if (at === undefined) return undefined;
  return new HttpRefusal(400, {
    domain: 'global',
    reason: 'parseError',
    message: `The request body is not valid JSON for this API: it nests objects and arrays more than ${MAX_JSON_DEPTH} deep (at character ${at})`,
  });
}

/** Whether a Content-Type is JSON (`application/json`, `application/merge-patch+json`...). */
export const isJsonContentType = (contentType: string): boolean =>
  /^application\/([\w.+-]+\+)?json\b/i.test(contentType);

/** The refusal of a body that is not JSON, where every operation takes JSON. */
export const unsupportedMediaType = (contentType: string): HttpRefusal =>
  new HttpRefusal(415, {
    domain: 'global',
    reason: 'unsupportedMediaType',
    message: `The request body must be application/json, not ${contentType}`,
    location: 'Content-Type',
    locationType: 'header',
  });

export const MISSING_CREDENTIAL =
  'Request is missing required authentication credential. Expected an OAuth 2 access token as "Authorization: Bearer <token>".';

/** The WWW-Authenticate header of a 401, as Google sends it. */
export const WWW_AUTHENTICATE = 'Bearer realm="https://accounts.google.com/", error="invalid_token"';

/**
 * The schemes a 401 names (RFC 9110's registry, as registered at IANA). Any other first word
 * of the header may well be a credential sent without its scheme, and is not repeated back.
 */
const KNOWN_SCHEMES = new Set([
  'basic',
  'digest',
  'dpop',
  'gnap',
  'hoba',
  'mutual',
  'negotiate',
  'ntlm',
  'oauth',
  'privatetoken',
  'scram-sha-1',
  'scram-sha-256',
  'vapid',
  'aws4-hmac-sha256',
]);

/**
 * The bearer token of a request, from `Authorization` (the scheme in any case, as Google takes
 * it) or else the `access_token` query parameter; or what is wrong with the credential.
 */
export function readBearer(
  authorization: string | undefined,
  accessToken: string | null | undefined,
): { token: string; problem?: undefined } | { token?: undefined; problem: string } {
  if (authorization !== undefined) {
    const match = /^\s*(\S+)(?:\s+(.*))?$/.exec(authorization);
    const scheme = match?.[1];
    const token = match?.[2]?.trim();
    if (!scheme)
      return { problem: 'The Authorization header is empty. Expected "Authorization: Bearer <token>".' };
    if (scheme.toLowerCase() !== 'bearer')
      return {
        problem:
          token === undefined
            ? 'The Authorization header has no scheme. Expected an OAuth 2 access token as "Authorization: Bearer <token>".'
            : `The Authorization header uses ${KNOWN_SCHEMES.has(scheme.toLowerCase()) ? `the ${scheme} scheme` : 'a scheme other than Bearer'}; this API takes only an OAuth 2 access token as "Authorization: Bearer <token>".`,
      };
    if (!token) return { problem: 'The bearer token is empty. Expected "Authorization: Bearer <token>".' };
    return { token };
  }
  if (accessToken) return { token: accessToken };
  return { problem: MISSING_CREDENTIAL };
}

/** The 401 of a missing or malformed credential. */
export const authRefusal = (problem: string): HttpRefusal =>
  new HttpRefusal(
    401,
    {
      domain: 'global',
      reason: 'authError',
      message: problem,
      location: 'Authorization',
      locationType: 'header',
    },
    { 'www-authenticate': WWW_AUTHENTICATE },
  );

/** An operation as the router needs it: its path template under the API and its method. */
export interface RoutedOperation {
  path: string;
  method: string;
}

export type RouteResult<Op> =
  | { kind: 'operation'; operation: Op; pathParams: Record<string, string> }
  | { kind: 'noPath' }
  | { kind: 'noMethod'; allowed: string[] };

export interface PathRouter<Op> {
  /** `path` is under the API's base path (`/calendars/primary/events`); `method` in any case. */
  route(method: string, path: string): RouteResult<Op>;
}

interface Route<Op> {
  /** A literal segment, or the name of the parameter a whole-segment template (`{calendarId}`) binds. */
  segments: { literal?: string; name?: string }[];
  literals: number;
  byMethod: Map<string, Op>;
}

/** A path segment percent-decoded; undefined for a malformed escape (no template matches it). */
function decodeSegment(fragment: string): string | undefined {
  if (!fragment.includes('%')) return fragment;
  try {
    return decodeURIComponent(fragment);
  } catch {
    return undefined;
  }
}

/**
 * Finds a request's operation by the spec's path templates. Segments are percent-decoded one by
 * one (`user%3Aa%40example.com` is one segment, `a%2Fb` too); an empty segment matches no
 * template (Google answers `/calendars//events` with 404); among the paths that match, the one
 * with the most literal segments wins (`/events/import` over `/events/{eventId}`). A template
 * must be a whole segment: the specs have no other kind, and one is refused here.
 */
export function createPathRouter<Op extends RoutedOperation>(operations: readonly Op[]): PathRouter<Op> {
  const byPath = new Map<string, Route<Op>>();
  for (const operation of operations) {
    let route = byPath.get(operation.path);
    if (!route) {
      const segments = operation.path
        .split('/')
        .slice(1)
        .map((fragment) => {
          const name = /^\{([^{}]+)\}$/.exec(fragment)?.[1];
          if (!name && /[{}]/.test(fragment))
            throw new Error(`${operation.path}: a path template must be a whole segment, such as {eventId}`);
          return name ? { name } : { literal: fragment };
        });
      route = {
        segments,
        literals: segments.filter((s) => s.literal !== undefined).length,
        byMethod: new Map(),
      };
      byPath.set(operation.path, route);
    }
    route.byMethod.set(operation.method.toUpperCase(), operation);
  }
  // By number of segments, each list with the most literal segments first.
  const bySize = new Map<number, Route<Op>[]>();
  for (const route of [...byPath.values()].sort((a, b) => b.literals - a.literals)) {
    const list = bySize.get(route.segments.length) ?? [];
    list.push(route);
    bySize.set(route.segments.length, list);
  }
  const matches = (route: Route<Op>, fragments: (string | undefined)[]) =>
    route.segments.every((segment, i) => {
      const fragment = fragments[i];
      if (fragment === undefined || fragment === '') return false;
      return segment.literal === undefined || segment.literal === fragment;
    });

  return {
    route(method, path) {
      const fragments = path.split('/').slice(1).map(decodeSegment);
      const verb = method.toUpperCase();
      const allowed = new Set<string>();
      for (const route of bySize.get(fragments.length) ?? []) {
        if (!matches(route, fragments)) continue;
        const operation = route.byMethod.get(verb);
        if (operation) {
          const pathParams: Record<string, string> = {};
          route.segments.forEach((segment, i) => {
            if (segment.name !== undefined) pathParams[segment.name] = fragments[i] as string;
          });
          return { kind: 'operation', operation, pathParams };
        }
        for (const other of route.byMethod.keys()) allowed.add(other);
      }
      return allowed.size > 0 ? { kind: 'noMethod', allowed: [...allowed].sort() } : { kind: 'noPath' };
    },
  };
}

/**
 * The CORS headers of an API's answers: as Google's APIs do for browser apps, any page may
 * call them and read every header (the access token, not the page's origin, says who calls).
 * The control planes send none (origins.ts).
 */
export function corsHeaders(request: IncomingMessage): Record<string, string> {
  const origin = request.headers.origin;
  return {
    'access-control-allow-origin': String(origin ?? '*'),
    'access-control-expose-headers': '*',
    // The answer depends on the Origin: a cache must not give one page's answer to another.
    ...(origin !== undefined ? { vary: 'Origin' } : {}),
  };
}

/** The answer to a CORS preflight (OPTIONS): every method the APIs have, the headers asked for. */
export function preflightHeaders(request: IncomingMessage): Record<string, string> {
  return {
    ...corsHeaders(request),
    'access-control-allow-methods': 'GET, POST, PUT, PATCH, DELETE',
    'access-control-allow-headers': String(request.headers['access-control-request-headers'] ?? '*'),
    'access-control-max-age': '600',
  };
}

/** Listens on `host:port` (0: any free port) and resolves to the origin, such as `http://127.0.0.1:4010`. */
export function listen(server: Server, port: number, host = '127.0.0.1'): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address() as AddressInfo;
      const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      resolve(`http://${shown}:${address.port}`);
    });
  });
}
