/**
 * Who may talk to a local server (decision 0052). The mock and the emulator run on a developer's
 * machine, where every web page the browser opens can send them requests, and in shared
 * sandboxes, where anyone on the network can. Two checks keep pages of other sites out:
 *
 * - **Host.** A page on a name its author controls can make that name resolve to 127.0.0.1
 *   (DNS rebinding): the browser then takes the local server for the page's own origin and
 *   lets the page read every answer. What gives it away is the `Host` header, which still names
 *   the author's domain. A server answers only requests whose Host is an IP address, `localhost`
 *   or a name under `.localhost` (which browsers resolve to loopback themselves), or a name the
 *   user allowed (`--allowed-hosts`). An IP address cannot be rebound, so every one is taken,
 *   as Vite and webpack-dev-server take them.
 * - **Origin.** The control planes (`/__emulator`, `/__mock`) read and replace every user's
 *   data. They answer a browser only when the request comes from the server's own pages: a
 *   foreign `Origin`, or `Sec-Fetch-Site: cross-site` or `same-site` (another port of
 *   localhost is the same site), is refused, and they send no CORS header at all. A request
 *   with a body must say it is JSON, which a page cannot send to another origin without a
 *   preflight, and the preflight gets no CORS header. Programs (curl, tests, SDKs) send no
 *   Origin and are not concerned.
 */
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { HttpRefusal, isJsonContentType } from './http.js';

/** A problem of an `--allowed-hosts` entry: the message names the entry and the option. */
export class AllowedHostsError extends Error {
  override name = 'AllowedHostsError';
}

/** A host name as a Host header or an entry gives it: letters, digits, hyphens and dots. */
const HOST_NAME = /^[a-z0-9_](?:[a-z0-9_-]{0,62})(?:\.[a-z0-9_](?:[a-z0-9_-]{0,62}))*$/;

/**
 * The host of a `Host` header, lower case, without its port and without one trailing dot
 * (`LocalHost.:4011` is `localhost`); IPv6 literals keep no brackets. Undefined for a header
 * that is no host.
 */
export function hostOfHeader(header: string): string | undefined {
  const value = header.trim().toLowerCase();
  let host: string;
  let rest: string;
  if (value.startsWith('[')) {
    const close = value.indexOf(']');
    if (close < 0) return undefined;
    host = value.slice(1, close);
    rest = value.slice(close + 1);
    if (isIP(host) !== 6) return undefined;
  } else {
    const colon = value.lastIndexOf(':');
    host = colon < 0 ? value : value.slice(0, colon);
    rest = colon < 0 ? '' : value.slice(colon);
  }
  if (rest !== '' && !/^:\d{1,5}$/.test(rest)) return undefined;
  if (host.endsWith('.')) host = host.slice(0, -1);
  if (host === '' || (isIP(host) === 0 && !HOST_NAME.test(host))) return undefined;
  return host;
}

/**
 * The host names a server answers to beyond the defaults (IP addresses, `localhost`, names
 * under `.localhost`). Entries are host names (`emulator`, `calendar.test`), `.example.com`
 * for that domain and every name under it, or `*` for any Host at all, which gives up the
 * protection against DNS rebinding.
 */
export class AllowedHosts {
  private constructor(
    private readonly names: ReadonlySet<string>,
    private readonly domains: readonly string[],
    /** `*`: every Host is taken. */
    readonly any: boolean,
  ) {}

  /** The defaults only. */
  static readonly DEFAULT = new AllowedHosts(new Set(), [], false);

  /**
   * Entries from configuration: a list, or one string of entries separated by commas (the
   * command line's `--allowed-hosts a,b`). `where` names the setting in the error of a bad one.
   */
  static parse(entries: string | readonly string[] | undefined, where = '--allowed-hosts'): AllowedHosts {
    const list = (typeof entries === 'string' ? entries.split(',') : (entries ?? [])).map((entry) =>
      String(entry).trim().toLowerCase(),
    );
    const names = new Set<string>();
    const domains: string[] = [];
    let any = false;
    for (const entry of list) {
      if (entry === '') {
        if (typeof entries === 'string')
          throw new AllowedHostsError(`${where}: an entry is empty (entries are separated by commas)`);
        continue;
      }
      if (entry === '*') {
        any = true;
        continue;
      }
      if (/[/:@]/.test(entry) && isIP(entry) !== 6)
        throw new AllowedHostsError(
          `${where}: ${JSON.stringify(entry)} is not a host name; give the name alone, without scheme, port or path (for example, emulator or .example.test)`,
        );
      const domain = entry.startsWith('.');
      const name = (domain ? entry.slice(1) : entry).replace(/\.$/, '');
      if (name === '' || (isIP(name) === 0 && !HOST_NAME.test(name)))
        throw new AllowedHostsError(
          `${where}: ${JSON.stringify(entry)} is not a host name (letters, digits, hyphens and dots; .example.test for a domain and the names under it; * for any)`,
        );
      if (domain) domains.push(name);
      else names.add(name);
    }
    return new AllowedHosts(names, domains, any);
  }

  /** Whether a request whose Host header is `header` may be answered. */
  allows(header: string | undefined): boolean {
    // HTTP/1.0 requests may have no Host; browsers always send one.
    if (header === undefined) return true;
    if (this.any) return true;
    const host = hostOfHeader(header);
    if (host === undefined) return false;
    if (isIP(host) !== 0) return true;
    if (host === 'localhost' || host.endsWith('.localhost')) return true;
    if (this.names.has(host)) return true;
    return this.domains.some((domain) => host === domain || host.endsWith(`.${domain}`));
  }

  /** The entries, for the start-up lines (`localhost, IP addresses, emulator`). */
  describe(): string {
    if (this.any) return 'any host (--allowed-hosts *: no protection against DNS rebinding)';
    return ['IP addresses', 'localhost', ...this.names, ...this.domains.map((d) => `.${d}`)].join(', ');
  }
}

/**
 * The 403 of a request whose Host the server does not answer to, or undefined. `option` is how
 * the user adds a name (`--allowed-hosts`).
 */
export function hostRefusal(
  request: IncomingMessage,
  allowed: AllowedHosts,
  option = '--allowed-hosts',
): HttpRefusal | undefined {
  const header = request.headers.host;
  if (allowed.allows(header)) return undefined;
  const host = header === undefined ? undefined : hostOfHeader(header);
  return new HttpRefusal(403, {
    domain: 'global',
    reason: 'hostNotAllowed',
    message:
      host === undefined
        ? `The Host header ${JSON.stringify(header)} names no host.`
        : `This server answers requests addressed to an IP address or localhost, and the Host header names ${JSON.stringify(host)}: a page can point a name it controls at this machine (DNS rebinding), so other names are refused. To reach this server by that name, start it with ${option} ${host}.`,
    location: 'Host',
    locationType: 'header',
  });
}

/**
 * Why a browser request comes from a page of another origin than the server's own, or
 * undefined: an Origin whose host and port are not the Host's (its scheme may be https, for a
 * server behind a proxy that ends TLS), an opaque (`null`) Origin, or a Sec-Fetch-Site that is not
 * `same-origin` or `none` (typed in the address bar). A request without either comes from a
 * program, or from the server's own page (a same-origin GET sends no Origin).
 */
export function foreignOrigin(request: IncomingMessage): string | undefined {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return `Sec-Fetch-Site is ${site}`;
  const origin = request.headers.origin;
  if (origin === undefined) return undefined;
  const host = request.headers.host;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return `Origin is ${origin}`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `Origin is ${origin}`;
  // Behind a proxy that ends TLS the page is https and Host has no port: the scheme's default.
  const fallback = url.protocol === 'https:' ? '443' : '80';
  const own = host === undefined ? undefined : hostOfHeader(host);
  const ownPort = /:(\d{1,5})$/.exec(host ?? '')?.[1] ?? fallback;
  const originHost = url.hostname.replace(/^\[|\]$/g, '');
  if (own !== undefined && originHost === own && (url.port || fallback) === ownPort) return undefined;
  return `Origin is ${origin}`;
}

/**
 * The 403 of a request to a control plane from another origin's page, or undefined.
 * `plane` names it in the message (`The control plane`).
 */
export function crossOriginRefusal(request: IncomingMessage, plane: string): HttpRefusal | undefined {
  const why = foreignOrigin(request);
  if (why === undefined) return undefined;
  return new HttpRefusal(403, {
    domain: 'global',
    reason: 'crossOriginRequest',
    message: `${plane} answers programs and this server's own pages, not pages of other origins (${why}): any page the browser opens could otherwise read or reset it. Send the request from a program, without an Origin header.`,
    location: request.headers.origin === undefined ? 'Sec-Fetch-Site' : 'Origin',
    locationType: 'header',
  });
}

/**
 * The 415 of a control-plane request with a body (not empty) that does not say it is JSON, or
 * undefined:
 * a page can post a form or `text/plain` to any origin without asking first, but not JSON.
 */
export function nonJsonRefusal(request: IncomingMessage, plane: string): HttpRefusal | undefined {
  // No body, or an empty one (`fetch` sends `Content-Length: 0` with a bare POST): no type to check.
  const { 'content-length': length, 'transfer-encoding': encoding } = request.headers;
  if (encoding === undefined && (length === undefined || length === '0')) return undefined;
  const type = request.headers['content-type'] ?? '';
  if (isJsonContentType(type)) return undefined;
  return new HttpRefusal(415, {
    domain: 'global',
    reason: 'unsupportedMediaType',
    message: `${plane} takes JSON bodies sent as Content-Type: application/json, not ${
      type === '' ? 'a body without Content-Type' : type
    } (with curl: -H 'content-type: application/json')`,
    location: 'Content-Type',
    locationType: 'header',
  });
}
