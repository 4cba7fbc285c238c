/**
 * A round-robin front for the tests: a small HTTP proxy on 127.0.0.1 that sends each request to
 * the next of its upstream origins in turn (1, 2, 3, 1, 2, ...), whatever connection it came on.
 * Several emulators on one shared store (`--store postgres://…`) behind it look like one server
 * to a client, and every request may land on another process.
 *
 * - The request goes on as it came: method, path and query, headers (the `Host` the client sent
 *   is kept, so that the upstream builds its links with this front's origin, as behind a real
 *   load balancer), the body streamed through. Hop-by-hop headers (`Connection`, `Keep-Alive`,
 *   `Transfer-Encoding`, ...) are the connection's and are not passed on; Node frames each
 *   side's body itself.
 * - The answer comes back as the upstream gave it: status, headers (repeated ones such as
 *   `Set-Cookie` kept as they were), body streamed.
 * - An upstream that cannot be reached is answered 502 with a line saying which; a client that
 *   goes away ends the upstream request.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Headers that belong to one connection (RFC 9110 7.6.1), never forwarded. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

export interface RoundRobinOptions {
  /** The port to listen on (default 0: a free one). */
  port?: number;
  /** The interface to listen on (default 127.0.0.1). */
  host?: string;
}

export interface RoundRobin {
  /** `http://127.0.0.1:PORT`: where the clients send their requests. */
  readonly origin: string;
  /** The upstream origins, in the order they take turns. */
  readonly upstreams: readonly string[];
  /** How many requests each upstream was sent so far (same order as `upstreams`). */
  readonly sent: readonly number[];
  /** Stops listening, drops the open connections (both sides) and resolves once closed. */
  close(): Promise<void>;
}

/** The raw header list without the hop-by-hop ones (and those `Connection` names). */
function forwardable(raw: string[]): string[] {
  const named = new Set(HOP_BY_HOP);
  for (let i = 0; i < raw.length; i += 2) {
    if ((raw[i] as string).toLowerCase() === 'connection')
      for (const token of (raw[i + 1] as string).split(',')) named.add(token.trim().toLowerCase());
  }
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    if (!named.has((raw[i] as string).toLowerCase())) out.push(raw[i] as string, raw[i + 1] as string);
  }
  return out;
}

/** Starts the front; resolves once it listens. */
export async function startRoundRobin(
  upstreamOrigins: readonly string[],
  options: RoundRobinOptions = {},
): Promise<RoundRobin> {
  if (upstreamOrigins.length === 0) throw new Error('startRoundRobin: no upstream origin');
  const upstreams = upstreamOrigins.map((origin) => {
    const url = new URL(origin);
    if (url.protocol !== 'http:' || (url.pathname !== '/' && url.pathname !== '') || url.search)
      throw new Error(`startRoundRobin: ${origin} is not an http:// origin`);
    return url;
  });
  // An idle connection to an upstream is closed here after 1 s, well before the upstream closes
  // it (Node's servers after 5 s; the agent's own default, 1 s before the server's hint, left a
  // request on a busy machine to meet a connection the upstream was closing: "socket hang up").
  const agent = new http.Agent({ keepAlive: true, timeout: 1000 });
  const sent = upstreams.map(() => 0);
  let next = 0;

  const forward = (request: IncomingMessage, response: ServerResponse) => {
    const index = next;
    next = (next + 1) % upstreams.length;
    sent[index] = (sent[index] ?? 0) + 1;
    const upstream = upstreams[index] as URL;
    const outgoing = http.request({
      agent,
      host: upstream.hostname,
      port: upstream.port,
      method: request.method,
      path: request.url,
      headers: forwardable(request.rawHeaders),
      // A raw header list keeps the client's Host and repeated headers as they were.
      setHost: false,
    });
    outgoing.on('response', (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.statusMessage, forwardable(answer.rawHeaders));
      answer.pipe(response);
      answer.on('error', () => response.destroy());
    });
    outgoing.on('error', (error) => {
      if (response.headersSent) {
        response.destroy();
        return;
      }
      const text = `round-robin: upstream ${upstream.origin} failed: ${error.message}\n`;
      response.writeHead(502, { 'content-type': 'text/plain; charset=utf-8' });
      response.end(text);
    });
    // The client went away before the answer was sent whole: the upstream request ends too.
    response.on('close', () => {
      if (!response.writableFinished) outgoing.destroy();
    });
    request.pipe(outgoing);
  };

  const server = http.createServer(forward);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    origin: `http://${host}:${address.port}`,
    upstreams: upstreams.map((url) => url.origin),
    sent,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      agent.destroy();
      await closed;
    },
  };
}
