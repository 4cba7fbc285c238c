/**
 * Step 4 of the pipeline: build the HTML API reference into packages/reference/dist/.
 *
 *   dist/index.html              landing page presenting both APIs
 *   dist/<id>/index.html         the Redoc reference of each API (redocly build-docs, reading redocly.yaml)
 *   dist/<id>/openapi.json       the bundled spec, for download
 *   dist/assets/                 Redoc's renderer and the landing page's style sheet
 *
 * `redocly build-docs` writes a page that loads Redoc from a CDN and reports telemetry.
 * The reference must work offline and talk to no other host, so the renderer is served
 * from dist/assets and telemetry is switched off; the build fails if anything in a page
 * still loads a script, style sheet or module from another origin.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { repoRoot, SpecError } from './lib/apis.ts';

interface IndexEntry {
  name: string;
  id: string;
  version: string;
  title: string;
  server: string;
  basePath: string;
  file: string;
}

const outDir = path.join(repoRoot, 'packages', 'reference', 'dist');
const specDir = path.join(repoRoot, 'specs', 'dist');
const require = createRequire(path.join(repoRoot, 'packages', 'reference', 'package.json'));

const CDN_MODULE = /https:\/\/cdn\.redocly\.com\/redoc\/v([0-9.]+)\/bundles\/redoc\.standalone\.js/g;

/** The renderer shows a "docs by Redocly" badge whose logo it loads from a CDN; served inline instead. */
const BADGE_LOGO = /https:\/\/cdn\.redoc\.ly\/redoc\/logo-mini(?:-full)?\.svg/g;
const INLINE_LOGO = `data:image/svg+xml,${encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" width="60" height="14" viewBox="0 0 60 14"><text x="0" y="11" font-family="sans-serif" font-size="11" fill="#666">Redocly</text></svg>',
)}`;

/** The vendored renderer, with its only asset from another host replaced by an inline one. */
export function localizeRenderer(source: string): string {
  const out = source.replace(BADGE_LOGO, INLINE_LOGO);
  if (BADGE_LOGO.test(out)) throw new SpecError('the vendored renderer still loads its logo from a CDN');
  return out;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Rewrites one built page to use the local renderer; refuses pages that still load from elsewhere. */
export function localizePage(html: string, vendoredVersion: string, assetsHref: string): string {
  const versions = new Set([...html.matchAll(CDN_MODULE)].map((m) => m[1]));
  if (versions.size === 0)
    throw new SpecError(
      'redocly build-docs output no longer loads Redoc from the expected CDN URL; update scripts/build-reference.ts',
    );
  for (const version of versions) {
    if (version !== vendoredVersion) {
      throw new SpecError(
        `redocly build-docs expects redoc ${version} but packages/reference vendors redoc ${vendoredVersion}; align the versions`,
      );
    }
  }
  const out = html
    .replace(CDN_MODULE, `${assetsHref}/redoc.standalone.js`)
    .replace(/(<link rel="modulepreload"[^>]*?)\s+integrity="[^"]*"/g, '$1')
    .replace(/(<link rel="modulepreload"[^>]*?)\s+crossorigin="[^"]*"/g, '$1')
    .replace(/"disableTelemetry":false/g, '"disableTelemetry":true');
  const external = [
    ...out.matchAll(/<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)="(https?:)?\/\/[^"]+"/g),
  ].map((m) => m[0]);
  const imports = [...out.matchAll(/\bimport\b[^;]*?from\s*["']https?:\/\/[^"']+["']/g)].map((m) => m[0]);
  if (external.length + imports.length > 0) {
    throw new SpecError(
      `the reference page still loads from another host:\n  ${[...external, ...imports].join('\n  ')}`,
    );
  }
  return out;
}

function landingPage(
  apis: IndexEntry[],
  docs: Record<string, { summary?: string; operations: number }>,
): string {
  const cards = apis
    .map((api) => {
      const meta = docs[api.id];
      return `      <li class="card">
        <h2><a href="${api.id}/">${escapeHtml(api.title)} <span class="version">${api.version}</span></a></h2>
        <p>${escapeHtml(meta?.summary ?? '')}</p>
        <dl>
          <dt>Operations</dt><dd>${meta?.operations ?? 0}</dd>
          <dt>Live base URL</dt><dd><code>${escapeHtml(api.server)}</code></dd>
          <dt>Mock base path</dt><dd><code>${escapeHtml(api.basePath)}</code></dd>
        </dl>
        <p class="links"><a href="${api.id}/">Reference</a> · <a href="${api.id}/openapi.json" download>OpenAPI (JSON)</a></p>
      </li>`;
    })
    .join('\n');
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>gspec API reference</title>
    <link rel="stylesheet" href="assets/site.css">
  </head>
  <body>
    <header>
      <h1>gspec API reference</h1>
      <p>Spec-first descriptions of two Google REST APIs, with typed clients, a local mock and contract tests made from the same OpenAPI documents.</p>
    </header>
    <main>
      <ul class="apis">
${cards}
      </ul>
      <section>
        <h2>Try the APIs locally</h2>
        <p>The mock that serves this page answers both APIs at their live base paths, for example
        <code>curl -H 'Authorization: Bearer t' http://127.0.0.1:4010/calendar/v3/colors</code>.</p>
      </section>
    </main>
  </body>
</html>
`;
}

const SITE_CSS = `:root { color-scheme: light dark; font-family: system-ui, sans-serif; line-height: 1.5; }
body { margin: 0 auto; max-width: 60rem; padding: 2rem; }
header p { color: GrayText; }
.apis { list-style: none; padding: 0; display: grid; gap: 1.5rem; grid-template-columns: repeat(auto-fit, minmax(22rem, 1fr)); }
.card { border: 1px solid color-mix(in srgb, CanvasText 20%, transparent); border-radius: 0.75rem; padding: 1.25rem; }
.card h2 { margin-top: 0; font-size: 1.3rem; }
.version { font-size: 0.8rem; border-radius: 0.4rem; padding: 0.1rem 0.4rem; background: color-mix(in srgb, CanvasText 10%, transparent); }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 0.25rem 1rem; }
dt { color: GrayText; } dd { margin: 0; overflow-wrap: anywhere; }
code { font-size: 0.9em; }
`;

function main(): void {
  const indexFile = path.join(specDir, 'apis.json');
  if (!existsSync(indexFile))
    throw new SpecError(`${indexFile} is missing; build @gspec/specs first (npm run build)`);
  const apis = JSON.parse(readFileSync(indexFile, 'utf8')) as IndexEntry[];
  const redocDir = path.dirname(require.resolve('redoc/package.json'));
  const redocVersion = (
    JSON.parse(readFileSync(path.join(redocDir, 'package.json'), 'utf8')) as { version: string }
  ).version;
  const redoclyBin = path.join(path.dirname(require.resolve('@redocly/cli/package.json')), 'bin', 'cli.js');

  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(path.join(outDir, 'assets'), { recursive: true });
  writeFileSync(
    path.join(outDir, 'assets', 'redoc.standalone.js'),
    localizeRenderer(readFileSync(path.join(redocDir, 'bundles', 'redoc.standalone.js'), 'utf8')),
  );
  writeFileSync(path.join(outDir, 'assets', 'site.css'), SITE_CSS);

  const docs: Record<string, { summary?: string; operations: number }> = {};
  for (const api of apis) {
    const page = path.join(outDir, api.id, 'index.html');
    mkdirSync(path.dirname(page), { recursive: true });
    try {
      execFileSync(process.execPath, [redoclyBin, 'build-docs', api.name, '--output', page], {
        cwd: repoRoot,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      });
    } catch (error) {
      const { stdout, stderr } = error as { stdout?: Buffer; stderr?: Buffer };
      throw new SpecError(`redocly build-docs ${api.name} failed:\n${stdout ?? ''}${stderr ?? ''}`);
    }
    writeFileSync(page, localizePage(readFileSync(page, 'utf8'), redocVersion, '../assets'));
    const spec = JSON.parse(readFileSync(path.join(specDir, api.file), 'utf8'));
    copyFileSync(path.join(specDir, api.file), path.join(outDir, api.id, 'openapi.json'));
    const operations = Object.values<Record<string, unknown>>(spec.paths ?? {}).reduce(
      (n, item) => n + ['get', 'put', 'post', 'delete', 'patch'].filter((m) => item[m]).length,
      0,
    );
    docs[api.id] = { summary: spec.info?.summary, operations };
    console.log(
      `reference ${api.name} -> packages/reference/dist/${api.id}/index.html (${operations} operations)`,
    );
  }
  writeFileSync(path.join(outDir, 'index.html'), landingPage(apis, docs));
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  try {
    main();
  } catch (error) {
    console.error(error instanceof SpecError ? error.message : error);
    process.exit(1);
  }
}
