/**
 * Request URLs of the resource methods. They encode parameters exactly as openapi-fetch's
 * defaults do for every shape the specs use, so a resource method and the raw client send
 * the same URL (test/url.test.ts compares them), but without importing openapi-fetch: a
 * program that uses only resource methods does not bundle it.
 *
 * - path parameters: `simple` style, `encodeURIComponent` of the value;
 * - query parameters: `form` style, arrays exploded (`a=1&a=2`), empty arrays left out,
 *   objects as `deepObject` (`a[b]=1`), `undefined` and `null` left out; names as given.
 */

const pair = (name: string, value: unknown) => `${name}=${encodeURIComponent(value as string)}`;

/** The query string, without `?`; `''` when nothing is sent. */
export function serializeQuery(query: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const name in query) {
    const value = query[name];
    if (value == null) continue;
    if (Array.isArray(value)) for (const item of value) parts.push(pair(name, item));
    else if (typeof value === 'object') {
      for (const key in value) parts.push(pair(`${name}[${key}]`, (value as Record<string, unknown>)[key]));
    } else parts.push(pair(name, value));
  }
  return parts.join('&');
}

/**
 * `baseUrl` + the path template filled in + the query string. A path parameter that is
 * missing, null or empty is a TypeError: the request would go to another resource.
 */
export function buildUrl(
  operationId: string,
  baseUrl: string,
  template: string,
  path: Record<string, unknown>,
  search: string,
): string {
  const filled = template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = path[name];
    if (value == null || value === '') {
      throw new TypeError(`${operationId}: the path parameter "${name}" is required`);
    }
    return encodeURIComponent(value as string);
  });
  return `${baseUrl}${filled}${search ? `?${search}` : ''}`;
}
