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
import { ADVERTISER, example, purchase, signup } from './support/searchads360.ts';

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

/** Opens the inspector of `at` (the suite's emulator unless given); `live`: wait for its stream. */
async function visit(hash: string, at = origin, live = true): Promise<Visit> {
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
    if (target.origin === at) return route.continue();
    external.push(target.href);
    return route.abort();
  });
  page.setDefaultTimeout(PATIENCE);
  page.setDefaultNavigationTimeout(PATIENCE);
  const response = await page.goto(`${at}/__emulator/ui/${hash}`);
  if (response?.status() !== 200)
    errors.push(`the inspector answered HTTP ${response?.status() ?? 'nothing'}`);
  if (live) await page.locator('#live.on').waitFor();
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

  it("shows a calendar's sharing rules, what a sync token would replay, and an event's changes", async () => {
    const calendar = `${origin}/calendar/v3/calendars/${encodeURIComponent(TEAM)}`;
    const headers = { authorization: 'Bearer token-ana', 'content-type': 'application/json' };
    const place = `#/calendar/${encodeURIComponent(ANA)}/${encodeURIComponent(TEAM)}/2027-03-29`;
    const shared = await fetch(`${calendar}/acl`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ role: 'reader', scope: { type: 'user', value: 'bo@example.com' } }),
    });
    expect(shared.status).toBe(200);
    const v = await visit(`${place}/sharing`);
    const { page } = v;
    const bo = page.locator('#acl tr[data-rule="user:bo@example.com"]');
    await bo.waitFor();
    expect(await bo.innerText()).toContain('reader');
    expect(await page.locator(`#acl tr[data-rule="user:${ANA}"]`).innerText()).toContain('owner');
    // Deleted, the rule stays as acl.list shows it with showDeleted: role none.
    const unshared = await fetch(`${calendar}/acl/${encodeURIComponent('user:bo@example.com')}`, {
      method: 'DELETE',
      headers,
    });
    expect(unshared.status).toBe(204);
    await page.locator('#calendar-tabs [data-tab="week"]').click();
    await page.locator('#week').waitFor();
    await page.locator('#calendar-tabs [data-tab="sharing"]').click();
    await page.locator('#acl tr[data-rule="user:bo@example.com"]', { hasText: 'none (deleted)' }).waitFor();
    await page.screenshot({ path: path.join(artefacts, 'calendar-sharing.png'), fullPage: true });

    // The sync tab: a token taken now replays nothing, then the change a client makes.
    await page.locator('#calendar-tabs [data-tab="sync"]').click();
    await page.locator('#sync-take').click();
    await page.locator('#sync-count', { hasText: '0 changes since this token' }).waitFor();
    const patched = await fetch(`${calendar}/events/revue0001`, {
      method: 'PATCH',
      headers,
      body: JSON.stringify({
        summary: 'Review, moved',
        start: { dateTime: '2027-03-29T09:00:00Z' },
        end: { dateTime: '2027-03-29T10:00:00Z' },
      }),
    });
    expect(patched.status).toBe(200);
    const deleted = await fetch(`${calendar}/events/offsite0001`, { method: 'DELETE', headers });
    expect(deleted.status).toBe(204);
    // The live stream redraws the view: the two changes, the deletion as cancelled.
    await page.locator('#sync-count', { hasText: '2 changes since this token' }).waitFor();
    expect(await page.locator('#sync-changes tr[data-event-id="revue0001"]').innerText()).toContain(
      'Review, moved',
    );
    expect(
      await page.locator('#sync-changes tr[data-event-id="offsite0001"]').getAttribute('data-status'),
    ).toBe('cancelled');
    await page.screenshot({ path: path.join(artefacts, 'calendar-sync.png'), fullPage: true });

    // The event's detail lists the writes the journal saw, with the sequence each left.
    await page.locator('#calendar-tabs [data-tab="week"]').click();
    await page.locator('#week [data-event-id="revue0001"]').click();
    const history = page.locator('#event-history tr[data-operation="events.patch"]');
    await history.waitFor();
    const cells = await history.locator('td').allInnerTexts();
    expect(cells.slice(1, 4)).toEqual(['events.patch', ANA, '200']);
    // Moving the start is a change that counts: the sequence went from 0 to 1.
    expect(cells[5]).toBe('1');
    expect(cells[4]).toBe(await page.locator('#event-etag').innerText());
    await finish(v, 'calendar-event-history.png');
  });

  it('draws the tab a click asks for while a live update is still redrawing the one before', async () => {
    const calendar = `${origin}/calendar/v3/calendars/${encodeURIComponent(TEAM)}`;
    const headers = { authorization: 'Bearer token-ana', 'content-type': 'application/json' };
    const v = await visit(
      `#/calendar/${encodeURIComponent(ANA)}/${encodeURIComponent(TEAM)}/2027-03-29/sharing`,
    );
    const { page } = v;
    await page.locator('#acl').waitFor();
    // The sharing tab's redraw is held at its acl.list until the week tab was asked for.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route('**/__emulator/invoke', async (route) => {
      if (route.request().postData()?.includes('"acl.list"')) await held;
      await route.fallback();
    });
    const asked = page.waitForRequest((request) => request.postData()?.includes('"acl.list"') ?? false);
    // A write: the live stream redraws the sharing tab.
    const made = await fetch(`${calendar}/events`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ summary: 'Redraw', start: { date: '2027-03-30' }, end: { date: '2027-03-31' } }),
    });
    expect(made.status).toBe(200);
    await asked;
    await page.locator('#calendar-tabs [data-tab="week"]').click();
    release();
    // The redraw of the sharing tab ends first; the week tab, asked for last, is what stays.
    await expect
      .poll(async () => [await page.locator('#week').count(), await page.locator('#acl').count()], {
        timeout: PATIENCE,
      })
      .toEqual([1, 0]);
    await page.unroute('**/__emulator/invoke');
    await finish(v, 'calendar-tab-during-redraw.png');
  });

  it("shows an advertiser's conversions sorted and filtered, one with its inserts and updates", async () => {
    const headers = { authorization: 'Bearer token-ana', 'content-type': 'application/json' };
    const send = async (method: string, path: string, body: unknown) => {
      const reply = await fetch(`${origin}/doubleclicksearch/v2${path}`, {
        method,
        headers,
        body: JSON.stringify(body),
      });
      expect(reply.status, await reply.text()).toBe(200);
    };
    const at = (iso: string) => ({ conversionTimestamp: String(Date.parse(iso)) });
    await send('POST', '/conversion', {
      conversion: [
        purchase('order-1', { ...at('2025-11-20T09:00:00Z'), revenueMicros: '129990000' }),
        purchase('order-2', { ...at('2025-11-20T10:00:00Z'), revenueMicros: '20000000' }),
        signup('sign-1', at('2025-11-20T08:00:00Z')),
      ],
    });
    await send('PUT', '/conversion', {
      conversion: [purchase('order-1', { ...at('2025-11-20T09:00:00Z'), revenueMicros: '99990000' })],
    });
    await send('PUT', '/conversion', {
      conversion: [
        purchase('order-2', { ...at('2025-11-20T10:00:00Z'), revenueMicros: '20000000', state: 'REMOVED' }),
      ],
    });
    await send('POST', '/conversion/updateAvailability', example('AvailabilityUpdate'));
    // Best effort: order-3 is stored, the second row (order-1 again) refused as a duplicate.
    const partial = await fetch(`${origin}/doubleclicksearch/v2/conversion`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        conversion: [
          purchase('order-3', at('2025-11-20T11:00:00Z')),
          purchase('order-1', at('2025-11-20T09:00:00Z')),
        ],
      }),
    });
    expect(partial.status).toBe(400);

    const v = await visit('#/calendar');
    const { page } = v;
    await page.locator('nav a[data-view="searchads360"]').click();
    await page.locator(`#sa-advertiser option[value="${ADVERTISER}"]`).waitFor({ state: 'attached' });
    expect(await page.locator('#sa-advertiser').inputValue()).toBe(ADVERTISER);
    const ids = () =>
      page
        .locator('#conversions tbody tr[data-conversion-id]')
        .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-conversion-id')));
    // In the order the API answers: conversion time.
    await expect.poll(ids, { timeout: PATIENCE }).toEqual(['sign-1', 'order-1', 'order-2', 'order-3']);
    expect(
      await page
        .locator('#conversions tr[data-conversion-id="order-1"] td[data-column="revenue"]')
        .innerText(),
    ).toBe('99.99 EUR');

    // A header sorts, again the other way; ties keep the API's order (a stable sort).
    await page.locator('#conversions th[data-column="revenue"]').click();
    expect(await ids()).toEqual(['sign-1', 'order-2', 'order-1', 'order-3']);
    await page.locator('#conversions th[data-column="revenue"]').click();
    expect(await page.locator('#conversions th[data-column="revenue"]').getAttribute('aria-sort')).toBe(
      'descending',
    );
    expect(await ids()).toEqual(['order-3', 'order-1', 'order-2', 'sign-1']);
    await page.locator('#conversions th[data-column="type"]').click();
    expect(await ids()).toEqual(['sign-1', 'order-1', 'order-2', 'order-3']);

    // The text filter matches any cell; the state select narrows further.
    await page.locator('#conversion-filter').fill('online purchase');
    expect(await ids()).toEqual(['order-1', 'order-2', 'order-3']);
    await page.locator('#conversion-state').selectOption('REMOVED');
    expect(await ids()).toEqual(['order-2']);
    expect(await page.locator('#conversion-count').innerText()).toBe('1 of 4 shown');
    await page.locator('#conversion-state').selectOption('');
    await page.locator('#conversion-filter').fill('');
    expect(await ids()).toEqual(['sign-1', 'order-1', 'order-2', 'order-3']);

    // The availabilities, and the entities behind the ID-mapping file.
    await expect.poll(() => page.locator('#availabilities tbody tr[data-activity]').count()).toBe(2);
    expect(await page.locator('#entities tr[data-type="ENGINE_ACCOUNT"]').getAttribute('data-in-file')).toBe(
      'true',
    );
    expect(await page.locator('#entities tr[data-in-file="false"]').count()).toBeGreaterThan(0);

    // A conversion opens its JSON and its history: the insert and the update, with what each
    // sent for it; the batch that named it again and was refused for that row is not there.
    await page.locator('#conversions tr[data-conversion-id="order-1"]').click();
    await page.locator('#conversion-history').waitFor();
    expect(JSON.parse(await page.locator('#conversion-json').innerText())).toMatchObject({
      conversionId: 'order-1',
      revenueMicros: '99990000',
    });
    const writes = page.locator('#conversion-history tbody tr');
    expect(await writes.evaluateAll((rows) => rows.map((r) => r.getAttribute('data-operation')))).toEqual([
      'conversion.insert',
      'conversion.update',
    ]);
    const inserted = await writes.nth(0).locator('td').allInnerTexts();
    expect(inserted.slice(1, 4)).toEqual(['conversion.insert', ANA, '200']);
    expect(JSON.parse(inserted[4] as string)).toMatchObject({
      conversionId: 'order-1',
      revenueMicros: '129990000',
    });
    expect(inserted[4]).not.toContain('order-2');
    const updated = await writes.nth(1).locator('td').allInnerTexts();
    expect(JSON.parse(updated[4] as string)).toMatchObject({
      conversionId: 'order-1',
      revenueMicros: '99990000',
    });
    expect(await page.locator('#conversion-history').innerText()).toContain('seed');
    await page.screenshot({ path: path.join(artefacts, 'searchads360.png'), fullPage: true });

    // The batch refused in part wrote order-3: its history has that insert.
    await page.locator('#conversions tr[data-conversion-id="order-3"]').click();
    await page.locator('#conversion-json', { hasText: '"order-3"' }).waitFor();
    const partly = await page
      .locator('#conversion-history tbody tr')
      .evaluateAll((rows) => rows.map((r) => [r.getAttribute('data-operation'), r.children[3]?.textContent]));
    expect(partly).toEqual([['conversion.insert', '400 (this row written)']]);
    await finish(v, 'searchads360-partial.png');
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

  it('loads a seed file and turns the rate limit on and off from the control view, through the control endpoints', async () => {
    const DANA = 'dana@example.com';
    const colors = async () =>
      (await fetch(`${origin}/calendar/v3/colors`, { headers: { authorization: 'Bearer token-dana' } }))
        .status;
    const rateLimit = async () => (await fetch(`${origin}/__emulator/rate-limit`)).json();
    const v = await visit('#/control');
    const { page } = v;
    const seed = {
      users: [{ email: DANA, tokens: ['token-dana'] }],
      calendars: [
        {
          id: 'primary',
          owner: DANA,
          events: [
            {
              id: 'fromfile0001',
              summary: 'From the file',
              start: { dateTime: '2027-03-22T09:00:00Z' },
              end: { dateTime: '2027-03-22T10:00:00Z' },
            },
          ],
        },
      ],
    };
    await page.locator('#seed-file').setInputFiles({
      name: 'seed.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(seed)),
    });
    await page.locator('#seed-result', { hasText: 'Seeded from seed.json' }).waitFor();
    expect(await page.locator('#seed-result').innerText()).toContain('calendars.events: 1');
    expect(Object.keys(emulator.store.state.users)).toContain(DANA);

    // On: five units a minute, 429 for both APIs; the sixth call of the seed's token is refused.
    await page.locator('#rate-limit-state[data-enabled="false"]').waitFor();
    await page.locator('#rate-limit-units').fill('5');
    await page.locator('#rate-limit-status').selectOption('429');
    await page.locator('#rate-limit-apply').click();
    await page.locator('#rate-limit-state[data-enabled="true"]').waitFor();
    expect(await rateLimit()).toMatchObject({
      enabled: true,
      units: 5,
      status: { calendar: 429, searchads360: 429 },
    });
    expect(await page.locator('#rate-limit-state').innerText()).toContain('5 quota units per user and API');
    for (let i = 0; i < 5; i++) expect(await colors()).toBe(200);
    expect(await colors()).toBe(429);
    await page.locator('#rate-limit-used', { hasText: DANA }).waitFor();
    await page.screenshot({ path: path.join(artefacts, 'control-rate-limit.png'), fullPage: true });

    // Off again: the calls pass.
    await page.locator('#rate-limit-off').click();
    await page.locator('#rate-limit-state[data-enabled="false"]').waitFor();
    expect(await rateLimit()).toEqual({ enabled: false });
    expect(await colors()).toBe(200);
    // The seed's note outlived the redraws.
    expect(await page.locator('#seed-result').innerText()).toContain('Seeded from seed.json');

    // The seed's user and event in the Calendar view.
    await page.locator('nav a[data-view="calendar"]').click();
    await page.locator(`#user option[value="${DANA}"]`).waitFor({ state: 'attached' });
    await page.goto(
      `${origin}/__emulator/ui/#/calendar/${encodeURIComponent(DANA)}/${encodeURIComponent(DANA)}/2027-03-22`,
    );
    await page.locator('[data-event-id="fromfile0001"]').waitFor();
    await finish(v, 'control-seed.png');
  });

  it('asks for the admin credential in strict mode, and shows its views once signed in', async () => {
    const ADMIN = 'browser-admin-credential-7d2e41';
    const strict = createEmulator({ strict: true, users: { 'token-ana': ANA }, admin: { token: ADMIN } });
    const at = await strict.listen(0);
    try {
      const v = await visit('#/requests', at, false);
      const { page } = v;
      await page.locator('#sign-in').waitFor();
      expect(await page.locator('#journal').count()).toBe(0);
      await page.locator('#admin-token').fill('not-the-admin-credential');
      await page.locator('#sign-in-submit').click();
      await page.locator('#sign-in-message', { hasText: 'That is not the admin credential.' }).waitFor();
      // Chromium logs the refused attempt's 401: the one console error this test expects.
      expect(v.errors.filter((error) => /status of 401/.test(error))).toHaveLength(1);
      v.errors.splice(0, v.errors.length, ...v.errors.filter((error) => !/status of 401/.test(error)));
      await page.screenshot({ path: path.join(artefacts, 'sign-in.png'), fullPage: true });

      await page.locator('#admin-token').fill(ADMIN);
      await page.locator('#sign-in-submit').click();
      await page.locator('#live.on').waitFor();
      await page.locator('#journal').waitFor();
      const cookie = (await page.context().cookies()).find((c) => c.name === 'gspec-admin');
      expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/__emulator' });
      const read = await fetch(`${at}/calendar/v3/users/me/calendarList`, {
        headers: { authorization: 'Bearer token-ana' },
      });
      expect(read.status).toBe(200);
      await page.locator('#journal tr[data-operation="calendarList.list"]').waitFor();
      expect(await page.content()).not.toContain(ADMIN);
      await finish(v, 'signed-in.png');
    } finally {
      await strict.close();
    }
  });
});
