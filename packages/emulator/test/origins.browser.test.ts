/**
 * Pages that try to drive a default emulator on a developer's laptop (loopback, no admin
 * credential), in a real browser (Debian's Chromium, driven by playwright-core), as issue 33
 * found them able to (decision 0052):
 *
 * - a page on another localhost port reads the state and the journal, resets the emulator, and
 *   loads a seed with a token of its own as a `text/plain` post that needs no preflight;
 * - a page on a name its author controls, resolved to 127.0.0.1 (DNS rebinding: Chromium maps
 *   `rebind.test` there), for which the emulator is the page's own origin.
 *
 * Each request reaches the emulator, which refuses it (its answers are recorded here), and the
 * state is what it was; a browser app on another port still calls the APIs with CORS.
 *
 * Chromium's Local Network Access checks are off: since Chromium 142 they ask the user before a
 * page loaded from a public address reaches loopback, which is what a rebinding page is. Other
 * browsers do not ask, and a user may say yes: the emulator must refuse on its own.
 */
import { createServer, type Server } from 'node:http';
import { haveChromium, launchChromium } from '@gspec/scripts/chromium';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { calendarState } from '../src/apis/calendar/records.ts';
import type { Emulator } from '../src/core/server.ts';
import { createEmulator } from '../src/emulator.ts';

const haveBrowser = haveChromium();
const ANA = 'ana@example.com';
const SEED = {
  users: [{ email: ANA, tokens: ['token-ana'] }],
  calendars: [
    {
      id: 'team@group.calendar.google.com',
      owner: ANA,
      summary: 'Team',
      timeZone: 'UTC',
      events: [
        {
          id: 'keep0001',
          summary: 'Keep me',
          start: { dateTime: '2027-03-22T09:00:00Z' },
          end: { dateTime: '2027-03-22T10:00:00Z' },
        },
      ],
    },
  ],
};
const MALLORY_SEED = JSON.stringify({ users: [{ email: 'mallory@example.com', tokens: ['token-mallory'] }] });

let emulator: Emulator;
let target: string;
let attacker: Server;
let attackerOrigin: string;
let browser: Browser;
/** What the emulator answered, `METHOD path status`, in order. */
const answered: string[] = [];

/** What a page's attempt came to: the status it could read, or that the browser kept it out. */
type Outcome = number | 'blocked by the browser' | 'opaque';

describe.runIf(haveBrowser)('pages of other origins against a default emulator', () => {
  beforeAll(async () => {
    emulator = createEmulator({
      onResponse: (exchange) => answered.push(`${exchange.method} ${exchange.path} ${exchange.status}`),
    });
    target = await emulator.listen(0);
    const seeded = await fetch(`${target}/__emulator/seed`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(SEED),
    });
    expect(seeded.status).toBe(200);
    // The attacker's page: any page of another port (another origin, the same site).
    attacker = createServer((_, response) => {
      response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>elsewhere</title>');
    });
    attackerOrigin = await new Promise((resolve) =>
      attacker.listen(0, '127.0.0.1', () => {
        const address = attacker.address() as { port: number };
        resolve(`http://localhost:${address.port}`);
      }),
    );
    // rebind.test resolves to this machine, as a rebinding name does once the page is loaded;
    // no browser check of its own stands in for the emulator's.
    browser = await launchChromium(chromium, [
      '--host-resolver-rules=MAP rebind.test 127.0.0.1',
      '--disable-features=LocalNetworkAccessChecks',
    ]);
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => attacker?.close(resolve));
    await emulator?.close();
  });

  /** The ids of the team calendar's events in the emulator's state. */
  const eventsLeft = () =>
    calendarState(emulator.store.state).calendar.events['team@group.calendar.google.com'];

  it('a page on another localhost port can neither read, reset nor seed the control plane', async () => {
    const page = await browser.newPage();
    await page.goto(`${attackerOrigin}/`);
    answered.length = 0;
    const outcomes = await page.evaluate(
      async ({ target, mallory }) => {
        const attempt = async (url: string, init: RequestInit): Promise<Outcome> => {
          try {
            const response = await fetch(url, init);
            return response.type === 'opaque' ? 'opaque' : response.status;
          } catch {
            return 'blocked by the browser';
          }
        };
        return {
          state: await attempt(`${target}/__emulator/state`, {}),
          journal: await attempt(`${target}/__emulator/journal`, {}),
          reset: await attempt(`${target}/__emulator/reset`, { method: 'POST', mode: 'no-cors' }),
          textPlainSeed: await attempt(`${target}/__emulator/seed`, {
            method: 'POST',
            mode: 'no-cors',
            headers: { 'content-type': 'text/plain' },
            body: mallory,
          }),
          jsonSeed: await attempt(`${target}/__emulator/seed`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: mallory,
          }),
          // A browser app on another port: the API answers it, with CORS, as Google's does.
          api: await attempt(`${target}/calendar/v3/users/me/calendarList`, {
            headers: { authorization: 'Bearer token-ana' },
          }),
        };
      },
      { target, mallory: MALLORY_SEED },
    );
    expect(outcomes).toEqual({
      state: 'blocked by the browser',
      journal: 'blocked by the browser',
      reset: 'opaque',
      textPlainSeed: 'opaque',
      jsonSeed: 'blocked by the browser',
      api: 200,
    });
    // Each reached the emulator and was refused there: the browser is not what stopped them.
    expect(answered).toEqual(
      expect.arrayContaining([
        'GET /__emulator/state 403',
        'GET /__emulator/journal 403',
        'POST /__emulator/reset 403',
        'POST /__emulator/seed 403',
        'OPTIONS /__emulator/seed 403',
        'GET /calendar/v3/users/me/calendarList 200',
      ]),
    );
    expect(answered.filter((line) => /__emulator/.test(line) && !/ 403$/.test(line))).toEqual([]);
    expect(Object.keys(emulator.store.state.users)).not.toContain('mallory@example.com');
    expect(Object.keys(eventsLeft() ?? {})).toContain('keep0001');
    await page.close();
  });

  it('a page on a name rebound to 127.0.0.1 is refused by its Host, for the control plane and the APIs', async () => {
    const port = new URL(target).port;
    const page = await browser.newPage();
    // The attacker's server answers the page itself; then the name points at the emulator.
    await page.route(`http://rebind.test:${port}/attack`, (route) =>
      route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>rebound</title>' }),
    );
    await page.goto(`http://rebind.test:${port}/attack`);
    answered.length = 0;
    const outcomes = await page.evaluate(async () => {
      const read = async (path: string, init: RequestInit = {}) => {
        const response = await fetch(path, init);
        const body = (await response.json()) as { error: { errors: { reason: string }[] } };
        return `${response.status} ${body.error.errors[0]?.reason}`;
      };
      return {
        state: await read('/__emulator/state'),
        reset: await read('/__emulator/reset', { method: 'POST' }),
        api: await read('/calendar/v3/calendars/team@group.calendar.google.com/events/keep0001', {
          method: 'DELETE',
          headers: { authorization: 'Bearer token-ana' },
        }),
      };
    });
    expect(outcomes).toEqual({
      state: '403 hostNotAllowed',
      reset: '403 hostNotAllowed',
      api: '403 hostNotAllowed',
    });
    expect(answered).toHaveLength(3);
    expect(Object.keys(eventsLeft() ?? {})).toContain('keep0001');
    await page.close();
  });
});
