/**
 * A recording forwarder for the tests of `--seed-from`: an HTTP server that sends each request
 * on to `target` as it came and answers what came back, keeping every exchange as a HAR entry
 * made by server-kit's `harEntry` (credentials redacted), as `gspec-mock --proxy --record`
 * keeps real traffic. Entries are kept in the order their answers completed.
 */
import { writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Har, type HarEntry, harEntry } from '@gspec/server-kit';

export interface Recorder {
  /** Where clients send their requests (`http://127.0.0.1:<port>`). */
  origin: string;
  entries: HarEntry[];
  /** Writes what was recorded so far as a HAR file. */
  write(file: string): void;
  close(): Promise<void>;
}

/** Headers of a hop, not of the exchange. */
const HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'host', 'accept-encoding']);

const withoutHop = (headers: IncomingHttpHeaders): IncomingHttpHeaders =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP.has(name.toLowerCase())));

export async function startRecorder(target: string): Promise<Recorder> {
  const entries: HarEntry[] = [];
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const started = new Date();
      const begin = performance.now();
      const requestBody = Buffer.concat(chunks);
      const url = new URL(incoming.url ?? '/', target);
      const method = incoming.method ?? 'GET';
      // No accept-encoding: the answer comes as it is, and HAR keeps content decoded.
      const forward = httpRequest(
        url,
        { method, headers: { ...withoutHop(incoming.headers), host: url.host } },
        (answer) => {
          const parts: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => parts.push(chunk));
          answer.on('end', () => {
            const responseBody = Buffer.concat(parts);
            entries.push(
              harEntry({
                method,
                url: url.href,
                requestHeaders: incoming.headers,
                requestBody,
                status: answer.statusCode ?? 0,
                statusText: answer.statusMessage ?? '',
                responseHeaders: answer.headers,
                responseBody,
                started,
                timeMs: performance.now() - begin,
              }),
            );
            outgoing.writeHead(answer.statusCode ?? 502, withoutHop(answer.headers));
            outgoing.end(responseBody);
          });
        },
      );
      forward.on('error', (error) => {
        outgoing.writeHead(502, { 'content-type': 'text/plain' });
        outgoing.end(error.message);
      });
      forward.end(requestBody);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    entries,
    write(file) {
      const har: Har = {
        log: { version: '1.2', creator: { name: 'gspec-emulator tests', version: '0' }, entries },
      };
      writeFileSync(file, `${JSON.stringify(har, null, 2)}\n`);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
