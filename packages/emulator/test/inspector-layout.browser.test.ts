/**
 * The web inspector's first screen and its layout, in Debian's Chromium (playwright-core),
 * served by an in-process emulator with the built script (dist/ui/app.js).
 *
 * - The Calendar view opens, with no interaction, on the user a person wants (the only one,
 *   else the one of the journal's latest request, else the first), that user's primary
 *   calendar and this week in the emulator's clock (the browser's clock is set years away),
 *   and keeps that place in the address.
 * - At 1280, 1400 and 1920 px: a screenshot of each view goes to reports/screenshots/; in the
 *   Requests view (about 30 requests, refusals with long messages among them) no element of
 *   the tab bar, the table's header cells and rows, and the detail pane overlaps another that
 *   is not its ancestor or descendant, every row is one line high, a selected row too.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { haveChromium, launchChromium } from '@gspec/scripts/chromium';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applySeed } from '../src/core/seed.ts';
import type { Emulator } from '../src/core/server.ts';
import { createEmulator, parseSeed } from '../src/emulator.ts';

const screenshots = path.resolve(import.meta.dirname, '../reports/screenshots');
const haveBrowser = haveChromium();

/** Waits for conditions rather than racing a clock: a loaded machine is slow, not broken. */
const PATIENCE = 120_000;
const ANA = 'ana@example.com';
const BO = 'bo@example.com';
/** The browser's clock in the Calendar tests: far from the emulator's, which the view must use. */
const BROWSER_TIME = new Date('2001-02-03T04:05:06Z');

let browser: Browser;
const tokenOf = (email: string) => `token-${email.split('@')[0]}`;
const opened: Emulator[] = [];

async function start(users: string[]): Promise<{ emulator: Emulator; origin: string }> {
  const emulator = createEmulator({
    users: Object.fromEntries(users.map((email) => [tokenOf(email), email])),
  });
  opened.push(emulator);
  applySeed(emulator, parseSeed({ users: users.map((email) => ({ email })) }));
  return { emulator, origin: await emulator.listen(0) };
}

/** A page of the inspector at `origin`, every request to another host refused and recorded. */
async function open(origin: string, width: number, hash: string, clock?: Date) {
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(String(error)));
  await page.route('**/*', (route) => {
    const target = new URL(route.request().url());
    if (target.origin === origin) return route.continue();
    problems.push(`request to another host: ${target.href}`);
    return route.abort();
  });
  page.setDefaultTimeout(PATIENCE);
  if (clock) await page.clock.setFixedTime(clock);
  await page.goto(`${origin}/__emulator/ui/${hash}`);
  await page.locator('#live.on').waitFor();
  return { page, problems };
}

/** The Monday (YYYY-MM-DD) of the week of `ms` in `timeZone`. */
function mondayOf(ms: number, timeZone: string): string {
  const day = new Date(`${new Intl.DateTimeFormat('en-CA', { timeZone }).format(ms)}T00:00:00Z`);
  day.setUTCDate(day.getUTCDate() - ((day.getUTCDay() + 6) % 7));
  return day.toISOString().slice(0, 10);
}

describe.skipIf(!haveBrowser)('the inspector opens on what a person wants, and fits the screen', () => {
  beforeAll(async () => {
    mkdirSync(screenshots, { recursive: true });
    browser = await launchChromium(chromium);
  });
  afterAll(async () => {
    await browser?.close();
    for (const emulator of opened) await emulator.close();
  });

  it.each([
    { case: 'the only user, who inserted the event', users: [ANA], writer: ANA, through: 'api' },
    { case: "the latest request's user, not the first", users: [ANA, BO], writer: BO, through: 'api' },
    { case: 'the first user when no request names one', users: [ANA, BO], writer: ANA, through: 'seed' },
  ])(
    'the Calendar view opens on $case, the primary calendar and this week',
    async ({ case: name, users, writer, through }) => {
      const { emulator, origin } = await start(users);
      const summary = `Planning ${writer} ${Math.random().toString(36).slice(2, 8)}`;
      // The event starts at the emulator's now, the clock it runs on (this process's).
      const now = Date.now();
      const event = {
        summary,
        start: { dateTime: new Date(now).toISOString() },
        end: { dateTime: new Date(now + 3_600_000).toISOString() },
      };
      if (through === 'api') {
        const token = tokenOf(writer);
        const answer = await fetch(`${origin}/calendar/v3/calendars/primary/events`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(event),
        });
        expect(answer.status, await answer.text()).toBe(200);
      } else {
        applySeed(emulator, parseSeed({ calendars: [{ id: 'primary', owner: writer, events: [event] }] }));
      }
      const { page, problems } = await open(origin, 1400, '#/calendar', BROWSER_TIME);
      // No click, no choice: once the view is drawn, the event is on screen.
      await page.locator('body[data-rendered]').waitFor({ state: 'attached' });
      expect(await page.getByText(summary).first().isVisible(), `${summary} on screen`).toBe(true);
      expect(await page.locator('#user').inputValue()).toBe(writer);
      expect(await page.locator('#calendar-list tr.selected').getAttribute('data-calendar')).toBe(writer);
      const primary = await fetch(`${origin}/calendar/v3/calendars/primary`, {
        headers: { authorization: `Bearer ${tokenOf(writer)}` },
      });
      const week = mondayOf(now, ((await primary.json()) as { timeZone: string }).timeZone);
      expect(await page.locator('#week-title').innerText()).toContain(`Week of ${week}`);
      // The place is in the address: a reload keeps it, and so does going back from another user.
      const place = `#/calendar/${encodeURIComponent(writer)}/${encodeURIComponent(writer)}/${week}`;
      expect(new URL(page.url()).hash).toBe(place);
      await page.screenshot({ path: path.join(screenshots, `calendar-opens-${name.split(' ')[1]}.png`) });
      await page.reload();
      await page.getByText(summary).first().waitFor({ state: 'visible' });
      if (users.length > 1) {
        const other = users.find((user) => user !== writer) as string;
        await page.locator('#user').selectOption(other);
        await page.locator('#calendar-list tr.selected', { hasText: other }).waitFor();
        expect(await page.getByText(summary).count()).toBe(0);
        await page.goBack();
        await page.getByText(summary).first().waitFor({ state: 'visible' });
        expect(new URL(page.url()).hash).toBe(place);
      }
      await page.close();
      expect(problems).toEqual([]);
    },
  );

  describe('at 1280, 1400 and 1920 px', () => {
    let origin: string;
    let erroredId: string;
    /** The longest error message of the journal. */
    let longest = '';

    beforeAll(async () => {
      ({ origin } = await start([ANA]));
      const headers = { authorization: 'Bearer token-ana', 'content-type': 'application/json' };
      const base = `${origin}/calendar/v3`;
      // About 30 requests: reads, writes, and refusals with long messages and long paths.
      for (let i = 0; i < 10; i++) {
        await fetch(`${base}/users/me/calendarList`, { headers });
        const missing = `a-calendar-with-a-rather-long-name-that-does-not-exist-${i}@group.calendar.google.com`;
        await fetch(`${base}/calendars/${encodeURIComponent(missing)}/events?maxResults=${i + 1}`, {
          headers,
        });
        await fetch(`${base}/calendars/primary/events`, {
          method: 'POST',
          headers,
          body: JSON.stringify({
            summary: `Broken ${i}`,
            start: { dateTime: `not a time, and a long way from being one: ${'x'.repeat(80 + i)}` },
            end: { dateTime: '2027-03-22T10:00:00Z' },
          }),
        });
      }
      const journal = (await (await fetch(`${origin}/__emulator/journal`)).json()) as {
        entries: { id: number; error?: { reason?: string; message?: string } }[];
      };
      expect(journal.entries.length).toBeGreaterThanOrEqual(30);
      for (const entry of journal.entries) {
        const message = entry.error?.message ?? '';
        if (message.length > longest.length) {
          longest = message;
          erroredId = String(entry.id);
        }
      }
      // Long enough to wrap many times in its column if nothing cut it.
      expect(longest.length).toBeGreaterThan(120);
    });

    /**
     * The boxes of the checked regions (tab bar, header cells, rows, detail pane) that overlap
     * one that is neither its ancestor nor its descendant, and those that leave the viewport's
     * width (beyond it they would overlap what scrolls there).
     */
    const overlaps = (page: Page) =>
      page.evaluate(() => {
        const selectors = [
          'header strong',
          'nav a',
          '#live',
          '#journal th',
          '#journal tbody tr',
          '#request-detail',
        ];
        const elements = selectors.flatMap((selector) => [...document.querySelectorAll(selector)]);
        const name = (element: Element) =>
          `${element.tagName.toLowerCase()}${element.id ? `#${element.id}` : ''}[${(element.textContent ?? '').trim().slice(0, 30)}]`;
        const found: string[] = [];
        const boxes = elements.map((element) => element.getBoundingClientRect());
        const width = document.documentElement.clientWidth;
        elements.forEach((element, i) => {
          const a = boxes[i] as DOMRect;
          if (a.width === 0 || a.height === 0) return;
          if (a.right > width + 0.5) found.push(`${name(element)} ends at ${a.right} px, past ${width}`);
          for (let j = i + 1; j < elements.length; j++) {
            const other = elements[j] as Element;
            const b = boxes[j] as DOMRect;
            if (b.width === 0 || b.height === 0) continue;
            if (element.contains(other) || other.contains(element)) continue;
            const x = Math.min(a.right, b.right) - Math.max(a.left, b.left);
            const y = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
            if (x > 0.5 && y > 0.5) found.push(`${name(element)} overlaps ${name(other)}`);
          }
        });
        return found;
      });

    const rowHeights = (page: Page) =>
      page
        .locator('#journal tbody tr')
        .evaluateAll((rows) => rows.map((row) => Math.round(row.getBoundingClientRect().height * 10) / 10));

    it.each([1280, 1400, 1920])(
      'at %i px: each view in a screenshot; the Requests view without overlaps, one line a row',
      async (width) => {
        const { page, problems } = await open(origin, width, '#/requests');
        const rows = page.locator('#journal tbody tr');
        await expect.poll(() => rows.count(), { timeout: PATIENCE }).toBeGreaterThanOrEqual(30);
        await page.screenshot({ path: path.join(screenshots, `requests-${width}.png`) });
        expect(await overlaps(page)).toEqual([]);
        // The headings are whole: only cells are cut.
        const cutHeadings = await page
          .locator('#journal th')
          .evaluateAll((cells) =>
            cells.filter((th) => th.scrollWidth > th.clientWidth).map((th) => th.textContent),
          );
        expect(cutHeadings).toEqual([]);
        // One line each: all the same height, no taller than the header row (one line too).
        const lineHeight = await page
          .locator('#journal tbody td')
          .first()
          .evaluate((cell) => Number.parseFloat(getComputedStyle(cell).lineHeight));
        const heights = await rowHeights(page);
        expect(new Set(heights).size, `row heights ${heights.join(', ')}`).toBe(1);
        expect(heights[0]).toBeLessThan(2 * lineHeight);

        // The request with the longest error: its cell keeps the full text in its title, the
        // pane shows it whole; the selected row is as high as the others.
        const row = page.locator(`#journal tbody tr[data-id="${erroredId}"]`);
        const errorCell = row.locator('td').last();
        expect(await errorCell.getAttribute('title')).toContain(longest);
        await row.click();
        await page.locator('#request-error').waitFor();
        await page.locator(`#journal tbody tr.selected[data-id="${erroredId}"]`).waitFor();
        expect(await page.locator('#request-error').innerText()).toContain(longest);
        await page.screenshot({ path: path.join(screenshots, `requests-${width}-selected.png`) });
        expect(await overlaps(page)).toEqual([]);
        const selected = await rowHeights(page);
        expect(new Set(selected).size, `row heights with one selected ${selected.join(', ')}`).toBe(1);
        expect(selected[0]).toBe(heights[0]);

        // The other views, as they open from the tab bar.
        for (const view of ['calendar', 'searchads360', 'notifications', 'control']) {
          const before = await page.evaluate(() => document.body.dataset.rendered);
          await page.locator(`nav a[data-view="${view}"]`).click();
          await page.waitForFunction(
            ([name, earlier]) =>
              document.body.dataset.view === name && document.body.dataset.rendered !== earlier,
            [view, before],
          );
          await page.screenshot({ path: path.join(screenshots, `${view}-${width}.png`) });
        }
        await page.close();
        expect(problems).toEqual([]);
      },
    );
  });
});
