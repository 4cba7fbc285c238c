/** The built portal folder: what a static host serves. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const distDir = path.resolve(import.meta.dirname, '../dist');
const guidesDir = path.resolve(import.meta.dirname, '../../../docs/guides');
const require = createRequire(import.meta.url);
const specDir = path.dirname(require.resolve('@gspec/specs/apis.json'));
const apis = JSON.parse(readFileSync(path.join(specDir, 'apis.json'), 'utf8')) as {
  id: string;
  file: string;
}[];

function operationIds(file: string): string[] {
  const doc = JSON.parse(readFileSync(path.join(specDir, file), 'utf8'));
  return Object.values<Record<string, { operationId?: string }>>(doc.paths).flatMap((item) =>
    ['get', 'put', 'post', 'delete', 'patch'].flatMap((m) =>
      item[m]?.operationId ? [item[m].operationId as string] : [],
    ),
  );
}

const htmlPages = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? htmlPages(path.join(dir, e.name))
      : e.name.endsWith('.html')
        ? [path.join(dir, e.name)]
        : [],
  );

describe('the built portal', () => {
  it.each(apis.map((api) => [api.id, api] as const))(
    'has the %s reference, its scripts on the same origin, and its spec',
    (_id, api) => {
      const html = readFileSync(path.join(distDir, api.id, 'index.html'), 'utf8');
      expect(html).toContain('<script type="module" src="init.js"></script>');
      expect(readFileSync(path.join(distDir, api.id, 'init.js'), 'utf8')).toContain(
        'from "../assets/redoc.standalone.js"',
      );
      expect(readFileSync(path.join(distDir, api.id, 'init.js'), 'utf8')).toContain(
        '"disableTelemetry":true',
      );
      expect(readFileSync(path.join(distDir, api.id, 'openapi.json'), 'utf8')).toBe(
        readFileSync(path.join(specDir, api.file), 'utf8'),
      );
    },
  );

  it.each(htmlPages(distDir).map((file) => [path.relative(distDir, file), file]))(
    '%s sets a strict CSP and has no inline script',
    (_name, file) => {
      const html = readFileSync(file, 'utf8');
      const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)?.[1] ?? '';
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toMatch(/script-src[^;]*'unsafe-(inline|eval)'/);
      expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
      expect(html).not.toMatch(/<(script|link|img|iframe)\b[^>]*\b(src|href)="(https?:)?\/\//);
    },
  );

  it.each(htmlPages(distDir).map((file) => [path.relative(distDir, file), file]))(
    '%s names the portal icon, and the icon is there',
    (_name, file) => {
      const html = readFileSync(file, 'utf8');
      const href = /<link rel="icon" type="image\/svg\+xml" href="([^"]+)">/.exec(html)?.[1];
      expect(href, 'no <link rel="icon">').toBeDefined();
      const icon = path.resolve(path.dirname(file), href ?? '');
      expect(path.relative(distDir, icon)).toBe('favicon.svg');
      expect(readFileSync(icon, 'utf8')).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    },
  );

  it.each(apis.map((api) => [api.id, api] as const))(
    'has curl and TypeScript samples for every %s operation',
    (_id, api) => {
      const samples = JSON.parse(
        readFileSync(path.join(distDir, api.id, 'code-samples.json'), 'utf8'),
      ) as Record<string, { lang: string }[]>;
      expect(Object.keys(samples).sort()).toEqual(operationIds(api.file).sort());
      for (const list of Object.values(samples))
        expect(list.map((s) => s.lang)).toEqual(['Shell', 'TypeScript']);
    },
  );

  it('indexes every operation of both APIs for search, with their field names', () => {
    const index = JSON.parse(readFileSync(path.join(distDir, 'search-index.json'), 'utf8')) as {
      kind: string;
      name: string;
      fields: string[];
    }[];
    const indexed = index
      .filter((e) => e.kind === 'operation')
      .map((e) => e.name)
      .sort();
    expect(indexed).toEqual(apis.flatMap((api) => operationIds(api.file)).sort());
    expect(index.find((e) => e.name === 'events.list')?.fields).toContain('iCalUID');
    expect(index.find((e) => e.name === 'conversion.insert')?.fields).toContain('conversionTimestamp');
  });

  it('renders every guide of docs/guides', () => {
    const guides = readdirSync(guidesDir).filter((f) => f.endsWith('.md'));
    expect(guides.length).toBeGreaterThan(0);
    for (const guide of guides)
      expect(existsSync(path.join(distDir, 'guides', guide.replace(/\.md$/, '.html'))), guide).toBe(true);
  });

  it('ships the renderer without references to its CDN logo', () => {
    const renderer = readFileSync(path.join(distDir, 'assets', 'redoc.standalone.js'), 'utf8');
    expect(renderer).not.toContain('cdn.redoc.ly');
    expect(renderer).toMatch(/export\s*\{[^}]*hydrate/);
  });
});
