/**
 * The servers' icon, at `/favicon.ico` (where a browser looks for one unasked, even for a JSON
 * document it opens) and `/favicon.svg` (what their pages link): the icon of the API reference
 * (packages/reference/src/favicon.svg), a blue square with three white lines. The ICO is drawn
 * here from the same shapes, 32 by 32 pixels, so no binary file is kept beside the code.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** The icon as SVG: the same as packages/reference/src/favicon.svg (test/favicon.test.ts checks it). */
export const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><title>gspec</title><rect width="32" height="32" rx="6" fill="#1a73e8"/><path d="M9 9h14M9 16h14M9 23h9" stroke="#fff" stroke-width="3" stroke-linecap="round"/></svg>';

/** The lines of the icon: from (x1, y) to (x2, y), 3 pixels wide with round ends. */
const LINES: readonly [number, number, number][] = [
  [9, 23, 9],
  [9, 23, 16],
  [9, 18, 23],
];

/** The colour of the pixel whose centre is (x, y), as [red, green, blue, alpha]. */
function pixel(x: number, y: number): [number, number, number, number] {
  const size = 32;
  const radius = 6;
  // Outside the rounded corners: transparent.
  const cx = Math.min(Math.max(x, radius), size - radius);
  const cy = Math.min(Math.max(y, radius), size - radius);
  if ((x - cx) ** 2 + (y - cy) ** 2 > radius ** 2) return [0, 0, 0, 0];
  for (const [x1, x2, ly] of LINES) {
    const nx = Math.min(Math.max(x, x1), x2);
    if ((x - nx) ** 2 + (y - ly) ** 2 <= 1.5 ** 2) return [255, 255, 255, 255];
  }
  return [0x1a, 0x73, 0xe8, 255];
}

/** The icon as an ICO file: one 32-bit 32×32 image, with the mask its transparent corners need. */
function drawIco(): Buffer {
  const size = 32;
  const pixels = Buffer.alloc(size * size * 4);
  const maskRow = size / 8; // 4 bytes: already a multiple of 4
  const mask = Buffer.alloc(maskRow * size);
  // Rows from the bottom up, each pixel blue, green, red, alpha.
  for (let row = 0; row < size; row++) {
    const y = size - 1 - row;
    for (let x = 0; x < size; x++) {
      const [r, g, b, a] = pixel(x + 0.5, y + 0.5);
      pixels.set([b, g, r, a], (row * size + x) * 4);
      if (a === 0)
        mask[row * maskRow + (x >> 3)] = (mask[row * maskRow + (x >> 3)] as number) | (0x80 >> (x & 7));
    }
  }
  const info = Buffer.alloc(40);
  info.writeUInt32LE(40, 0); // the header's size
  info.writeInt32LE(size, 4);
  info.writeInt32LE(size * 2, 8); // the image and its mask
  info.writeUInt16LE(1, 12); // planes
  info.writeUInt16LE(32, 14); // bits per pixel
  info.writeUInt32LE(pixels.length + mask.length, 20);
  const image = Buffer.concat([info, pixels, mask]);
  const head = Buffer.alloc(6 + 16);
  head.writeUInt16LE(1, 2); // an icon
  head.writeUInt16LE(1, 4); // one image
  head.writeUInt8(size, 6);
  head.writeUInt8(size, 7);
  head.writeUInt16LE(1, 10); // planes
  head.writeUInt16LE(32, 12); // bits per pixel
  head.writeUInt32LE(image.length, 14);
  head.writeUInt32LE(head.length, 18); // where the image starts
  return Buffer.concat([head, image]);
}

/** The icon as an ICO file (`/favicon.ico`). */
export const FAVICON_ICO: Buffer = drawIco();

/** The icons by path, with their content types. */
const ICONS: Record<string, { type: string; bytes: Buffer }> = {
  '/favicon.ico': { type: 'image/x-icon', bytes: FAVICON_ICO },
  '/favicon.svg': { type: 'image/svg+xml', bytes: Buffer.from(FAVICON_SVG, 'utf8') },
};

/** Whether `pathname` is one of the icons'. */
export const isFaviconPath = (pathname: string): boolean => Object.hasOwn(ICONS, pathname);

/**
 * Answers `GET` or `HEAD` of `/favicon.ico` or `/favicon.svg` with the icon, kept a week by
 * the browser; true when it did. Other paths and methods are left to the server (false). Call
 * it after the server's Host check.
 */
export function serveFavicon(request: IncomingMessage, response: ServerResponse, pathname: string): boolean {
  const method = request.method ?? 'GET';
  if (!isFaviconPath(pathname) || (method !== 'GET' && method !== 'HEAD')) return false;
  const icon = ICONS[pathname] as { type: string; bytes: Buffer };
  response.writeHead(200, {
    'content-type': icon.type,
    'content-length': icon.bytes.length,
    'cache-control': 'public, max-age=604800',
    'x-content-type-options': 'nosniff',
    'content-security-policy': "default-src 'none'",
  });
  response.end(method === 'HEAD' ? undefined : icon.bytes);
  return true;
}
