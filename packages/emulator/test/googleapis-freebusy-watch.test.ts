/**
 * Google's own client (googleapis), with only its rootUrl changed, through what decision 0056
 * added: free/busy of a group (and the group's limits), the refusal of an over-long range, and
 * a watch channel whose list parameters leave changes out.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { google } from 'googleapis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { timedEvent, useEmulator } from './support/harness.ts';

const emu = useEmulator({ notifications: { allow: ['127.0.0.1'] } });

const states: string[] = [];
const receiver = createServer((request, response) => {
  states.push(String(request.headers['x-goog-resource-state']));
  request.resume();
  response.end();
});
beforeAll(() => new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve)));
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

function client(token: string) {
  const auth = new google.auth.OAuth2();
  auth.setCredentials({ access_token: token });
  return google.calendar({ version: 'v3', auth, rootUrl: `${emu.origin}/` });
}

describe('googleapis: free/busy of groups and filtered watch channels', () => {
  it('queries a group, meets its limits, and hears only of the events its watch asked for', async () => {
    await emu.reset();
    const seeded = await emu.call('POST', '/__emulator/seed', {
      body: {
        calendars: ['ana@example.com', 'bo@example.com'].map((owner, i) => ({
          id: 'primary',
          owner,
          acl: [{ role: 'freeBusyReader', scope: { type: 'default' } }],
          events: [timedEvent(`busy ${i}`, 9 + i)],
        })),
        groups: [{ email: 'team@example.com', members: ['ana@example.com', 'bo@example.com'] }],
      },
    });
    expect(seeded.status).toBe(200);
    const calendar = client('jordan@example.com');
    const range = { timeMin: '2026-03-02T00:00:00Z', timeMax: '2026-03-03T00:00:00Z' };

    const answer = await calendar.freebusy.query({
      requestBody: { ...range, items: [{ id: 'team@example.com' }] },
    });
    expect(answer.data.groups).toEqual({
      'team@example.com': { calendars: ['ana@example.com', 'bo@example.com'] },
    });
    expect(answer.data.calendars?.['bo@example.com']?.busy).toEqual([
      { start: '2026-03-02T10:00:00Z', end: '2026-03-02T11:00:00Z' },
    ]);

    const limited = await calendar.freebusy.query({
      requestBody: { ...range, items: [{ id: 'team@example.com' }], groupExpansionMax: 1 },
    });
    expect(limited.data.groups?.['team@example.com']?.errors).toEqual([
      { domain: 'global', reason: 'groupTooBig' },
    ]);

    const tooLong = await calendar.freebusy
      .query({
        requestBody: { timeMin: range.timeMin, timeMax: '2026-09-01T00:00:00Z', items: [{ id: 'primary' }] },
      })
      .then(
        () => undefined,
        (error: { status?: number; response?: { data?: { error?: { errors?: { reason?: string }[] } } } }) =>
          error,
      );
    expect(tooLong?.status).toBe(400);
    expect(tooLong?.response?.data?.error?.errors?.[0]?.reason).toBe('timeRangeTooLong');

    const address = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const channel = await calendar.events.watch({
      calendarId: 'primary',
      q: 'standup',
      requestBody: { id: 'googleapis-filtered', type: 'web_hook', address },
    });
    expect(channel.data.resourceId).toBeTypeOf('string');
    for (const summary of ['Lunch', 'Daily standup', 'Retro'])
      await calendar.events.insert({ calendarId: 'primary', requestBody: timedEvent(summary) });
    await new Promise((resolve) => setImmediate(resolve));
    await emu.emulator.notifier.idle();
    expect(states).toEqual(['sync', 'exists']);
    await calendar.channels.stop({
      requestBody: { id: 'googleapis-filtered', resourceId: channel.data.resourceId as string },
    });
  });
});
