/**
 * The emulator's root page and the inspector's page in a real browser (Debian's Chromium,
 * driven by playwright-core): each loads with no failed request, no answer of 400 or more and
 * no console error (a CSP violation is one), its icon included; and `/favicon.ico`, which a
 * browser asks for at any document it opens, is an image Chromium decodes.
 */
import { haveChromium, launchChromium } from '@gspec/scripts/chromium';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../src/core/server.ts';
import { createEmulator } from '../src/emulator.ts';

const haveBrowser = haveChromium();
/** Waits for conditions rather than racing a clock: a loaded machine is slow, not broken. */
const PATIENCE = 120_000;

let emulator: Emulator;
let origin: string;
let browser: Browser;

/** Everything that went wrong on `page`: failed requests, answers of 400 or more, console errors. */
function watch(page: Page): string[] {
  const problems: string[] = [];
  page.on('requestfailed', (request) => problems.push(`${request.url()}: ${request.failure()?.errorText}`));
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`${response.url()}: HTTP ${response.status()}`);
  });
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(String(error)));
  return problems;
}

/** The width of `src` once the page has loaded it as an image; -1 when it could not. */
const imageWidth = (page: Page, src: string) =>
  page.evaluate(
    (url) =>
      new Promise<number>((resolve) => {
        const image = new Image();
        image.onload = () => resolve(image.naturalWidth);
        image.onerror = () => resolve(-1);
        image.src = url;
      }),
    src,
  );

describe.runIf(haveBrowser)('the root and the inspector in a browser', () => {
  beforeAll(async () => {
    emulator = createEmulator();
    origin = await emulator.listen(0);
    browser = await launchChromium(chromium);
  });
  afterAll(async () => {
    await browser?.close();
    await emulator?.close();
  });

  it.each([
    ['the root', '/', 'gspec emulator'],
    ['the inspector', '/__emulator/ui/', 'gspec emulator inspector'],
  ])('%s loads with its icon, nothing failed', async (_name, path, title) => {
    const page = await browser.newPage();
    page.setDefaultTimeout(PATIENCE);
    const problems = watch(page);
    const icon = page.waitForResponse((response) => new URL(response.url()).pathname === '/favicon.svg');
    const response = await page.goto(`${origin}${path}`, { waitUntil: 'load' });
    expect(response?.status()).toBe(200);
    expect(await page.title()).toBe(title);
    expect((await icon).status()).toBe(200);
    expect(await imageWidth(page, '/favicon.ico')).toBe(32);
    await page.close();
    expect(problems).toEqual([]);
  });

  it('shows the base URL of each API on the root page', async () => {
    const page = await browser.newPage();
    await page.goto(`${origin}/`);
    const codes = await page.locator('li code').allInnerTexts();
    expect(codes).toEqual(
      expect.arrayContaining([`${origin}/calendar/v3`, `${origin}/doubleclicksearch/v2`]),
    );
    await page.close();
  });
});
