/**
 * The portal in a real browser (Debian's Chromium, driven by playwright-core), served by the
 * mock as `npm start` serves it, with every request to another host blocked: pages load with
 * no console error (CSP violations included), ask no other host for anything, every operation
 * of both specs is in the navigation, search finds operations by field name, code samples are
 * shown, the try-it console gets an answer from the mock, and every link of every page opens
 * directly (as a crawler or a reload opens it). Screenshots go to test-results/.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { createGateway, type Gateway, loadApis } from '@gspec/mock';
import { haveChromium, launchChromium } from '@gspec/scripts/chromium';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const distDir = path.resolve(import.meta.dirname, '../dist');
const artefacts = path.resolve(import.meta.dirname, '../test-results');
const haveBrowser = haveChromium();

const require = createRequire(import.meta.url);
const specDir = path.dirname(require.resolve('@gspec/specs/apis.json'));
const apis = (
  JSON.parse(readFileSync(path.join(specDir, 'apis.json'), 'utf8')) as {
    id: string;
    title: string;
    file: string;
  }[]
).map((api) => {
  const doc = JSON.parse(readFileSync(path.join(specDir, api.file), 'utf8'));
  const operations: { tag: string; summary: string; operationId: string }[] = [];
  for (const item of Object.values<Record<string, { tags?: string[]; summary: string; operationId: string }>>(
    doc.paths,
  )) {
    for (const method of ['get', 'put', 'post', 'delete', 'patch']) {
      const op = item[method];
      if (op) operations.push({ tag: op.tags?.[0] ?? '', summary: op.summary, operationId: op.operationId });
    }
  }
  return { ...api, operations };
});
const guides = readdirSync(path.join(distDir, 'guides')).filter((f) => f.endsWith('.html'));

let gateway: Gateway;
let origin: string;
let browser: Browser;
/**
 * One browser context for every page of the file: each check still opens pages of its own, with
 * its own request and console watch, but a context per page cost Chromium a new profile each
 * time (221 s of CPU for the file alone, against 135 s with one).
 */
let context: BrowserContext;

interface Visit {
  page: Page;
  external: string[];
  errors: string[];
}

/** Waits for conditions rather than racing a clock: a loaded machine is slow, not broken. */
const PATIENCE = 120_000;

async function visit(url: string): Promise<Visit> {
  const page = await context.newPage();
  const external: string[] = [];
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(String(error)));
  await page.route('**/*', (route) => {
    const target = new URL(route.request().url());
    if (target.origin === origin) return route.continue();
    external.push(target.href);
    return route.abort();
  });
  page.setDefaultTimeout(PATIENCE);
  page.setDefaultNavigationTimeout(PATIENCE);
  const response = await page.goto(url, { waitUntil: 'networkidle' });
  if (response?.status() !== 200) errors.push(`${url} answered HTTP ${response?.status() ?? 'nothing'}`);
  return { page, external, errors };
}

async function finish({ page, external, errors }: Visit, screenshot?: string): Promise<void> {
  if (screenshot) await page.screenshot({ path: path.join(artefacts, screenshot) });
  await page.close();
  expect(external, 'requests to other hosts').toEqual([]);
  expect(errors, 'console errors').toEqual([]);
}

describe.skipIf(!haveBrowser)('the portal in a browser', () => {
  beforeAll(async () => {
    if (!existsSync(path.join(distDir, 'index.html')))
      throw new Error('packages/reference/dist is missing; run npm run build');
    mkdirSync(artefacts, { recursive: true });
    gateway = createGateway({ apis: await loadApis(), docsDir: distDir });
    origin = await gateway.listen(0);
    browser = await launchChromium(chromium);
    context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  });
  afterAll(async () => {
    await browser?.close();
    await gateway?.close();
  });

  it('presents both APIs and the guides on the landing page', async () => {
    const visit_ = await visit(`${origin}/`);
    for (const api of apis) {
      expect(
        await visit_.page
          .getByRole('link', { name: new RegExp(api.title) })
          .first()
          .getAttribute('href'),
      ).toBe(`${api.id}/`);
    }
    expect(await visit_.page.locator('a[href^="guides/"]').count()).toBeGreaterThan(0);
    await visit_.page.screenshot({ path: path.join(artefacts, 'landing.png'), fullPage: true });
    await finish(visit_);
  });

  it.concurrent('shows curl commands for the origin the portal is served from, not the default port', async () => {
    expect(new URL(origin).port, 'the test serves on a port other than the default').not.toBe('4010');
    const v = await visit(`${origin}/`);
    await v.page.locator('#mock-origin-note[data-served=mock]').waitFor();
    const commands = (await v.page.locator('#try-locally pre').innerText()).trim().split('\n');
    expect(commands).toEqual([
      `curl -H 'Authorization: Bearer t' '${origin}/calendar/v3/colors'`,
      `curl -H 'Authorization: Bearer t' '${origin}/doubleclicksearch/v2/agency/1/advertiser/2/idmapping'`,
    ]);
    expect(await v.page.locator('#mock-origin-note').innerText()).toContain(origin);
    expect(await v.page.locator('#try-locally').innerText()).not.toContain('4010');
    await finish(v);
  });

  it.concurrent('renders the Markdown of the guide summaries on the landing page', async () => {
    const v = await visit(`${origin}/`);
    const items = v.page.locator('ul.guides li');
    const texts = await items.allInnerTexts();
    expect(texts).toHaveLength(guides.filter((g) => g !== 'index.html').length);
    for (const text of texts) expect(text, 'raw Markdown in a summary').not.toMatch(/`|\*\*|\]\(/);
    const batches = items.filter({ hasText: 'Conversion batches' });
    expect(await batches.locator('code').allInnerTexts()).toEqual([
      'conversion.insert',
      'conversion.update',
      'conversion.updateAvailability',
    ]);
    await finish(v);
  });

  it.each(apis.map((api) => [api.title, api] as const))(
    'renders the %s reference offline with every operation in its navigation',
    async (_title, api) => {
      const v = await visit(`${origin}/${api.id}/`);
      expect(await v.page.locator('h1').first().textContent()).toContain(api.title);
      // The navigation shows one group's operations at a time: open each group, note what it lists.
      const labels = v.page.locator('[data-testid=menu-item-label]');
      const seen = new Set<string>();
      const read = async () => {
        for (const text of await labels.allInnerTexts())
          seen.add(text.replace(/\s+(GET|POST|PUT|PATCH|DELETE)$/, '').trim());
      };
      for (const tag of new Set(api.operations.map((op) => op.tag))) {
        const group = labels.filter({ hasText: new RegExp(`^${tag}$`) }).first();
        // A click toggles the group. It may already be open (the page opens the group it scrolled
        // to), and a click made before the page took over its navigation does nothing; so what
        // the navigation shows is read before the click too, and the group is clicked again
        // every few seconds until its operations have been seen (or a minute has passed; the
        // check below then names what is missing). Every read adds to what was seen.
        const wanted = api.operations.filter((op) => op.tag === tag).map((op) => op.summary);
        await read();
        const until = Date.now() + 60_000;
        let clicked = 0;
        for (;;) {
          if (wanted.every((summary) => seen.has(summary)) || Date.now() > until) break;
          if (Date.now() - clicked > 5_000) {
            await group.click();
            clicked = Date.now();
          }
          await new Promise((resolve) => setTimeout(resolve, 100));
          await read();
        }
      }
      const missing = api.operations.filter((op) => !seen.has(op.summary)).map((op) => op.operationId);
      expect(missing, 'operations not reachable from the navigation').toEqual([]);
      await finish(v, `${api.id}.png`);
    },
  );

  it.concurrent('shows an operation with its quota cost, scopes, try-it link and code samples', async () => {
    const v = await visit(`${origin}/calendar/#/events/events.patch`);
    const text = await v.page.locator('body').innerText();
    expect(text).toContain('Quota cost: 3 units per call.');
    expect(text).toContain('https://www.googleapis.com/auth/calendar.events');
    // Redoc renders the operations around the one navigated to too, so the link is found by
    // the operation it opens rather than by its place on the page.
    const tryIt = v.page.getByRole('link', { name: 'Try it against the local mock' });
    const targets = await tryIt.evaluateAll((links) => links.map((link) => link.getAttribute('href')));
    expect(targets).toContain('../try/?api=calendar&op=events.patch');
    expect(text).toContain('curl -X PATCH');
    await finish(v, 'operation.png');
  });

  it.concurrent.each([
    ['iCalUID', ['events.list', 'events.import']],
    ['conversionTimestamp', ['conversion.insert', 'conversion.update']],
    ['quickAdd', ['events.quickAdd']],
  ])('finds the operations that use %s, across both APIs', async (query, expected) => {
    const v = await visit(`${origin}/`);
    await v.page.fill('#search', query);
    const results = v.page.locator('#search-results li[data-kind=operation]');
    await results.first().waitFor();
    const names = await results.evaluateAll((items) => items.map((item) => item.getAttribute('data-name')));
    for (const name of expected) expect(names).toContain(name);
    await finish(v);
  });

  it.concurrent('takes a search result to the operation in the reference', async () => {
    const v = await visit(`${origin}/`);
    await v.page.fill('#search', 'events.quickAdd');
    await v.page.locator('#search-results li[data-name="events.quickAdd"] a').click();
    await v.page.waitForURL(/\/calendar\/#\/events\/events\.quickadd$/);
    await v.page.getByText('Create an event from a line of text', { exact: true }).first().waitFor();
    await finish(v);
  });

  it.concurrent.each([
    ['calendar', 'colors.get', '200', 'calendar#colors'],
    ['calendar', 'events.insert', '200', 'calendar#event'],
    ['searchads360', 'reports.getIdMappingFile', '200', 'Entity type,'],
  ])('sends %s %s from the try-it console and shows the answer', async (api, op, status, body) => {
    const v = await visit(`${origin}/try/index.html?api=${api}&op=${op}`);
    await v.page.locator('body[data-ready=true]').waitFor();
    await v.page.click('#try-send');
    await v.page.locator('#try-status[data-status]').waitFor();
    expect(await v.page.locator('#try-status').getAttribute('data-status')).toBe(status);
    expect(await v.page.locator('#try-response').textContent()).toContain(body);
    await finish(v, op === 'events.insert' ? 'try-it.png' : undefined);
  });

  it.concurrent.each(guides)('renders the guide %s', async (guide) => {
    const v = await visit(`${origin}/guides/${guide}`);
    expect((await v.page.locator('main h1').first().textContent())?.length).toBeGreaterThan(3);
    await finish(v);
  });

  // A browser asks for /favicon.ico at any document it opens, a JSON spec file included: the
  // mock serves the icon (server-kit's favicon.ts), an image Chromium decodes, so nothing fails.
  it.each(['/calendar/openapi.json', '/'])(
    'opens %s with no failed request, no answer of 400 or more, and its icon',
    async (where) => {
      const page = await context.newPage();
      page.setDefaultTimeout(PATIENCE);
      const problems: string[] = [];
      page.on('requestfailed', (r) => problems.push(`${r.url()}: ${r.failure()?.errorText}`));
      page.on('response', (r) => {
        if (r.status() >= 400) problems.push(`${r.url()}: HTTP ${r.status()}`);
      });
      page.on('console', (m) => {
        if (m.type() === 'error') problems.push(m.text());
      });
      const response = await page.goto(`${origin}${where}`, { waitUntil: 'load' });
      expect(response?.status()).toBe(200);
      const widths = await page.evaluate(
        (sources) =>
          Promise.all(
            sources.map(
              (src) =>
                new Promise<number>((resolve) => {
                  const image = new Image();
                  image.onload = () => resolve(image.naturalWidth);
                  image.onerror = () => resolve(-1);
                  image.src = src;
                }),
            ),
          ),
        ['/favicon.ico', '/favicon.svg'],
      );
      expect(widths).toEqual([32, expect.any(Number)]);
      expect(widths[1]).toBeGreaterThan(0);
      await page.close();
      expect(problems).toEqual([]);
    },
  );

  // Every same-origin link of every page (and its icon): fetched directly as a crawler does
  // (200, a body), and an HTML target opened in the browser, where it must render what its
  // address asks for. A link already checked from an earlier page is not checked again.
  //
  // The references' menu links are hash routes of one document (/calendar/#/acl, ...). Each
  // document is opened directly once, with the first of its routes; its other routes are then
  // taken in the same page, as its router takes them. Between two routes the page goes to a
  // route that does not exist and shows Redoc's not-found page, and the next route must make
  // that page go away: so a section still shown from the route before can never pass for the
  // next one. (A fresh page per route proved the same and took minutes longer.)
  // These tests run side by side (each in pages of its own); a link is claimed by the first
  // test to find it, which checks it.
  const opened = new Set<string>();
  it.concurrent.each([
    '/',
    ...apis.map((api) => `/${api.id}/`),
    ...guides.map((g) => `/guides/${g}`),
    '/try/index.html',
  ])('opens every link of %s directly', async (startPath) => {
    const start = await visit(`${origin}${startPath}`);
    await rendered(start.page);
    const links = await start.page.evaluate(() =>
      [...document.querySelectorAll<HTMLAnchorElement | HTMLLinkElement>('a[href], link[rel~=icon]')].map(
        (a) => a.href,
      ),
    );
    await finish(start);
    const targets = [...new Set(links)].filter(
      (href) => new URL(href).origin === origin && !opened.has(href),
    );
    for (const href of targets) opened.add(href);
    expect(targets.length + links.length).toBeGreaterThan(0);
    const routes = new Map<string, string[]>(); // a reference document -> its hash routes to take
    for (const href of targets) {
      const response = await fetch(href);
      const type = response.headers.get('content-type') ?? '';
      const body = await response.arrayBuffer();
      expect(response.status, `${href} (linked from ${startPath})`).toBe(200);
      expect(body.byteLength, `${href} is empty`).toBeGreaterThan(0);
      if (!type.startsWith('text/html')) continue;
      const url = new URL(href);
      if (url.hash.startsWith('#/')) {
        const document = href.slice(0, href.length - url.hash.length);
        routes.set(document, [...(routes.get(document) ?? []), url.hash]);
        continue;
      }
      const v = await visit(href);
      await rendered(v.page, `linked from ${startPath}`);
      await finish(v);
    }
    // A reference's routes are taken in a few pages side by side, each opened directly with the
    // first route of its share: the same checks, with the waits for rendering overlapped.
    const shares = [...routes].flatMap(([document, hashes]) =>
      split(hashes, Math.min(3, Math.ceil(hashes.length / 10))).map((share) => [document, share] as const),
    );
    const outcomes = await Promise.allSettled(
      shares.map(async ([document, [first, ...rest]]) => {
        const v = await visit(`${document}${first}`);
        await rendered(v.page, `linked from ${startPath}`);
        for (const hash of rest) {
          await routeTo(v.page, '#/--no-such-route--');
          await v.page.locator('.not-found-page').waitFor();
          await routeTo(v.page, hash);
          await v.page
            .locator('.not-found-page')
            .waitFor({ state: 'detached' })
            .catch(() => {
              throw new Error(
                `${document}${hash} (linked from ${startPath}) shows Redoc's page for an unknown route`,
              );
            });
          await rendered(v.page, `linked from ${startPath}`);
        }
        await finish(v);
      }),
    );
    const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
    if (failed) throw failed.reason;
  });
});

/** `items` in `parts` shares of about equal size, in order (at least one share). */
function split<T>(items: T[], parts: number): T[][] {
  const size = Math.ceil(items.length / Math.max(1, parts));
  const shares: T[][] = [];
  for (let i = 0; i < items.length; i += size) shares.push(items.slice(i, i + size));
  return shares;
}

/** Takes a hash route in the page, as a click on an in-page link does. */
async function routeTo(page: Page, hash: string): Promise<void> {
  await page.evaluate((target) => {
    window.location.hash = target;
  }, hash);
}

/**
 * Waits until a page has rendered what its address asks for and checks it: a reference shows
 * the section its hash route names (not Redoc's "No page at this address"), a portal page its
 * heading and the element its fragment names.
 */
async function rendered(page: Page, context = ''): Promise<void> {
  const url = new URL(page.url());
  const where = `${url.href}${context ? ` (${context})` : ''}`;
  if ((await page.locator('#redoc').count()) > 0) {
    await page.locator('.not-found-page, [data-testid=menu-item-label][data-active=true]').first().waitFor();
    expect(
      await page.locator('.not-found-page').count(),
      `${where} shows Redoc's page for an unknown route`,
    ).toBe(0);
    // The section is drawn in steps after the route is taken: wait until it has text.
    await page.waitForFunction(
      () => (document.querySelector('.api-content')?.textContent ?? '').trim() !== '',
    );
    return;
  }
  await page.locator('h1').first().waitFor();
  expect((await page.locator('h1').first().innerText()).trim(), where).not.toBe('');
  const fragment = decodeURIComponent(url.hash.slice(1));
  if (fragment) expect(await page.locator(`[id="${fragment}"]`).count(), `${where}: no #${fragment}`).toBe(1);
}
