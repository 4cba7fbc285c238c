/// <reference types="node" />
/**
 * `nodeFetch`: the transport of the resource methods over `node:http` and `node:https`,
 * for Node programs that should start fast.
 *
 * Node's global fetch is undici, which Node loads on first use (of `fetch`, `Headers`,
 * `Request` or `Response`): about 90 ms of a short program's start on the machine of
 * docs/benchmarks.md, more than the whole of `node -e 0`. This function uses the HTTP
 * client that Node has loaded anyway and answers with a small object of its own, so a
 * command-line tool or a serverless function that makes a few calls starts about as fast
 * as Node itself.
 *
 * It is fetch restricted to what the resource methods use (`FetchResponse` in call.ts):
 * a URL; `method`, `headers` (a record), a string or bytes `body` and `signal` of the init;
 * `status`, `statusText`, `ok`, `url`, `headers.get`/`has`, `text()` and `json()` of the
 * answer. As with fetch: it resolves when the answer's headers
 * have arrived; an `AbortSignal` aborts the request or the reading of the body and rejects
 * with the signal's reason; a network failure rejects with `TypeError('fetch failed', {
 * cause })`; a compressed answer (when you ask for one with `Accept-Encoding`) is
 * decompressed. Unlike fetch it does not follow redirects (a 3xx is the answer; Google's
 * APIs do not redirect) and returns no `Response` object: openapi-fetch's raw methods
 * create `Request` objects, which load undici anyway, so give them the global fetch.
 *
 * An entry of its own (`@gspec/runtime/node`) that the default entry never imports:
 * browser and edge bundles never see a `node:` module.
 */
import { request as httpRequest } from 'node:http';

/** The part of `RequestInit` that `nodeFetch` takes. */
export interface NodeFetchInit {
  method?: string;
  /** Sent as given; node:http adds `Host`, `Connection` and, with a body, `Content-Length`. */
  headers?: Record<string, string>;
  body?: string | Uint8Array | null;
  signal?: AbortSignal | null;
}

/** The part of `Response` that `nodeFetch` answers with. */
export interface NodeFetchResponse {
  readonly status: number;
  readonly statusText: string;
  readonly ok: boolean;
  readonly url: string;
  readonly headers: {
    /** The value, several values joined with `, `; null when absent. */
    get(name: string): string | null;
    has(name: string): boolean;
  };
  /**
   * The body as UTF-8 text (a byte order mark dropped, bad bytes replaced), decompressed.
   * Read once and kept: calling it again gives the same text (fetch would throw).
   */
  text(): Promise<string>;
  json(): Promise<unknown>;
}

/** A fetch over `node:http` / `node:https` for the resource methods; see the top of this file. */
export function nodeFetch(url: string | URL, init: NodeFetchInit = {}): Promise<NodeFetchResponse> {
  return new Promise((resolve, reject) => {
    const { signal } = init;
    const target = new URL(url);
    // node:https (and with it TLS) is loaded on the first https URL, not by every program.
    const send =
      target.protocol === 'http:'
        ? httpRequest
        : target.protocol === 'https:' && process.getBuiltinModule('node:https').request;
    if (!send) throw new TypeError(`nodeFetch: ${target.protocol} URLs are not supported`);
    // node:http aborts the request, and the answer while it is read, when the signal aborts;
    // fetch rejects with the signal's reason then, and with `TypeError('fetch failed')` else.
    const failure = (error: unknown) =>
      signal?.aborted ? signal.reason : new TypeError('fetch failed', { cause: error });
    // With the body given to end(), node:http sends its Content-Length. No method is GET.
    send(target, { method: init.method, headers: init.headers, signal: signal ?? undefined })
      .once('error', (error) => reject(failure(error)))
      .once('response', (answer) => {
        const status = answer.statusCode as number;
        const raw = answer.headersDistinct as Record<string, string[]>;
        const get = (name: string) => raw[name.toLowerCase()]?.join(', ') ?? null;
        let read: Promise<string> | undefined;
        const text = () =>
          (read ??= (async () => {
            const chunks: Buffer[] = [];
            try {
              for await (const chunk of answer) chunks.push(chunk);
            } catch (error) {
              throw failure(error);
            }
            let bytes = Buffer.concat(chunks);
            const encoding = get('content-encoding');
            // Only when asked for with Accept-Encoding; unzip reads gzip and deflate.
            if (encoding && encoding !== 'identity' && bytes.length) {
              bytes = process
                .getBuiltinModule('node:zlib')
                [encoding === 'br' ? 'brotliDecompressSync' : 'unzipSync'](bytes);
            }
            return new TextDecoder().decode(bytes);
          })());
        resolve({
          status,
          statusText: answer.statusMessage as string,
          ok: status > 199 && status < 300,
          url: target.href,
          headers: { get, has: (name) => get(name) !== null },
          text,
          json: async () => JSON.parse(await text()),
        });
      })
      .end(init.body);
  });
}
