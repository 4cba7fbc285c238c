/**
 * Who may talk to the emulator (decision 0052), over raw HTTP so that every header is the one
 * written here: a Host that is no name of the emulator (DNS rebinding) is refused everywhere;
 * the control plane refuses pages of other origins, bodies that are not JSON and sends no CORS
 * header, while the APIs keep answering browser apps with CORS; a request the control plane
 * refuses, or a body over its path's limit, is answered before its body is read. Chromium
 * plays the pages themselves in origins.browser.test.ts.
 */
import { type ExactReply, sendExact as exact, statusBeforeTheBody } from '@gspec/scripts/raw-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../src/core/server.ts';
import { createEmulator } from '../src/emulator.ts';

const ANA = 'ana@example.com';
const ADMIN = 'origins-admin-credential-0123456789';

const errorOf = (reply: ExactReply) =>
  (JSON.parse(reply.body) as { error: { errors: { reason: string; message: string }[] } }).error.errors[0];

describe('on a laptop: loopback, no admin credential', () => {
  let emulator: Emulator;
  let origin: string;
  let host: string;
  beforeAll(async () => {
    emulator = createEmulator();
    origin = await emulator.listen(0);
    host = new URL(origin).host;
  });
  afterAll(() => emulator.close());

  it.each([
    ['GET', '/__emulator/state'],
    ['GET', '/__emulator/journal'],
    ['POST', '/__emulator/reset'],
    ['GET', '/calendar/v3/users/me/calendarList'],
    ['GET', '/__emulator/ui/'],
    ['GET', '/__emulator/health'],
  ])('a rebound name (Host: rebind.test) is refused everywhere: %s %s', async (method, path) => {
    const port = new URL(origin).port;
    const reply = await exact(origin, method, path, {
      host: `rebind.test:${port}`,
      authorization: `Bearer ${ANA}`,
    });
    expect(reply.status).toBe(403);
    expect(errorOf(reply)).toMatchObject({ reason: 'hostNotAllowed' });
    expect(errorOf(reply)?.message).toMatch(/--allowed-hosts rebind\.test/);
  });

  it.each([['127.0.0.1'], ['localhost'], ['app.localhost']])('answers Host %s at its port', async (name) => {
    const port = new URL(origin).port;
    const reply = await exact(origin, 'GET', '/__emulator/health', { host: `${name}:${port}` });
    expect(reply.status).toBe(200);
  });

  it.each([
    ['another localhost port', { origin: 'http://localhost:5173' }],
    ['another site', { origin: 'https://attacker.example' }],
    ['an opaque origin (sandboxed frame, file:)', { origin: 'null' }],
    ['Sec-Fetch-Site: cross-site', { 'sec-fetch-site': 'cross-site' }],
    ['Sec-Fetch-Site: same-site (another port)', { 'sec-fetch-site': 'same-site' }],
  ])('the control plane refuses a page of %s with 403, without CORS', async (_, page) => {
    const before = emulator.store.state.revision;
    for (const [method, path] of [
      ['GET', '/__emulator/state'],
      ['GET', '/__emulator/journal'],
      ['POST', '/__emulator/reset'],
      ['GET', '/__emulator/stream'],
      ['DELETE', '/__emulator/ui/session'],
    ] as const) {
      const reply = await exact(origin, method, path, { host, ...page });
      expect([method, path, reply.status]).toEqual([method, path, 403]);
      expect(errorOf(reply)).toMatchObject({ reason: 'crossOriginRequest' });
      expect(reply.headers['access-control-allow-origin']).toBeUndefined();
    }
    expect(emulator.store.state.revision).toBe(before);
  });

  it('answers its own page (Origin of its own origin) and programs (no Origin), with no CORS header', async () => {
    const asked: Record<string, string>[] = [{ host }, { host, origin, 'sec-fetch-site': 'same-origin' }];
    for (const headers of asked) {
      const reply = await exact(origin, 'GET', '/__emulator/quota', headers);
      expect(reply.status).toBe(200);
      expect(reply.headers['access-control-allow-origin']).toBeUndefined();
    }
  });

  it('reads the control plane path as the answer does: an absolute-form target is refused alike', async () => {
    const reply = await exact(origin, 'GET', `${origin}/__emulator/state`, {
      host,
      origin: 'http://localhost:5173',
    });
    expect(reply.status).toBe(403);
    expect(errorOf(reply)).toMatchObject({ reason: 'crossOriginRequest' });
    expect(reply.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('answers no preflight for the control plane', async () => {
    const reply = await exact(origin, 'OPTIONS', '/__emulator/seed', {
      host,
      origin: 'http://localhost:5173',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type',
    });
    expect(reply.status).toBe(403);
    expect(reply.headers['access-control-allow-origin']).toBeUndefined();
    expect(reply.headers['access-control-allow-methods']).toBeUndefined();
  });

  it.each([
    ['text/plain', 'a form post of another site, which needs no preflight'],
    ['application/x-www-form-urlencoded', 'curl -d without -H'],
    ['multipart/form-data; boundary=x', 'an HTML form'],
  ])('the control plane takes JSON only: %s (%s) is 415 and loads nothing', async (type) => {
    const seed = JSON.stringify({ users: [{ email: 'mallory@example.com', tokens: ['token-mallory'] }] });
    const reply = await exact(origin, 'POST', '/__emulator/seed', { host, 'content-type': type }, seed);
    expect(reply.status).toBe(415);
    expect(errorOf(reply)?.message).toMatch(/application\/json/);
    expect(Object.keys(emulator.store.state.users)).not.toContain('mallory@example.com');
  });

  it('the APIs answer a browser app of any origin with CORS, as Google does', async () => {
    const reply = await exact(origin, 'GET', '/calendar/v3/users/me/calendarList', {
      host,
      origin: 'http://localhost:5173',
      authorization: `Bearer ${ANA}`,
    });
    expect(reply.status).toBe(200);
    expect(reply.headers['access-control-allow-origin']).toBe('http://localhost:5173');
    expect(reply.headers.vary).toBe('Origin');
    const preflight = await exact(origin, 'OPTIONS', '/calendar/v3/calendars/primary/events', {
      host,
      origin: 'http://localhost:5173',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization, content-type',
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-headers']).toBe('authorization, content-type');
  });

  it.each([
    ['an unknown /__emulator… path', 'POST /__emulatorXYZ', 2 * 1024 * 1024, '413 Payload Too Large'],
    ['a control setting', 'PUT /__emulator/rate-limit', 2 * 1024 * 1024, '413 Payload Too Large'],
    ['the token endpoint', 'POST /token', 2 * 1024 * 1024, '413 Payload Too Large'],
    ['an API call', 'POST /calendar/v3/calendars', 11 * 1024 * 1024, '413 Payload Too Large'],
  ])('%s over its limit is refused before its body is read', async (_, line, length, status) => {
    const head = `${line} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;
    expect(await statusBeforeTheBody(origin, head)).toBe(`HTTP/1.1 ${status}`);
  });
});

describe('when the control plane needs the admin credential', () => {
  let emulator: Emulator;
  let origin: string;
  let host: string;
  beforeAll(async () => {
    emulator = createEmulator({ admin: { token: ADMIN }, allowedHosts: ['emulator', '.sandbox.test'] });
    origin = await emulator.listen(0);
    host = new URL(origin).host;
  });
  afterAll(() => emulator.close());

  it('answers 401 to a 400 MB state without the credential before reading a byte of it', async () => {
    const head = `PUT /__emulator/state HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: 400000000\r\n\r\n`;
    expect(await statusBeforeTheBody(origin, head)).toBe('HTTP/1.1 401 Unauthorized');
  });

  it('refuses a state over 512 MiB before reading it, even with the credential', async () => {
    const head = `PUT /__emulator/state HTTP/1.1\r\nHost: ${host}\r\nX-Emulator-Admin-Token: ${ADMIN}\r\nContent-Type: application/json\r\nContent-Length: ${512 * 1024 * 1024 + 1}\r\n\r\n`;
    expect(await statusBeforeTheBody(origin, head)).toBe('HTTP/1.1 413 Payload Too Large');
  });

  it.each([
    ['emulator', 200],
    ['ci.sandbox.test', 200],
    ['sandbox.test', 200],
    ['other.test', 403],
  ])('--allowed-hosts emulator,.sandbox.test: Host %s is %d', async (name, status) => {
    const port = new URL(origin).port;
    const reply = await exact(origin, 'GET', '/__emulator/quota', {
      host: `${name}:${port}`,
      'x-emulator-admin-token': ADMIN,
    });
    expect(reply.status).toBe(status);
  });

  it('a page of another origin is refused even with the credential in its cookie', async () => {
    const reply = await exact(origin, 'GET', '/__emulator/state', {
      host,
      origin: 'http://localhost:5173',
      'x-emulator-admin-token': ADMIN,
    });
    expect(reply.status).toBe(403);
  });
});

describe('allowedHosts', () => {
  it('refuses an entry that is no host name when the emulator is made', () => {
    expect(() => createEmulator({ allowedHosts: 'http://emulator:4011' })).toThrow(
      /allowedHosts: "http:\/\/emulator:4011" is not a host name/,
    );
  });
});
