/**
 * The emulator's root and icon (core/server.ts with server-kit's front-door.ts and favicon.ts):
 * `GET /`, where a person's browser goes first, tells what this server is and which base URL to
 * give a client (a page for a browser, JSON for anything else) and never the admin credential;
 * `/favicon.ico` and `/favicon.svg` are the icon. Both obey the Host check like every path.
 */
import { sendExact } from '@gspec/scripts/raw-http';
import { FAVICON_ICO, FAVICON_SVG } from '@gspec/server-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../src/core/server.ts';
import { createEmulator } from '../src/emulator.ts';

const ADMIN = 'front-door-admin-credential-0123456789';

describe.each([
  ['a default emulator', false],
  ['a strict emulator with an admin credential', true],
])('the root of %s', (_title, strict) => {
  let emulator: Emulator;
  let origin: string;
  beforeAll(async () => {
    emulator = createEmulator(strict ? { strict: true, admin: { token: ADMIN } } : {});
    origin = await emulator.listen(0);
  });
  afterAll(() => emulator.close());

  it('answers JSON with the base URLs, the batch endpoints, the pages and an example', async () => {
    const response = await fetch(`${origin}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      name: 'gspec emulator',
      apis: [
        {
          name: 'calendar',
          basePath: '/calendar/v3',
          baseUrl: `${origin}/calendar/v3`,
          batch: `${origin}/batch/calendar/v3`,
        },
        {
          name: 'searchads360',
          basePath: '/doubleclicksearch/v2',
          baseUrl: `${origin}/doubleclicksearch/v2`,
          batch: `${origin}/batch/doubleclicksearch/v2`,
        },
      ],
      links: { inspector: `${origin}/__emulator/ui/`, health: `${origin}/__emulator/health` },
      example: strict
        ? `curl -H "Authorization: Bearer $TOKEN" ${origin}/calendar/v3/colors`
        : `curl -H 'Authorization: Bearer any-token' ${origin}/calendar/v3/colors`,
    });
    expect(body.description).toMatch(strict ? /strict mode/ : /Any bearer token is accepted/);
    expect(JSON.stringify(body)).not.toContain(ADMIN);
  });

  it('answers a browser with a page that has no script or style, under a strict policy', async () => {
    const response = await fetch(`${origin}/`, {
      headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' },
    });
    const html = await response.text();
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toMatch(/^default-src 'none'; img-src 'self';/);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('vary')).toMatch(/Accept/);
    expect(html).toContain(`<code>${origin}/calendar/v3</code>`);
    expect(html).toContain(`<code>${origin}/doubleclicksearch/v2</code>`);
    expect(html).toContain('<a href="/__emulator/ui/">');
    expect(html).toContain('<a href="/__emulator/health">');
    expect(html).toContain('<link rel="icon" type="image/svg+xml" href="/favicon.svg">');
    expect(html).not.toMatch(/<script|<style|style=/);
    expect(html).not.toContain(ADMIN);
  });

  it.each([
    ['HEAD', '/', 200, ''],
    ['POST', '/', 404, 'the APIs here are under /calendar/v3 and /doubleclicksearch/v2'],
  ])('%s %s: %i', async (method, path, status, text) => {
    const response = await fetch(`${origin}${path}`, { method });
    expect(response.status).toBe(status);
    expect(await response.text()).toContain(text);
  });

  it.each([
    ['/favicon.ico', 'image/x-icon', FAVICON_ICO],
    ['/favicon.svg', 'image/svg+xml', Buffer.from(FAVICON_SVG)],
  ])('serves %s, kept a week, without a credential', async (path, type, bytes) => {
    const response = await fetch(`${origin}${path}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(type);
    expect(response.headers.get('cache-control')).toBe('public, max-age=604800');
    expect(Buffer.from(await response.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it.each(['/', '/favicon.ico'])('refuses %s to a Host that is no name of it', async (path) => {
    const port = new URL(origin).port;
    const reply = await sendExact(origin, 'GET', path, { host: `rebind.test:${port}`, accept: 'text/html' });
    expect(reply.status).toBe(403);
    expect(JSON.parse(reply.body).error.errors[0].reason).toBe('hostNotAllowed');
  });
});
