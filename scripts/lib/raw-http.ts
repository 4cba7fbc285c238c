/**
 * HTTP requests exactly as a test writes them, for the tests of what a server does before it
 * trusts a request (decision 0052): `sendExact` sends these headers and no others (fetch would
 * add its own Origin, Sec-Fetch-* and Host), and `statusBeforeTheBody` writes raw bytes, a head
 * that declares a body it never sends, and reads the status line of the answer.
 */
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';

export interface ExactReply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A request to `origin` with exactly `headers` (a `host` among them replaces the real one). */
export function sendExact(
  origin: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<ExactReply> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      { host: hostname, port, method, path, headers, setHost: headers.host === undefined },
      (incoming) => {
        let text = '';
        incoming.setEncoding('utf8');
        incoming.on('data', (chunk: string) => {
          text += chunk;
        });
        incoming.on('end', () =>
          resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, body: text }),
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/**
 * Writes `bytes` (a request's head, and maybe part of its body, never its end) to `origin` and
 * resolves to the status line of the answer (`HTTP/1.1 413 Payload Too Large`). A server that
 * waits for the rest of the body never answers: the promise is rejected after `patienceMs`, a
 * generous deadline (a loaded machine is slow, not broken), rather than hang the test.
 */
export function statusBeforeTheBody(origin: string, bytes: string, patienceMs = 60_000): Promise<string> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let text = '';
    const deadline = setTimeout(() => {
      socket.destroy();
      reject(new Error('no answer before the end of the body: the server waits to read all of it'));
    }, patienceMs);
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
      if (!text.includes('\r\n')) return;
      clearTimeout(deadline);
      socket.destroy();
      resolve(text.slice(0, text.indexOf('\r\n')));
    });
    socket.on('error', () => {});
    socket.write(bytes);
  });
}
