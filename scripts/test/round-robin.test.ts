import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RoundRobin, startRoundRobin } from '../lib/round-robin.ts';

/**
 * An upstream that answers with its name, what it was asked (method, url, Host, a custom header)
 * and the size and SHA-256 of the body it received, and sets two cookies.
 */
function upstream(name: string): http.Server {
  return http.createServer((request, response) => {
    const hash = createHash('sha256');
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      hash.update(chunk);
    });
    request.on('end', () => {
      response.setHeader('set-cookie', ['a=1', 'b=2']);
      response.writeHead(request.url?.startsWith('/teapot') ? 418 : 200, {
        'content-type': 'application/json',
      });
      response.end(
        JSON.stringify({
          name,
          method: request.method,
          url: request.url,
          host: request.headers.host,
          custom: request.headers['x-custom'],
          size,
          sha256: hash.digest('hex'),
        }),
      );
    });
  });
}

const servers = ['one', 'two', 'three'].map(upstream);
let front: RoundRobin;

beforeAll(async () => {
  const origins = await Promise.all(
    servers.map(
      (server) =>
        new Promise<string>((resolve) =>
          server.listen(0, '127.0.0.1', () =>
            resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
          ),
        ),
    ),
  );
  front = await startRoundRobin(origins);
});

afterAll(async () => {
  await front?.close();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

describe('startRoundRobin', () => {
  it('sends each request to the next upstream in turn, on one kept-alive connection too', async () => {
    const names: string[] = [];
    for (let i = 0; i < 7; i++) names.push((await (await fetch(`${front.origin}/n${i}`)).json()).name);
    expect(names).toEqual(['one', 'two', 'three', 'one', 'two', 'three', 'one']);
    expect(front.sent).toEqual([3, 2, 2]);
  });

  it('passes method, path, query, Host and headers on, and status, headers and body back', async () => {
    const reply = await fetch(`${front.origin}/teapot?q=1&q=2`, {
      method: 'DELETE',
      headers: { 'x-custom': 'kept' },
    });
    expect(reply.status).toBe(418);
    expect(reply.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    const body = await reply.json();
    expect(body).toMatchObject({
      method: 'DELETE',
      url: '/teapot?q=1&q=2',
      host: new URL(front.origin).host,
      custom: 'kept',
      size: 0,
    });
  });

  it('streams a large body through whole (chunked, no Content-Length)', async () => {
    const chunks = Array.from({ length: 64 }, (_, i) => Buffer.alloc(64 * 1024, i));
    const whole = Buffer.concat(chunks);
    const text = await new Promise<string>((resolve, reject) => {
      const request = http.request(`${front.origin}/upload`, { method: 'POST' }, (answer) => {
        let body = '';
        answer.setEncoding('utf8');
        answer.on('data', (chunk: string) => {
          body += chunk;
        });
        answer.on('end', () => resolve(body));
      });
      request.on('error', reject);
      // Written piece by piece: the request goes out chunked, as a stream would.
      const write = () => {
        const chunk = chunks.shift();
        if (chunk) request.write(chunk, write);
        else request.end();
      };
      write();
    });
    const body = JSON.parse(text);
    expect(body.size).toBe(whole.length);
    expect(body.sha256).toBe(createHash('sha256').update(whole).digest('hex'));
  });

  it('closes a connection to an upstream idle for a second, long before the upstream would', async () => {
    // An upstream that keeps idle connections 5 s (Node's default) and counts those it gets.
    let connections = 0;
    const counted = upstream('counted');
    counted.on('connection', () => {
      connections += 1;
    });
    await new Promise<void>((resolve) => counted.listen(0, '127.0.0.1', resolve));
    const alone = await startRoundRobin([`http://127.0.0.1:${(counted.address() as AddressInfo).port}`]);
    try {
      expect((await fetch(`${alone.origin}/first`)).status).toBe(200);
      expect((await fetch(`${alone.origin}/at-once`)).status).toBe(200);
      expect(connections).toBe(1);
      // Past the front's second, not the upstream's five: the next request opens a new one,
      // instead of meeting a connection the upstream may be closing at that very moment.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect((await fetch(`${alone.origin}/later`)).status).toBe(200);
      expect(connections).toBe(2);
    } finally {
      await alone.close();
      counted.closeAllConnections();
      await new Promise((resolve) => counted.close(resolve));
    }
  });

  it('answers 502 when the upstream whose turn it is cannot be reached', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const gone = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((resolve) => closed.close(resolve));
    const lonely = await startRoundRobin([gone]);
    try {
      const reply = await fetch(`${lonely.origin}/x`);
      expect(reply.status).toBe(502);
      expect(await reply.text()).toContain(gone);
    } finally {
      await lonely.close();
    }
  });
});
