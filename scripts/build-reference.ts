/**
 * Step 4 of the pipeline: build the reference portal into packages/reference/dist/.
 *
 *   dist/index.html                 landing page: both APIs, the guides, search across both
 *   dist/<api>/index.html           the Redoc reference of each API (redocly build-docs, reading redocly.yaml)
 *   dist/<api>/openapi.json         the bundled spec, for download
 *   dist/<api>/code-samples.json    the curl and TypeScript samples shown on each operation
 *   dist/guides/*.html              the guides of docs/guides/, rendered
 *   dist/try/index.html             the try-it console (dist/assets/try.js)
 *   dist/search-index.json          operations, schemas and field names of both APIs
 *   dist/assets/                    renderer, scripts, style sheet
 *
 * The reference page of each API is made from a docs-only copy of the bundled spec, to which
 * this script adds what Redoc does not show by itself: the quota cost, the full list of
 * scopes, the deprecation and migration notes, a link to the try-it console, and generated
 * code samples (x-codeSamples). The source specs are never changed.
 *
 * Self-contained (decision 0004): the renderer is served from dist/assets, telemetry is off,
 * inline scripts are moved to files, and every page carries a Content-Security-Policy that
 * allows scripts, styles, fonts and images from the portal itself only. The build fails if
 * anything would still load from another host.
 */
import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Marked } from 'marked';
import { type OpenApiDocument, repoRoot, SpecError } from './lib/apis.ts';
import { type CodeSample, codeSamples } from './lib/code-samples.ts';
import { fieldNames, isBatchEndpoint, type Json, listOperations, resolve } from './lib/operations.ts';
import type { SpecIndexEntry } from './lib/spec-package.ts';

type IndexEntry = SpecIndexEntry;

const outDir = path.join(repoRoot, 'packages', 'reference', 'dist');
const specDir = path.join(repoRoot, 'specs', 'dist');
const guidesDir = path.join(repoRoot, 'docs', 'guides');
const require = createRequire(path.join(repoRoot, 'packages', 'reference', 'package.json'));

/** What every page of the portal may load: itself, plus the loopback mock or emulator for try-it. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  // Redoc styles its components with styled-components, which writes <style> elements.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self' http://127.0.0.1:* http://localhost:*",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
].join('; ');

const CSP_META = `<meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY}">`;

/** The portal's icon (packages/reference/src/favicon.svg), at the root of dist/; `up` leads from a page to the root. */
const FAVICON_SOURCE = path.join(repoRoot, 'packages', 'reference', 'src', 'favicon.svg');
const iconLink = (up: string) => `<link rel="icon" type="image/svg+xml" href="${up}favicon.svg">`;

const CDN_MODULE = /https:\/\/cdn\.redocly\.com\/redoc\/v([0-9.]+)\/bundles\/redoc\.standalone\.js/g;

/** The renderer shows a "docs by Redocly" badge whose logo it loads from a CDN; served inline instead. */
const BADGE_LOGO = /https:\/\/cdn\.redoc\.ly\/redoc\/logo-mini(?:-full)?\.svg/g;
const INLINE_LOGO = `data:image/svg+xml,${encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" width="60" height="14" viewBox="0 0 60 14"><text x="0" y="11" font-family="sans-serif" font-size="11" fill="#666">Redocly</text></svg>',
)}`;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * The Redoc renderer `redocly build-docs` pre-renders with: @redocly/cli ships its standalone
 * bundle (for `--inline-bundle`), so the portal serves that very file and needs no `redoc`
 * package of its own (whose engines field asks for Node 22 while the CLI supports 20.19).
 */
const CLI_RENDERER = path.join('lib', 'chunks', 'redoc.standalone.js');

/** The version a Redoc standalone bundle declares for itself. */
export function rendererVersion(source: string): string {
  const version = /\{name:`redoc`,version:`([0-9][^`]*)`\}/.exec(source)?.[1];
  if (!version)
    throw new SpecError(
      'the Redoc renderer shipped by @redocly/cli no longer names its version; update scripts/build-reference.ts',
    );
  return version;
}

/** The vendored renderer, with its only asset from another host replaced by an inline one. */
export function localizeRenderer(source: string): string {
  const out = source.replace(BADGE_LOGO, INLINE_LOGO);
  if (BADGE_LOGO.test(out)) throw new SpecError('the vendored renderer still loads its logo from a CDN');
  return out;
}

/**
 * Rewrites one built Redoc page: the local renderer, telemetry off, inline scripts moved into
 * files next to the page (returned), the CSP set; refuses a page that still loads from elsewhere.
 */
export function localizePage(
  html: string,
  vendoredVersion: string,
  assetsHref: string,
): { html: string; scripts: Record<string, string> } {
  const versions = new Set([...html.matchAll(CDN_MODULE)].map((m) => m[1]));
  if (versions.size === 0) {
    throw new SpecError(
      'redocly build-docs output no longer loads Redoc from the expected CDN URL; update scripts/build-reference.ts',
    );
  }
  for (const version of versions) {
    if (version !== vendoredVersion) {
      throw new SpecError(
        `redocly build-docs expects redoc ${version} but the renderer served is redoc ${vendoredVersion}; update scripts/build-reference.ts`,
      );
    }
  }
  const scripts: Record<string, string> = {};
  let out = html
    .replace(CDN_MODULE, `${assetsHref}/redoc.standalone.js`)
    .replace(/(<link rel="modulepreload"[^>]*?)\s+integrity="[^"]*"/g, '$1')
    .replace(/(<link rel="modulepreload"[^>]*?)\s+crossorigin="[^"]*"/g, '$1')
    .replace(/"disableTelemetry":false/g, '"disableTelemetry":true');
  out = hashRouteLinks(out).replace(
    /<script(\s+type="module")?>([\s\S]*?)<\/script>/g,
    (_match, moduleType: string | undefined, body: string) => {
      const name = moduleType ? 'init.js' : 'color-mode.js';
      if (scripts[name])
        throw new SpecError(
          `the Redoc page has more than one inline ${moduleType ? 'module' : 'classic'} script`,
        );
      scripts[name] = `${body.trim()}\n`;
      return `<script${moduleType ?? ''} src="${name}"></script>`;
    },
  );
  if (/<script(?![^>]*\bsrc=)[^>]*>/.test(out))
    throw new SpecError('an inline script is left in the Redoc page');
  out = out.replace(/<head>/, `<head>\n    ${CSP_META}\n    ${iconLink(assetsHref.replace(/assets$/, ''))}`);
  if (!out.includes(CSP_META))
    throw new SpecError('the Redoc page has no <head> to put the Content-Security-Policy in');
  const rootLinks = [...out.matchAll(/<a\b[^>]*\shref="\/(?!\/)[^"]*"/g)].map((m) => m[0]);
  if (rootLinks.length > 0)
    throw new SpecError(`the reference page still links from the site root:\n  ${rootLinks.join('\n  ')}`);
  const external = [
    ...out.matchAll(/<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)="(https?:)?\/\/[^"]+"/g),
  ].map((m) => m[0]);
  const imports = Object.values(scripts).flatMap((code) =>
    [...code.matchAll(/\bimport\b[^;]*?from\s*["']https?:\/\/[^"']+["']/g)].map((m) => m[0]),
  );
  if (external.length + imports.length > 0) {
    throw new SpecError(
      `the reference page still loads from another host:\n  ${[...external, ...imports].join('\n  ')}`,
    );
  }
  return { html: out, scripts };
}

/**
 * `redocly build-docs` pre-renders the menu with links from the site root (`href="/acl"`,
 * `href="/"` for the overview), while the page's renderer routes by hash (`#/acl`): opened
 * directly or by a crawler, those links leave the reference for pages that do not exist.
 * They are rewritten to the hash routes the renderer itself uses once it runs.
 */
export function hashRouteLinks(html: string): string {
  return html.replace(/(<a\b[^>]*?\shref=")\/(?!\/)/g, '$1#/');
}

/** Redoc's anchor of an operation: `#/<tag>/<operationId>`, both lower-cased. */
export function operationAnchor(tag: string, operationId: string): string {
  return `#/${tag.toLowerCase()}/${operationId.toLowerCase()}`;
}

function scopesOf(operation: Json): string[] {
  return [
    ...new Set<string>(
      (operation.security ?? []).flatMap((req: Record<string, string[]>) => Object.values(req).flat()),
    ),
  ];
}

/** The docs-only copy of a spec: notes Redoc would not show, and the code samples. */
export function decorateForDocs(
  doc: OpenApiDocument,
  apiId: string,
): { doc: OpenApiDocument; samples: Record<string, CodeSample[]> } {
  const out = structuredClone(doc);
  const samples: Record<string, CodeSample[]> = {};
  out.info.description = `[All APIs and guides](../) · [Try it](../try/?api=${apiId})\n\n${out.info.description ?? ''}`;
  for (const op of listOperations(out, { batchEndpoints: true })) {
    const operation = op.operation;
    const batch = isBatchEndpoint(operation);
    const notes: string[] = [];
    const cost = operation['x-quota-cost'];
    if (batch) notes.push('**Quota cost:** each call in the batch costs what it costs alone.');
    else if (typeof cost === 'number')
      notes.push(`**Quota cost:** ${cost} ${cost === 1 ? 'unit' : 'units'} per call.`);
    const scopes = scopesOf(operation);
    if (scopes.length > 0)
      notes.push(`**OAuth scopes** (any one is enough): ${scopes.map((s) => `\`${s}\``).join(', ')}.`);
    const deprecation = operation['x-deprecation'];
    if (deprecation) {
      const replacement = deprecation.replacement;
      const migration =
        typeof replacement === 'object' ? (replacement.migration ?? replacement.api) : replacement;
      notes.push(`**Deprecated since ${deprecation.since}.**${migration ? ` ${migration}` : ''}`);
    }
    const behavior = operation['x-deprecated-behavior'];
    if (behavior) {
      const text =
        typeof behavior === 'string' ? behavior : (behavior.description ?? JSON.stringify(behavior));
      notes.push(`**Deprecated behaviour:** ${text}`);
    }
    // The try-it page sends one JSON call; a multipart batch is shown by its samples.
    if (!batch)
      notes.push(
        `[Try it against the local mock](../try/?api=${apiId}&op=${encodeURIComponent(op.operationId)})`,
      );
    operation.description = `${operation.description ?? ''}\n\n${notes.join('\n\n')}`;
    samples[op.operationId] = codeSamples(out, apiId, op);
    operation['x-codeSamples'] = samples[op.operationId];
  }
  return { doc: out, samples };
}

export interface SearchEntry {
  api: string;
  apiTitle: string;
  kind: 'operation' | 'schema';
  name: string;
  title: string;
  method?: string;
  path?: string;
  href: string;
  fields: string[];
}

/** The portal's search index: every operation with the field names it uses, and every schema. */
export function searchEntries(doc: OpenApiDocument, api: IndexEntry): SearchEntry[] {
  const entries: SearchEntry[] = [];
  for (const op of listOperations(doc, { batchEndpoints: true })) {
    const fields = new Set<string>(op.parameters.map((p) => p.name));
    const body = op.operation.requestBody ? resolve(doc, op.operation.requestBody) : undefined;
    for (const media of Object.values<Json>(body?.content ?? {}))
      for (const f of fieldNames(doc, media.schema)) fields.add(f);
    for (const [code, raw] of Object.entries<Json>(op.operation.responses ?? {})) {
      if (!/^2/.test(code)) continue;
      for (const media of Object.values<Json>(resolve(doc, raw).content ?? {}))
        for (const f of fieldNames(doc, media.schema)) fields.add(f);
    }
    const tag = op.operation.tags?.[0] ?? '';
    entries.push({
      api: api.id,
      apiTitle: api.title,
      kind: 'operation',
      name: op.operationId,
      title: op.operation.summary ?? op.operationId,
      method: op.method.toUpperCase(),
      path: op.path,
      href: `${api.id}/${operationAnchor(tag, op.operationId)}`,
      fields: [...fields].sort(),
    });
  }
  for (const [name, schema] of Object.entries<Json>(doc.components?.schemas ?? {})) {
    entries.push({
      api: api.id,
      apiTitle: api.title,
      kind: 'schema',
      name,
      title: resolve(doc, schema).description?.split(/(?<=\.)\s/)[0] ?? name,
      href: `${api.id}/#/schemas/${name.toLowerCase()}`,
      fields: [...fieldNames(doc, schema)].sort(),
    });
  }
  return entries;
}

interface Guide {
  slug: string;
  title: string;
  /** The first paragraph, as inline HTML with links relative to the guides' folder. */
  summary: string;
  html: string;
}

/** Inline Markdown for summaries: code spans, emphasis and links, with raw HTML shown as text. */
const inlineMarkdown = new Marked({ renderer: { html: (text: string) => escapeHtml(text) } });

/**
 * Points a guide's relative links at what the portal serves: another guide (`x.md` becomes
 * `x.html`); a link to a file of the repository outside docs/guides, which the portal does not
 * serve, becomes its text followed by the repository path. A link to no file fails the build.
 */
export function portalLinks(html: string, slugs: ReadonlySet<string>): string {
  return html.replace(
    /<a href="([^"#][^"]*?)?(#[^"]*)?"([^>]*)>([\s\S]*?)<\/a>/g,
    (whole, target: string | undefined, fragment: string | undefined, rest: string, text: string) => {
      if (target === undefined || /^(?:[a-z][\w+.-]*:|\/)/i.test(target)) return whole;
      const guide = /^([\w-]+)\.md$/.exec(target)?.[1];
      if (guide && slugs.has(guide)) return `<a href="${guide}.html${fragment ?? ''}"${rest}>${text}</a>`;
      const repoPath = path.posix.normalize(`docs/guides/${target.replace(/&amp;/g, '&')}`);
      if (repoPath.startsWith('..') || !existsSync(path.join(repoRoot, repoPath)))
        throw new SpecError(`a guide links to ${target}, which is not a file of the repository`);
      return `${text} (<code>${escapeHtml(repoPath)}</code> in the repository)`;
    },
  );
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
export function headingId(text: string): string {
  return text
    .toLowerCase()
    .trim()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** A guide as HTML, its headings with the ids GitHub gives them, so that `x.md#heading` links work in both. */
export function renderGuide(markdown: string): string {
  const seen = new Map<string, number>();
  const guideMarkdown = new Marked({
    renderer: {
      heading(text: string, level: number) {
        const entities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"' };
        const plain = text
          .replace(/<[^>]*>/g, '')
          .replace(/&(?:#(\d+)|(amp|lt|gt|quot));/g, (whole: string, code?: string, name?: string) =>
            code ? String.fromCharCode(Number(code)) : (entities[name ?? ''] ?? whole),
          );
        const base = headingId(plain);
        const count = seen.get(base) ?? 0;
        seen.set(base, count + 1);
        return `<h${level} id="${count === 0 ? base : `${base}-${count}`}">${text}</h${level}>\n`;
      },
    },
  });
  return guideMarkdown.parse(markdown, { async: false }) as string;
}

/** A guide's first paragraph after its title, rendered inline. */
export function guideSummary(markdown: string, slugs: ReadonlySet<string>): string {
  const firstParagraph =
    markdown
      .replace(/^#.*$/m, '')
      .trim()
      .split(/\n\s*\n/)[0]
      ?.replace(/\s+/g, ' ') ?? '';
  return portalLinks(inlineMarkdown.parseInline(firstParagraph, { async: false }) as string, slugs);
}

function readGuides(): Guide[] {
  if (!existsSync(guidesDir)) return [];
  const files = readdirSync(guidesDir).filter((f) => f.endsWith('.md'));
  const slugs = new Set(files.map((f) => f.replace(/\.md$/, '')));
  const order = (slug: string) => (slug === 'index' ? -1 : slug === 'getting-started' ? 0 : 1);
  return files
    .map((file) => {
      const text = readFileSync(path.join(guidesDir, file), 'utf8');
      const slug = file.replace(/\.md$/, '');
      const title = /^#\s+(.+)$/m.exec(text)?.[1]?.trim();
      if (!title) throw new SpecError(`docs/guides/${file}: a guide starts with a level-1 heading`);
      const summary = guideSummary(text, slugs);
      const html = portalLinks(renderGuide(text), slugs);
      return { slug, title, summary, html };
    })
    .sort((a, b) => order(a.slug) - order(b.slug) || a.title.localeCompare(b.title));
}

function page(title: string, depth: number, body: string, scripts: string[] = []): string {
  const up = depth === 0 ? '' : '../'.repeat(depth);
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    ${CSP_META}
    ${iconLink(up)}
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>${escapeHtml(title)}</title>
    <link rel="stylesheet" href="${up}assets/site.css">
${scripts.map((s) => `    <script type="module" src="${up}${s}"></script>`).join('\n')}
  </head>
  <body>
    <nav class="top"><a href="${up}index.html">gspec</a> <a href="${up}calendar/">Calendar v3</a> <a href="${up}searchads360/">Search Ads 360 v2</a> <a href="${up}guides/index.html">Guides</a> <a href="${up}try/index.html">Try it</a></nav>
${body}
  </body>
</html>
`;
}

/** Where `npm start` serves by default; the landing page shows its real origin once it knows it. */
const DEFAULT_ORIGIN = 'http://127.0.0.1:4010';
const LANDING_EXAMPLES: Record<string, string> = {
  calendar: '/colors',
  searchads360: '/agency/1/advertiser/2/idmapping',
};

function landingPage(
  apis: IndexEntry[],
  meta: Record<string, { summary?: string; operations: number }>,
  guides: Guide[],
): string {
  const cards = apis
    .map((api) => {
      const m = meta[api.id];
      return `      <li class="card">
        <h2><a href="${api.id}/">${escapeHtml(api.title)} <span class="version">${api.version}</span></a></h2>
        <p>${escapeHtml(m?.summary ?? '')}</p>
        <dl>
          <dt>Operations</dt><dd>${m?.operations ?? 0}</dd>
          <dt>Live base URL</dt><dd><code>${escapeHtml(api.server)}</code></dd>
          <dt>Mock base path</dt><dd><code>${escapeHtml(api.basePath)}</code></dd>
        </dl>
        <p class="links"><a href="${api.id}/">Reference</a> · <a href="try/index.html?api=${api.id}">Try it</a> · <a href="${api.id}/openapi.json" download>OpenAPI (JSON)</a></p>
      </li>`;
    })
    .join('\n');
  // One call per API, at its mock base path; assets/landing.js puts in the origin the page is served from.
  const examples = apis.map((api) => `${api.basePath}${LANDING_EXAMPLES[api.id] ?? '/'}`);
  const guideItems = guides
    .filter((g) => g.slug !== 'index')
    .map(
      (g) =>
        `        <li><a href="guides/${g.slug}.html">${escapeHtml(g.title)}</a>: ${g.summary
          .replace(/href="#/g, `href="guides/${g.slug}.html#`)
          .replace(/href="(?![a-z][\w+.-]*:|\/)/gi, 'href="guides/')}</li>`,
    )
    .join('\n');
  return page(
    'gspec API reference',
    0,
    `    <header>
      <h1>gspec API reference</h1>
      <p>Spec-first descriptions of two Google REST APIs, with typed clients, a local mock and contract tests made from the same OpenAPI documents.</p>
      <form class="search" role="search" id="search-form">
        <label for="search">Search operations, schemas and fields of both APIs</label>
        <input id="search" type="search" placeholder="for example iCalUID, conversionTimestamp, quickAdd" autocomplete="off">
      </form>
      <ol id="search-results" class="results" aria-live="polite"></ol>
    </header>
    <main>
      <ul class="apis">
${cards}
      </ul>
      <section>
        <h2>Guides</h2>
        <ul class="guides">
${guideItems}
        </ul>
      </section>
      <section id="try-locally">
        <h2>Try the APIs locally</h2>
        <p id="mock-origin-note">Started with <code>npm start</code>, the mock serves this portal and answers both APIs at their live base paths on <code>${DEFAULT_ORIGIN}</code> (or the port <code>PORT</code> names), for example:</p>
        <pre><code>${examples.map((e) => `curl -H 'Authorization: Bearer t' '<span data-origin>${DEFAULT_ORIGIN}</span>${escapeHtml(e)}'`).join('\n')}</code></pre>
        <p>The <a href="try/index.html">try-it console</a> sends requests to it from the browser.</p>
      </section>
    </main>`,
    ['assets/search.js', 'assets/landing.js'],
  );
}

function guidePage(guide: Guide, guides: Guide[]): string {
  const nav = guides
    .map(
      (g) =>
        `<li${g.slug === guide.slug ? ' aria-current="page"' : ''}><a href="${g.slug}.html">${escapeHtml(g.title)}</a></li>`,
    )
    .join('');
  return page(
    `${guide.title} · gspec guides`,
    1,
    `    <div class="guide">
      <aside><ul>${nav}</ul></aside>
      <main class="prose">
${guide.html}
      </main>
    </div>`,
  );
}

function tryPage(): string {
  return page(
    'Try it · gspec',
    1,
    `    <main class="try">
      <h1>Try it</h1>
      <p>Send a request to the local mock (or the emulator) and see its answer. Pick an operation, adjust the parameters and the body, and send.</p>
      <form id="try-form">
        <div class="row"><label for="try-api">API</label><select id="try-api"></select></div>
        <div class="row"><label for="try-op">Operation</label><select id="try-op"></select></div>
        <div class="row"><label for="try-target">Target origin</label><input id="try-target" type="url"></div>
        <div class="row"><label for="try-token">Bearer token</label><input id="try-token" value="test-token"></div>
        <p id="try-endpoint" class="endpoint"></p>
        <fieldset id="try-params"><legend>Parameters</legend></fieldset>
        <div class="row" id="try-body-row"><label for="try-body">Body (JSON)</label><textarea id="try-body" rows="14" spellcheck="false"></textarea></div>
        <button id="try-send" type="submit">Send</button>
      </form>
      <section id="try-answer" hidden>
        <h2>Answer <span id="try-status"></span></h2>
        <pre id="try-headers"></pre>
        <pre id="try-response"></pre>
      </section>
    </main>`,
    ['assets/try.js'],
  );
}

const SITE_CSS = `:root { color-scheme: light dark; font-family: system-ui, sans-serif; line-height: 1.5; }
[hidden] { display: none !important; }
body { margin: 0 auto; max-width: 70rem; padding: 0 2rem 2rem; }
nav.top { display: flex; gap: 1.25rem; padding: 0.9rem 0; border-bottom: 1px solid color-mix(in srgb, CanvasText 15%, transparent); margin-bottom: 1.5rem; }
nav.top a:first-child { font-weight: 700; margin-right: auto; }
header p { color: GrayText; }
.apis { list-style: none; padding: 0; display: grid; gap: 1.5rem; grid-template-columns: repeat(auto-fit, minmax(22rem, 1fr)); }
.card { border: 1px solid color-mix(in srgb, CanvasText 20%, transparent); border-radius: 0.75rem; padding: 1.25rem; }
.card h2 { margin-top: 0; font-size: 1.3rem; }
.version { font-size: 0.8rem; border-radius: 0.4rem; padding: 0.1rem 0.4rem; background: color-mix(in srgb, CanvasText 10%, transparent); }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 0.25rem 1rem; }
dt { color: GrayText; } dd { margin: 0; overflow-wrap: anywhere; }
code, pre { font-size: 0.9em; }
pre { overflow: auto; padding: 0.75rem; border-radius: 0.5rem; background: color-mix(in srgb, CanvasText 6%, transparent); }
.search label { display: block; font-weight: 600; margin-bottom: 0.25rem; }
.search input { width: 100%; max-width: 36rem; font-size: 1rem; padding: 0.5rem 0.75rem; }
.results { padding-left: 1.25rem; }
.results li { margin: 0.4rem 0; }
.results .meta { color: GrayText; font-size: 0.85em; }
.guide { display: grid; grid-template-columns: 16rem 1fr; gap: 2rem; }
.guide aside ul { list-style: none; padding: 0; position: sticky; top: 1rem; }
.guide aside li { margin: 0.3rem 0; }
.guide aside li[aria-current] a { font-weight: 700; }
.prose table { border-collapse: collapse; } .prose td, .prose th { border: 1px solid color-mix(in srgb, CanvasText 20%, transparent); padding: 0.3rem 0.6rem; }
.try .row { display: grid; grid-template-columns: 10rem 1fr; gap: 0.75rem; align-items: start; margin: 0.5rem 0; }
.try input, .try select, .try textarea { font: inherit; padding: 0.3rem 0.5rem; }
.try textarea { font-family: ui-monospace, monospace; }
.try fieldset { border: 1px solid color-mix(in srgb, CanvasText 20%, transparent); border-radius: 0.5rem; }
.try .endpoint { font-family: ui-monospace, monospace; }
.try button { font: inherit; padding: 0.4rem 1.2rem; }
@media (max-width: 50rem) { .guide { grid-template-columns: 1fr; } }
`;

function main(): void {
  const indexFile = path.join(specDir, 'apis.json');
  if (!existsSync(indexFile))
    throw new SpecError(`${indexFile} is missing; build @gspec/specs first (npm run build)`);
  const apis = JSON.parse(readFileSync(indexFile, 'utf8')) as IndexEntry[];
  const cliDir = path.dirname(require.resolve('@redocly/cli/package.json'));
  const rendererFile = path.join(cliDir, CLI_RENDERER);
  if (!existsSync(rendererFile))
    throw new SpecError(
      `@redocly/cli no longer ships the Redoc renderer at ${CLI_RENDERER}; update scripts/build-reference.ts`,
    );
  const renderer = readFileSync(rendererFile, 'utf8');
  const redocVersion = rendererVersion(renderer);
  const redoclyBin = path.join(cliDir, 'bin', 'cli.js');
  const work = mkdtempSync(path.join(tmpdir(), 'gspec-reference-'));

  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(path.join(outDir, 'assets'), { recursive: true });
  writeFileSync(path.join(outDir, 'assets', 'redoc.standalone.js'), localizeRenderer(renderer));
  writeFileSync(path.join(outDir, 'assets', 'site.css'), SITE_CSS);
  copyFileSync(FAVICON_SOURCE, path.join(outDir, 'favicon.svg'));

  const meta: Record<string, { summary?: string; operations: number }> = {};
  const search: SearchEntry[] = [];
  for (const api of apis) {
    const spec = JSON.parse(readFileSync(path.join(specDir, api.file), 'utf8')) as OpenApiDocument;
    const { doc: docsSpec, samples } = decorateForDocs(spec, api.id);
    const docsFile = path.join(work, `${api.id}.json`);
    writeFileSync(docsFile, JSON.stringify(docsSpec));
    const apiDir = path.join(outDir, api.id);
    mkdirSync(apiDir, { recursive: true });
    const pageFile = path.join(apiDir, 'index.html');
    try {
      execFileSync(
        process.execPath,
        [redoclyBin, 'build-docs', docsFile, '--output', pageFile, '--title', api.title],
        {
          cwd: repoRoot,
          stdio: ['ignore', 'pipe', 'pipe'],
          env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
        },
      );
    } catch (error) {
      const { stdout, stderr } = error as { stdout?: Buffer; stderr?: Buffer };
      throw new SpecError(`redocly build-docs ${api.name} failed:\n${stdout ?? ''}${stderr ?? ''}`);
    }
    const built = localizePage(readFileSync(pageFile, 'utf8'), redocVersion, '../assets');
    writeFileSync(pageFile, built.html);
    for (const [name, code] of Object.entries(built.scripts)) writeFileSync(path.join(apiDir, name), code);
    copyFileSync(path.join(specDir, api.file), path.join(apiDir, 'openapi.json'));
    writeFileSync(path.join(apiDir, 'code-samples.json'), `${JSON.stringify(samples, null, 2)}\n`);
    meta[api.id] = { summary: spec.info?.summary, operations: listOperations(spec).length };
    search.push(...searchEntries(spec, api));
    console.log(
      `reference ${api.name} -> packages/reference/dist/${api.id}/index.html (${meta[api.id]?.operations} operations)`,
    );
  }
  rmSync(work, { recursive: true, force: true });

  const guides = readGuides();
  if (guides.length > 0) {
    mkdirSync(path.join(outDir, 'guides'), { recursive: true });
    for (const guide of guides)
      writeFileSync(path.join(outDir, 'guides', `${guide.slug}.html`), guidePage(guide, guides));
  }
  mkdirSync(path.join(outDir, 'try'), { recursive: true });
  writeFileSync(path.join(outDir, 'try', 'index.html'), tryPage());
  writeFileSync(path.join(outDir, 'search-index.json'), JSON.stringify(search));
  writeFileSync(path.join(outDir, 'apis.json'), JSON.stringify(apis));
  writeFileSync(path.join(outDir, 'index.html'), landingPage(apis, meta, guides));
  console.log(`portal: ${guides.length} guides, ${search.length} search entries`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  try {
    main();
  } catch (error) {
    console.error(error instanceof SpecError ? error.message : error);
    process.exit(1);
  }
}
