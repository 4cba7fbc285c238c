/**
 * The built reference in a real browser (Debian's Chromium, driven by playwright-core),
 * served by the mock exactly as `npm start` serves it, with every request to another host
 * blocked: the pages must load with no console error, ask no other host for anything, and
 * show every operation of both specs in their navigation.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { createGateway, type Gateway, loadApis } from '@gspec/mock';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const distDir = path.resolve(import.meta.dirname, '../dist');
const artefacts = path.resolve(import.meta.dirname, '../test-results');
const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const haveBrowser = existsSync(chromiumPath);
if (!haveBrowser && process.env.CI === 'true') {
  throw new Error(
    `Chromium is required under CI=true and was not found at ${chromiumPath} (install Debian's chromium, or set CHROMIUM_PATH)`,
  );
}
if (!haveBrowser)
  console.warn(
    `browser tests skipped: no Chromium at ${chromiumPath} (apt-get install chromium, or set CHROMIUM_PATH)`,
  );

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

let gateway: Gateway;
let origin: string;
let browser: Browser;

interface Visit {
  page: Page;
  external: string[];
  errors: string[];
}

async function visit(url: string): Promise<Visit> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const external: string[] = [];
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(String(error)));
  await page.route('**/*', (route) => {
    const target = new URL(route.request().url());
    if (target.origin === origin || target.protocol === 'data:') return route.continue();
    external.push(target.href);
    return route.abort();
  });
  await page.goto(url, { waitUntil: 'networkidle' });
  return { page, external, errors };
}

describe.skipIf(!haveBrowser)('the reference in a browser', () => {
  beforeAll(async () => {
    if (!existsSync(path.join(distDir, 'index.html')))
      throw new Error('packages/reference/dist is missing; run npm run build');
    mkdirSync(artefacts, { recursive: true });
    gateway = createGateway({ apis: await loadApis(), docsDir: distDir });
    origin = await gateway.listen(0);
    browser = await chromium.launch({
      executablePath: chromiumPath,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await gateway?.close();
  });

  it('presents both APIs on the landing page and links to their references', async () => {
    const { page, external, errors } = await visit(`${origin}/`);
    for (const api of apis) {
      await expect(
        page
          .getByRole('link', { name: new RegExp(api.title) })
          .first()
          .getAttribute('href'),
      ).resolves.toBe(`${api.id}/`);
    }
    await page.screenshot({ path: path.join(artefacts, 'landing.png'), fullPage: true });
    expect(external).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it.each(apis.map((api) => [api.title, api] as const))(
    'renders the %s reference offline with every operation in its navigation',
    async (_title, api) => {
      const { page, external, errors } = await visit(`${origin}/${api.id}/`);
      expect(await page.locator('h1').first().textContent()).toContain(api.title);
      // The navigation shows one group's operations at a time: open each group, note what it lists.
      const labels = page.locator('[data-testid=menu-item-label]');
      const seen = new Set<string>();
      for (const tag of new Set(api.operations.map((op) => op.tag))) {
        await labels
          .filter({ hasText: new RegExp(`^${tag}$`) })
          .first()
          .click();
        for (const text of await labels.allInnerTexts())
          seen.add(text.replace(/\s+(GET|POST|PUT|PATCH|DELETE)$/, '').trim());
      }
      const missing = api.operations.filter((op) => !seen.has(op.summary)).map((op) => op.operationId);
      expect(missing, 'operations not reachable from the navigation').toEqual([]);
      await page.screenshot({ path: path.join(artefacts, `${api.id}.png`) });
      expect(external, 'requests to other hosts').toEqual([]);
      expect(errors, 'console errors').toEqual([]);
      await page.close();
    },
  );
});
