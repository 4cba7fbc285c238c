/**
 * What a person meets first at a gspec server: its root (`/`), a page for a browser and a JSON
 * document for anything else, saying which base URL to give a client; and the 404 of a path no
 * API has, which says when the path is an API's own without its base path (a client given
 * `http://127.0.0.1:4011` instead of `http://127.0.0.1:4011/calendar/v3`).
 */
import type { PathRouter, RoutedOperation } from './http.js';

/** An API as a server serves it: its names, its base path (`/calendar/v3`) and its router. */
export interface ServedApi {
  /** Its short name: `calendar`. */
  name: string;
  /** Its title: `Google Calendar API v3`. */
  title: string;
  basePath: string;
  router: PathRouter<RoutedOperation>;
}

/** How many leading segments of a path may stand where the base path should (`/v3/...`). */
const MAX_DROPPED_SEGMENTS = 2;

/** The batch endpoints of `apis`: each one's, then `/batch` for them all. */
export const batchEndpoints = (apis: readonly Pick<ServedApi, 'basePath'>[]): string[] => [
  ...apis.map((api) => `/batch${api.basePath}`),
  '/batch',
];

const list = (items: readonly string[]) =>
  items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;

/**
 * Where `pathname`, which no API here has, belongs: an API's path without its base path (or
 * with a wrong one in its place: `/calendar/users/me/calendarList`), as `{ api, path }` with
 * the path it would be. Undefined when no API has it.
 */
export function pathUnderApi(
  pathname: string,
  apis: readonly ServedApi[],
): { api: ServedApi; path: string } | undefined {
  const segments = pathname.split('/').slice(1);
  for (let dropped = 0; dropped <= MAX_DROPPED_SEGMENTS && dropped < segments.length; dropped++) {
    const rest = `/${segments.slice(dropped).join('/')}`;
    if (rest === '/') break;
    for (const api of apis) {
      // Any method: a path that takes another one is still the API's.
      if (api.router.route('GET', rest).kind !== 'noPath') return { api, path: `${api.basePath}${rest}` };
    }
  }
  return undefined;
}

/**
 * What to add to `Not Found: no operation at <pathname>` (a sentence starting with `; `), for a
 * path no API of `apis` has: the base path it lacks and the base URL to give a client, with
 * `origin` (`http://127.0.0.1:4011`) when known; the batch endpoints, for a path that looks
 * like a batch; else the base paths served. Bounded work: a few routings per API.
 */
export function notFoundHint(pathname: string, apis: readonly ServedApi[], origin?: string): string {
  const underBase = apis.find((api) => pathname.startsWith(`${api.basePath}/`));
  if (underBase) {
    // `/calendar/v3/batch`: a batch of the API, sent where its calls go.
    if (pathname === `${underBase.basePath}/batch`)
      return `; a batch of the ${underBase.title} is sent to /batch${underBase.basePath}`;
    return '';
  }
  if (pathname === '/batch' || pathname.startsWith('/batch/'))
    return `; the batch endpoints are ${list(batchEndpoints(apis))}`;
  const found = pathUnderApi(pathname, apis);
  if (found) {
    const base = origin
      ? `the base URL ${origin}${found.api.basePath}`
      : `a base URL ending in ${found.api.basePath}`;
    return `; ${found.path} is an operation's path of the ${found.api.title}: give the client ${base}`;
  }
  return `; the APIs here are under ${list(apis.map((api) => api.basePath))}`;
}

/**
 * The root's example call: curl with a bearer token, `any-token` (which a server that takes any
 * token accepts) unless told otherwise; a shell variable (`$TOKEN`) is quoted for the shell to
 * expand it.
 */
export function curlExample(url: string, bearer = 'any-token'): string {
  const header = `Authorization: Bearer ${bearer}`;
  return `curl -H ${bearer.startsWith('$') ? `"${header}"` : `'${header}'`} ${url}`;
}

/** The origin a request reached, from its (already checked) Host header: `http://127.0.0.1:4011`. */
export const requestOrigin = (host: string | undefined): string => `http://${host ?? '127.0.0.1'}`;

/** What a server's root tells: its name, what it is, its APIs, its links and an example call. */
export interface LandingInfo {
  /** `gspec emulator`. */
  name: string;
  /** One or two sentences: what this server is. */
  description: string;
  /** The origin the request reached (requestOrigin). */
  origin: string;
  apis: readonly Pick<ServedApi, 'name' | 'title' | 'basePath'>[];
  /** Links to the server's own pages, by name: `{ inspector: { path, text } }`. */
  links: Record<string, { path: string; text: string }>;
  /** One command line that calls an API here (with the origin in it). */
  example: string;
}

/** The root's headers: nothing but the page's own icon may load; no framing, no referrer. */
export const LANDING_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy':
    "default-src 'none'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-cache',
  vary: 'Accept',
};

/** Whether a request's Accept asks for a page (a browser's does: `text/html,...`). */
export const wantsHtml = (accept: string | string[] | undefined): boolean =>
  /(^|[,\s])text\/html($|[;,\s])/i.test(String(accept ?? ''));

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The root as JSON: the same facts as the page. */
export function landingJson(info: LandingInfo): Record<string, unknown> {
  return {
    name: info.name,
    description: info.description,
    apis: info.apis.map((api) => ({
      name: api.name,
      title: api.title,
      basePath: api.basePath,
      baseUrl: `${info.origin}${api.basePath}`,
      batch: `${info.origin}/batch${api.basePath}`,
    })),
    links: Object.fromEntries(
      Object.entries(info.links).map(([name, link]) => [name, `${info.origin}${link.path}`]),
    ),
    example: info.example,
  };
}

/** The root as a page for a browser: no script, no style, the icon its only resource. */
export function landingHtml(info: LandingInfo): string {
  const apis = info.apis
    .map(
      (api) =>
        `<li>${escapeHtml(api.title)}: <code>${escapeHtml(`${info.origin}${api.basePath}`)}</code> (batches: <code>${escapeHtml(`/batch${api.basePath}`)}</code>)</li>`,
    )
    .join('\n');
  const links = Object.values(info.links)
    .map((link) => `<li><a href="${escapeHtml(link.path)}">${escapeHtml(link.text)}</a></li>`)
    .join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${escapeHtml(info.name)}</title>
<link rel="icon" type="image/svg+xml" href="/favicon.svg">
</head>
<body>
<h1>${escapeHtml(info.name)}</h1>
<p>${escapeHtml(info.description)}</p>
<h2>Base URLs</h2>
<p>Give a client the base URL of its API; every path of the API is under it.</p>
<ul>
${apis}
</ul>
<h2>Try it</h2>
<pre><code>${escapeHtml(info.example)}</code></pre>
${links ? `<h2>Pages</h2>\n<ul>\n${links}\n</ul>\n` : ''}</body>
</html>
`;
}
