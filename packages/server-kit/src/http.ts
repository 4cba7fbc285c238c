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

/**
 * The request's body, whole; empty when it has none. Past `limit` the rest is still read, and
 * dropped, and only then is the request refused with 413: refusing in the middle of the body
 * would reset the connection under a client still sending, which would never see the answer.
 */
export function readBody(request: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    // Events rather than `for await`: the async iterator cost more than the rest of reading.
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    });
    request.once('end', () => {
      if (size > limit)
        reject(
          new HttpRefusal(413, {
            domain: 'global',
            reason: 'uploadTooLarge',
            message: `The request body is larger than ${limit} bytes`,
          }),
        );
      else resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks));
    });
    request.once('error', reject);
    // A client gone before the end of its body: nothing will be answered to anyone.
    request.once('close', () => {
      if (!request.complete) reject(new Error('the client closed the connection before the end of the body'));
    });
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
            : `The Authorization header uses the ${scheme} scheme; this API takes only an OAuth 2 access token as "Authorization: Bearer <token>".`,
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

/** The CORS headers of every answer: any page may call the local servers and read every header. */
export function corsHeaders(request: IncomingMessage): Record<string, string> {
  return {
    'access-control-allow-origin': String(request.headers.origin ?? '*'),
    'access-control-expose-headers': '*',
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
