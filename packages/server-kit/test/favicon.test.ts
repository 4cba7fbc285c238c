import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAVICON_ICO, FAVICON_SVG, serveFavicon } from '../src/favicon.ts';
import { listen } from '../src/http.ts';

describe('the icon', () => {
  it('is the API reference’s icon', () => {
    const reference = readFileSync(new URL('../../reference/src/favicon.svg', import.meta.url), 'utf8');
    expect(FAVICON_SVG).toBe(reference.trim());
  });

  it('is an ICO file of one 32-bit 32×32 image', () => {
    const ico = FAVICON_ICO;
    expect([ico.readUInt16LE(0), ico.readUInt16LE(2), ico.readUInt16LE(4)]).toEqual([0, 1, 1]);
    expect([ico.readUInt8(6), ico.readUInt8(7), ico.readUInt16LE(12)]).toEqual([32, 32, 32]);
    const size = ico.readUInt32LE(14);
    const offset = ico.readUInt32LE(18);
    expect(offset + size).toBe(ico.length);
    expect(ico.readUInt32LE(offset)).toBe(40);
    expect([ico.readInt32LE(offset + 4), ico.readInt32LE(offset + 8)]).toEqual([32, 64]);
  });

  it.each([
    ['a corner', 0, 0, [0, 0, 0, 0]],
    ['the background', 4, 4, [0x1a, 0x73, 0xe8, 255]],
    ['the first line', 16, 9, [255, 255, 255, 255]],
    ['past the short last line', 22, 23, [0x1a, 0x73, 0xe8, 255]],
  ])('draws %s', (_where, x, y, rgba) => {
    // Rows from the bottom up, each pixel blue, green, red, alpha.
    const start = FAVICON_ICO.readUInt32LE(18) + 40 + ((31 - y) * 32 + x) * 4;
    const [b, g, r, a] = FAVICON_ICO.subarray(start, start + 4);
    expect([r, g, b, a]).toEqual(rgba);
  });
});

describe('serveFavicon', () => {
  let server: Server;
  let origin: string;
  beforeAll(async () => {
    server = createServer((request, response) => {
      if (!serveFavicon(request, response, new URL(request.url ?? '/', 'http://x').pathname)) {
        response.statusCode = 404;
        response.end();
      }
    });
    origin = await listen(server, 0);
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it.each([
    ['GET', '/favicon.ico', 200, 'image/x-icon', FAVICON_ICO.length],
    ['GET', '/favicon.svg', 200, 'image/svg+xml', Buffer.byteLength(FAVICON_SVG)],
    ['HEAD', '/favicon.ico', 200, 'image/x-icon', 0],
    ['POST', '/favicon.ico', 404, null, 0],
    ['GET', '/favicon.png', 404, null, 0],
  ])('%s %s: %i', async (method, path, status, type, length) => {
    const response = await fetch(`${origin}${path}`, { method });
    const body = Buffer.from(await response.arrayBuffer());
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toBe(type);
    expect(body.length).toBe(length);
    if (status === 200) expect(response.headers.get('cache-control')).toBe('public, max-age=604800');
  });
});
