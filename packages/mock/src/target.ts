/**
 * A request's target (path and query, as the request line gives it) as a URL. One the URL parser
 * refuses (`//[`, which it reads as a host) keeps its path as sent, which routes nowhere: a 404,
 * not a failure of the server. The gateway, the replay and the proxy read targets with it.
 */
export function targetUrl(raw: string): URL {
  try {
    return new URL(raw, 'http://localhost');
  } catch {
    const url = new URL('http://localhost/');
    const query = raw.indexOf('?');
    url.pathname = query < 0 ? raw : raw.slice(0, query);
    if (query >= 0) url.search = raw.slice(query);
    return url;
  }
}
