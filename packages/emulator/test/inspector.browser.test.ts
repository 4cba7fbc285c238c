/**
 * The web inspector (/__emulator/ui/) in a real browser (Debian's Chromium, driven by
 * playwright-core), served by an in-process emulator with the built script (dist/ui/app.js),
 * every request to another host blocked: the week view puts seeded events in their slots in
 * the calendar's zone (a DST week, an all-day event on top, a recurring event expanded), a
 * client's request shows in the journal with its status and its refusal, a watch delivery with
 * its headers, and reset empties the views; no console error, no request to another host.
 * Screenshots of each view go to test-results/.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import path from 'node:path';
import { haveChromium, launchChromium } from '@gspec/scripts/chromium';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applySeed } from '../src/core/seed.ts';
import type { Emulator } from '../src/core/server.ts';
import { createEmulator, parseSeed } from '../src/emulator.ts';

const artefacts = path.resolve(import.meta.dirname, '../test-results');
const script = path.resolve(import.meta.dirname, '../dist/ui/app.js');
const haveBrowser = haveChromium();

/** Waits for conditions rather than racing a clock: a loaded machine is slow, not broken. */
const PATIENCE = 120_000;
const ANA = 'ana@example.com';
const TEAM = 'team@group.calendar.google.com';

const SEED = {
  users: [{ email: ANA, tokens: ['token-ana'], settings: { timezone: 'Europe/Zurich' } }],
  calendars: [
    {
      id: TEAM,
      owner: ANA,
      summary: 'Team',
      timeZone: 'Europe/Zurich',
      events: [
        // Daily at 09:00 Zurich time across the switch to summer time (Sunday 2027-03-28).
        {
          id: 'standup0001',
          summary: 'Standup',
          start: { dateTime: '2027-03-22T09:00:00', timeZone: 'Europe/Zurich' },
          end: { dateTime: '2027-03-22T09:15:00', timeZone: 'Europe/Zurich' },
          recurrence: ['RRULE:FREQ=DAILY;COUNT=10'],
        },
        // 08:00 UTC on the Monday after the switch is 10:00 in Zurich (UTC+2).
        {
          id: 'revue0001',
          summary: 'Review',
          start: { dateTime: '2027-03-29T08:00:00Z' },
          end: { dateTime: '2027-03-29T09:00:00Z' },
        },
        { id: 'offsite0001', summary: 'Offsite', start: { date: '2027-03-24' }, end: { date: '2027-03-26' } },
      ],
    },
  ],
};

let emulator: Emulator;
let origin: string;
let browser: Browser;
let receiver: Server;
let receiverUrl: string;
const received: IncomingHttpHeaders[] = [];

interface Visit {
  page: Page;
  external: string[];
  errors: string[];
}

async function visit(hash: string): Promise<Visit> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const external: string[] = [];
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(String(error)));
  page.on('dialog', (dialog) => void dialog.accept());
  await page.route('**/*', (route) => {
    const target = new URL(route.request().url());
    if (target.origin === origin) return route.continue();
    external.push(target.href);
    return route.abort();
  });
  page.setDefaultTimeout(PATIENCE);
  page.setDefaultNavigationTimeout(PATIENCE);
  const response = await page.goto(`${origin}/__emulator/ui/${hash}`);
  if (response?.status() !== 200)
    errors.push(`the inspector answered HTTP ${response?.status() ?? 'nothing'}`);
  await page.locator('#live.on').waitFor();
  return { page, external, errors };
}

async function finish({ page, external, errors }: Visit, screenshot: string): Promise<void> {
  await page.screenshot({ path: path.join(artefacts, screenshot), fullPage: true });
  await page.close();
  expect(external, 'requests to other hosts').toEqual([]);
  expect(errors, 'console errors').toEqual([]);
}

const box = async (page: Page, selector: string) => {
  const found = await page.locator(selector).first().boundingBox();
  if (!found) throw new Error(`${selector} is not shown`);
  return found;
};

describe.skipIf(!haveBrowser)('the inspector in a browser', () => {
  beforeAll(async () => {
    if (!existsSync(script)) throw new Error(`${script} is missing; run npm run build`);
    mkdirSync(artefacts, { recursive: true });
    receiver = createServer((request, response) => {
      received.push(request.headers);
      response.writeHead(200).end();
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
    emulator = createEmulator({ users: { 'token-ana': ANA } });
    origin = await emulator.listen(0);
    browser = await launchChromium(chromium);
  });
  afterAll(async () => {
    await browser?.close();
    await emulator?.close();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  it('shows a week in the calendar zone: a DST week, recurring instances, an all-day event on top', async () => {
    applySeed(emulator, parseSeed(SEED));
    const v = await visit(`#/calendar/${encodeURIComponent(ANA)}/${encodeURIComponent(TEAM)}/2027-03-22`);
    const { page } = v;
    await page.locator('#week-title', { hasText: 'Week of 2027-03-22 in Europe/Zurich' }).waitFor();
    // Seven standups, each at 09:00 local, before and after the switch to summer time.
    const standups = page.locator('[data-event-id^="standup0001_"]');
    await expect.poll(() => standups.count(), { timeout: PATIENCE }).toBe(7);
    expect(await standups.evaluateAll((list) => list.map((e) => e.getAttribute('data-start')))).toEqual(
      Array(7).fill('09:00'),
    );
    expect(await standups.evaluateAll((list) => list.map((e) => e.getAttribute('data-day')))).toEqual([
      '2027-03-22',
      '2027-03-23',
      '2027-03-24',
      '2027-03-25',
      '2027-03-26',
      '2027-03-27',
      '2027-03-28',
    ]);
    // Drawn at the 09:00 line of their day, the Sunday of the switch included.
    const nine = await box(page, '.hour[data-hour="9"]');
    for (const day of ['2027-03-27', '2027-03-28']) {
      const event = await box(page, `[data-event-id^="standup0001_"][data-day="${day}"]`);
      const column = await box(page, `.day[data-day="${day}"]`);
      expect(Math.abs(event.y - (nine.y + nine.height / 2))).toBeLessThan(3);
      expect(event.x).toBeGreaterThanOrEqual(column.x);
      expect(event.x).toBeLessThan(column.x + column.width);
    }
    // The all-day event is on top, over its two days; nothing of the next week shows.
    const offsite = await box(page, '[data-event-id="offsite0001"]');
    const grid = await box(page, '.day[data-day="2027-03-24"]');
    expect(offsite.y + offsite.height).toBeLessThanOrEqual(grid.y + 1);
    expect(Math.abs(offsite.x - grid.x)).toBeLessThan(4);
    const thursday = await box(page, '.day[data-day="2027-03-25"]');
    expect(offsite.x + offsite.width).toBeGreaterThan(thursday.x + thursday.width / 2);
    expect(await page.locator('[data-event-id="revue0001"]').count()).toBe(0);
    await page.screenshot({ path: path.join(artefacts, 'calendar-week-dst.png'), fullPage: true });

    // The next week: 08:00 UTC is 10:00 in Zurich's summer time.
    await page.locator('#week-next').click();
    await page.locator('#week-title', { hasText: 'Week of 2027-03-29' }).waitFor();
    const review = page.locator('[data-event-id="revue0001"]');
    await review.waitFor();
    expect(await review.getAttribute('data-start')).toBe('10:00');
    expect(await review.getAttribute('data-day')).toBe('2027-03-29');

    // An event's detail: its JSON, etag and sequence.
    await review.click();
    await page.locator('#event-detail').waitFor();
    const etag = await page.locator('#event-etag').innerText();
    expect(etag).toMatch(/^"\d+"$/);
    expect(await page.locator('#event-sequence').innerText()).toBe('0');
    expect(JSON.parse(await page.locator('#event-json').innerText())).toMatchObject({
      id: 'revue0001',
      etag,
    });
    await finish(v, 'calendar-event.png');
  });

  it("shows a client's requests in the journal as they come, with status and refusal, and no token", async () => {
    const v = await visit('#/requests');
    const { page } = v;
    const base = `${origin}/calendar/v3`;
    const ok = await fetch(`${base}/users/me/calendarList`, {
      headers: { authorization: 'Bearer token-ana' },
    });
    expect(ok.status).toBe(200);
    const row = page.locator('#journal tr[data-operation="calendarList.list"]');
    await row.first().waitFor({ timeout: PATIENCE });
    expect(await row.first().getAttribute('data-status')).toBe('200');
    expect(await row.first().innerText()).toContain(ANA);

    const missing = await fetch(`${base}/calendars/nope/events?access_token=token-ana`);
    expect(missing.status).toBe(404);
    const refused = page.locator('#journal tr[data-operation="events.list"][data-status="404"]');
    await refused.waitFor({ timeout: PATIENCE });
    await refused.click();
    await page.locator('#request-error').waitFor();
    expect(await page.locator('#request-error').innerText()).toContain('notFound');
    const detail = await page.locator('#request-detail').innerText();
    expect(detail).toContain('access_token=%5Bredacted%5D');
    expect(detail).not.toContain('token-ana');

    // A filter by status keeps the refusal only.
    await page.locator('#filter-status').fill('4xx');
    await page.locator('#filter-status').press('Enter');
    await expect
      .poll(
        () =>
          page
            .locator('#journal tbody tr')
            .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-status'))),
        {
          timeout: PATIENCE,
        },
      )
      .toEqual(['404']);
    expect(await page.locator('body').innerText()).not.toContain('token-ana');
    await finish(v, 'requests.png');
  });

  it('shows a watch channel and its deliveries with their headers and the receiver status', async () => {
    const v = await visit('#/notifications');
    const { page } = v;
    const watch = await fetch(`${origin}/calendar/v3/calendars/${encodeURIComponent(TEAM)}/events/watch`, {
      method: 'POST',
      headers: { authorization: 'Bearer token-ana', 'content-type': 'application/json' },
      body: JSON.stringify({
        id: 'channel-1',
        type: 'web_hook',
        address: receiverUrl,
        token: 'secret-channel-token',
      }),
    });
    expect(watch.status).toBe(200);
    await page.locator('#channels tr[data-channel="channel-1"]').waitFor({ timeout: PATIENCE });
    const sync = page.locator('#deliveries tr[data-state="sync"]');
    await sync.waitFor({ timeout: PATIENCE });
    const text = await sync.innerText();
    expect(text).toContain('x-goog-channel-id: channel-1');
    expect(text).toContain('x-goog-resource-state: sync');
    expect(text).toContain('x-goog-message-number: 1');
    expect(text).toContain('x-goog-channel-token: [redacted]');
    expect(text).toMatch(/\t200\t/);
    expect(text).not.toContain('secret-channel-token');
    expect(received.some((headers) => headers['x-goog-channel-id'] === 'channel-1')).toBe(true);
    await finish(v, 'notifications.png');
  });

  it('resets from the control view, through the control endpoint, and the views empty', async () => {
    const v = await visit('#/control');
    const { page } = v;
    await page.locator('#health').waitFor();
    await page.screenshot({ path: path.join(artefacts, 'control.png'), fullPage: true });
    await page.locator('#reset').click();
    await page.locator('#control-message', { hasText: 'Reset done.' }).waitFor();
    expect(Object.keys(emulator.store.state.users)).toEqual([]);
    await page.locator('nav a[data-view="requests"]').click();
    await expect.poll(() => page.locator('#journal tbody tr').count(), { timeout: PATIENCE }).toBe(0);
    await page.locator('nav a[data-view="notifications"]').click();
    await page.locator('#channels').waitFor();
    await expect.poll(() => page.locator('#channels tbody tr, #deliveries tbody tr').count()).toBe(0);
    await page.locator('nav a[data-view="calendar"]').click();
    await page.locator('#user option', { hasText: 'no users' }).waitFor({ state: 'attached' });
    await finish(v, 'after-reset.png');
  });
});
