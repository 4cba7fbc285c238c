/** The built reference folder: what a static host serves. */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const distDir = path.resolve(import.meta.dirname, '../dist');
const require = createRequire(import.meta.url);
const specDir = path.dirname(require.resolve('@gspec/specs/apis.json'));
const apis = JSON.parse(readFileSync(path.join(specDir, 'apis.json'), 'utf8')) as {
  id: string;
  file: string;
}[];

describe('the built reference', () => {
  it.each(apis.map((api) => [api.id, api] as const))(
    'has the %s page, its renderer on the same origin, and its spec',
    (_id, api) => {
      const html = readFileSync(path.join(distDir, api.id, 'index.html'), 'utf8');
      expect(html).toContain('from "../assets/redoc.standalone.js"');
      expect(html).toContain('"disableTelemetry":true');
      expect(html).not.toMatch(/<(script|link|img)\b[^>]*\b(src|href)="(https?:)?\/\//);
      expect(readFileSync(path.join(distDir, api.id, 'openapi.json'), 'utf8')).toBe(
        readFileSync(path.join(specDir, api.file), 'utf8'),
      );
    },
  );

  it('ships the renderer without references to its CDN logo', () => {
    const renderer = readFileSync(path.join(distDir, 'assets', 'redoc.standalone.js'), 'utf8');
    expect(renderer).not.toContain('cdn.redoc.ly');
    expect(renderer).toMatch(/export\s*\{[^}]*hydrate/);
  });

  it('links every API from the landing page', () => {
    const landing = readFileSync(path.join(distDir, 'index.html'), 'utf8');
    for (const api of apis) expect(landing).toContain(`href="${api.id}/"`);
    expect(existsSync(path.join(distDir, 'assets', 'site.css'))).toBe(true);
  });
});
