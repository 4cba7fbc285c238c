/**
 * The path and query of a request, read from its request-target. The WHATWG URL parser does
 * this right for every target but costs more than the rest of routing; an origin-form target
 * of printable ASCII without dot segments, backslashes or a fragment means the same split at
 * its `?`, so only other targets go through the parser.
 *
 * The target is read before anything else of a request, credentials included, so reading it
 * never throws: a target the URL parser refuses (`//`, `//[`, `https://`: the parser takes a
 * leading `//` for a host) is split at its `?` like a usual one, and its path, which is no
 * API's, is answered 404 by routing rather than 500. Both ways take time in proportion to the
 * target (URLSearchParams included, `&` after `&` as well).
 */
export interface Target {
  /** The path, still percent-encoded (the router decodes it segment by segment). */
  pathname: string;
  /** The query parameters, parsed on first use. */
  query(): URLSearchParams;
}

/** What the URL parser would rewrite: bytes outside printable ASCII, `\`, `#`, and `.` or `%2e` after a `/`. */
const UNUSUAL = /[^\x21-\x7e]|\\|#|\/(?:\.|%2e)/i;

/** The target split at its first `?`: the path as it is, the query parsed on first use. */
function splitTarget(raw: string): Target {
  const at = raw.indexOf('?');
  const pathname = at < 0 ? raw : raw.slice(0, at);
  const search = at < 0 ? '' : raw.slice(at + 1);
  let query: URLSearchParams | undefined;
  return { pathname, query: () => (query ??= new URLSearchParams(search)) };
}

export function parseTarget(raw: string): Target {
  if (raw.startsWith('/') && !raw.startsWith('//') && !UNUSUAL.test(raw)) return splitTarget(raw);
  let url: URL;
  try {
    url = new URL(raw, 'http://emulator.invalid');
  } catch {
    return splitTarget(raw);
  }
  return { pathname: url.pathname, query: () => url.searchParams };
}
