/**
 * `@gspec/emulator/google-auth`: sends google-auth-library's requests (and so googleapis'
 * calls, which go through the auth client) to the emulator instead of Google.
 *
 * google-auth-library posts every service account assertion to
 * `https://oauth2.googleapis.com/token` whatever the key file's `token_uri` says (decision
 * 0047), so the key file alone cannot point it at the emulator. What it does let a program
 * choose is the fetch of its transport (`transporterOptions.fetchImplementation`, taken by
 * majors 9, 10 and 11): this module's fetch sends Google's token endpoint and the two APIs'
 * hosts to the emulator's origin, path and query kept, and refuses any other Google host with
 * an error that names it, rather than trying the network.
 *
 * It imports nothing of the emulator, so a test file can import it without starting one.
 */

/** The hosts the emulator stands in for; each path is served at the same path of the emulator. */
export const EMULATED_HOSTS: readonly string[] = [
  // The token endpoint: /token, /tokeninfo, /revoke.
  'oauth2.googleapis.com',
  // Calendar API v3, under /calendar/v3; and the token endpoint's older address /oauth2/v4/token.
  'www.googleapis.com',
  // Search Ads 360 API v2, under /doubleclicksearch/v2.
  'doubleclicksearch.googleapis.com',
];

type FetchInput = string | URL | Request;

/**
 * The emulator's origin (`http://127.0.0.1:4011`) as a URL; a TypeError that says what is wrong
 * with anything else (no scheme, another scheme, a path, a query).
 */
export function emulatorOrigin(origin: string): URL {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    throw new TypeError(
      `expected the emulator's origin, such as http://127.0.0.1:4011; found ${JSON.stringify(origin)}`,
    );
  }
  if (!/^https?:$/.test(url.protocol) || url.pathname !== '/' || url.search || url.hash)
    throw new TypeError(
      `expected a bare http(s) origin, such as http://127.0.0.1:4011; found ${JSON.stringify(origin)}`,
    );
  return url;
}

/**
 * A fetch that sends requests for Google's token endpoint and the emulated APIs to the
 * emulator at `origin` (`http://127.0.0.1:4011`), and any other request to the global fetch.
 */
export function emulatorFetch(origin: string): typeof fetch {
  const target = emulatorOrigin(origin);
  const emulated = (input: FetchInput): string | undefined => {
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    if (url.protocol !== 'https:' || !url.hostname.endsWith('googleapis.com')) return undefined;
    if (!EMULATED_HOSTS.includes(url.hostname))
      throw new TypeError(
        `${url.origin} is not emulated: the emulator stands in for ${EMULATED_HOSTS.join(', ')} only`,
      );
    return `${target.origin}${url.pathname}${url.search}`;
  };
  return (async (input: FetchInput, init?: RequestInit) => {
    const url = emulated(input);
    if (url === undefined) return globalThis.fetch(input, init);
    const request = input instanceof Request ? input : undefined;
    const body = init?.body ?? undefined;
    // A streamed body (an upload) needs `duplex` with Node's fetch.
    const streamed =
      body !== undefined &&
      body !== null &&
      typeof body === 'object' &&
      !(body instanceof URLSearchParams) &&
      !ArrayBuffer.isView(body) &&
      !(body instanceof ArrayBuffer) &&
      !(body instanceof Blob) &&
      !(body instanceof FormData);
    return globalThis.fetch(request ? new Request(url, request) : url, {
      ...init,
      ...(streamed ? { duplex: 'half' } : {}),
    } as RequestInit);
  }) as typeof fetch;
}

/**
 * Transport options of a google-auth-library client that point it at the emulator: pass them
 * as `transporterOptions` to a JWT, OAuth2Client or UserRefreshClient, or in `clientOptions`
 * of GoogleAuth (which gives them to the client it makes from a key file or ADC).
 */
export function emulatorTransporterOptions(origin: string): { fetchImplementation: typeof fetch } {
  return { fetchImplementation: emulatorFetch(origin) };
}
