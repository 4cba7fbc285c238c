/**
 * Who may talk to the mock (decision 0052): a Host that is no name of the mock (a page that
 * rebinds its name to this machine) is refused everywhere; the mock's own endpoints
 * (`/__mock/...`, which reset its fault sequences) refuse pages of other origins and bodies
 * that are not JSON, and send no CORS header; the APIs answer browser apps with CORS; a body
 * over the limit is refused before it is read.
 */
import { type ExactReply, sendExact, statusBeforeTheBody } from '@gspec/scripts/raw-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway, loadApis } from '../src/index.ts';

let gateway: Gateway;
let origin: string;
let host: string;

/** A request to the mock with exactly these headers. */
const send = (method: string, path: string, headers: Record<string, string>, body?: string) =>
  sendExact(origin, method, path, headers, body);

const reasonOf = (reply: ExactReply) =>
  (JSON.parse(reply.body) as { error: { errors: { reason: string }[] } }).error.errors[0]?.reason;

beforeAll(async () => {
  gateway = createGateway({ apis: await loadApis(), allowedHosts: 'mock' });
  origin = await gateway.listen(0);
  host = new URL(origin).host;
});
afterAll(() => gateway.close());

describe('Host', () => {
  it.each([
    ['rebind.test', 403],
    ['127.0.0.1', 200],
    ['localhost', 200],
    ['mock', 200],
  ])('Host %s: %d', async (name, status) => {
    const port = new URL(origin).port;
    for (const path of ['/healthz', '/calendar/v3/colors', '/__mock/faults']) {
      const reply = await send('GET', path, { host: `${name}:${port}`, authorization: 'Bearer t' });
      expect([path, reply.status]).toEqual([path, status]);
      if (status === 403) expect(reasonOf(reply)).toBe('hostNotAllowed');
    }
  });
});

describe("the mock's own endpoints", () => {
  it.each([
    [{ origin: 'http://localhost:5173' }],
    [{ origin: 'null' }],
    [{ 'sec-fetch-site': 'cross-site' }],
    [{ 'sec-fetch-site': 'same-site' }],
  ])('refuse a page of another origin (%j) with 403 and no CORS header', async (page) => {
    for (const [method, path] of [
      ['GET', '/__mock/faults'],
      ['POST', '/__mock/reset'],
      ['OPTIONS', '/__mock/reset'],
    ] as const) {
      const reply = await send(method, path, { host, ...page });
      expect([method, path, reply.status]).toEqual([method, path, 403]);
      expect(reasonOf(reply)).toBe('crossOriginRequest');
      expect(reply.headers['access-control-allow-origin']).toBeUndefined();
    }
  });

  it('answer programs, without CORS', async () => {
    const reply = await send('GET', '/__mock/faults', { host });
    expect(reply.status).toBe(200);
    expect(reply.headers['access-control-allow-origin']).toBeUndefined();
    expect((await send('POST', '/__mock/reset', { host, 'content-length': '0' })).status).toBe(204);
  });

  it('refuse a body that is not JSON with 415', async () => {
    const reply = await send('POST', '/__mock/reset', { host, 'content-type': 'text/plain' }, 'x');
    expect(reply.status).toBe(415);
  });
});

describe('the APIs', () => {
  it('answer a browser app of any origin with CORS', async () => {
    const reply = await send('GET', '/calendar/v3/colors', {
      host,
      origin: 'http://localhost:5173',
      authorization: 'Bearer t',
    });
    expect(reply.status).toBe(200);
    expect(reply.headers['access-control-allow-origin']).toBe('http://localhost:5173');
    expect(reply.headers.vary).toBe('Origin');
  });

  it('refuse a body over 10 MB before reading it', async () => {
    const status = await statusBeforeTheBody(
      origin,
      `POST /calendar/v3/calendars HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer t\r\nContent-Type: application/json\r\nContent-Length: ${11 * 1024 * 1024}\r\n\r\n`,
    );
    expect(status).toBe('HTTP/1.1 413 Payload Too Large');
  });
});
