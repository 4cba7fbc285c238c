/**
 * Google's own client (googleapis) against the emulator with only its rootUrl changed: create
 * a calendar, watch it, add events, change one, page, sync, move, delete, share, query
 * free/busy, expand a recurring event; clear a field with null, write local times, trim answers
 * with fields and read again with If-None-Match. Every answer is checked against the spec by the harness.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { google } from 'googleapis';
import { describe, expect, it } from 'vitest';
import { useEmulator } from './support/harness.ts';

const emu = useEmulator();

describe('googleapis integration flow', () => {
  it('runs a sync client end to end', async () => {
    const auth = new google.auth.OAuth2();
    auth.setCredentials({ access_token: 'jordan@example.com' });
    const calendar = google.calendar({ version: 'v3', auth, rootUrl: `${emu.origin}/` });

    const created = await calendar.calendars.insert({
      requestBody: { summary: 'Sync test', timeZone: 'UTC' },
    });
    const calendarId = created.data.id as string;
    expect(calendarId).toMatch(/@group\.calendar\.google\.com$/);

    // A local receiver for the channel's notifications.
    const states: string[] = [];
    const receiver = createServer((request, response) => {
      states.push(String(request.headers['x-goog-resource-state']));
      response.end();
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const channel = await calendar.events.watch({
      calendarId,
      requestBody: { id: 'flow-channel', type: 'web_hook', address: hook, token: 'flow' },
    });
    expect(channel.data.resourceId).toBeTypeOf('string');

    const ids: string[] = [];
    for (const hour of ['09', '10', '11']) {
      const event = await calendar.events.insert({
        calendarId,
        requestBody: {
          summary: `Meeting ${hour}`,
          start: { dateTime: `2026-04-01T${hour}:00:00Z` },
          end: { dateTime: `2026-04-01T${hour}:30:00Z` },
        },
      });
      ids.push(event.data.id as string);
    }

    const changed = await calendar.events.patch({
      calendarId,
      eventId: ids[0] as string,
      requestBody: { summary: 'Renamed' },
    });
    expect(changed.data.sequence).toBe(1);

    const seen: string[] = [];
    let pageToken: string | undefined;
    let syncToken: string | undefined;
    do {
      const page = await calendar.events.list({
        calendarId,
        maxResults: 2,
        ...(pageToken ? { pageToken } : {}),
      });
      seen.push(...(page.data.items ?? []).map((item) => item.id as string));
      pageToken = page.data.nextPageToken ?? undefined;
      syncToken = page.data.nextSyncToken ?? undefined;
    } while (pageToken);
    expect(seen).toEqual(ids);
    expect(syncToken).toBeTypeOf('string');

    const moved = await calendar.events.move({
      calendarId,
      eventId: ids[1] as string,
      destination: 'primary',
    });
    expect(moved.data.organizer?.email).toBe('jordan@example.com');
    await calendar.events.delete({ calendarId, eventId: ids[2] as string });

    const changes = await calendar.events.list({ calendarId, syncToken: syncToken as string });
    expect((changes.data.items ?? []).map((item) => [item.id, item.status])).toEqual([
      [ids[1], 'cancelled'],
      [ids[2], 'cancelled'],
    ]);

    const stale = await calendar.events
      .update({
        calendarId,
        eventId: ids[0] as string,
        requestBody: { summary: 'x', start: changed.data.start ?? {}, end: changed.data.end ?? {} },
        headers: { 'If-Match': '"stale"' },
      } as never)
      .catch((error: { status?: number }) => error);
    expect((stale as { status?: number }).status).toBe(412);

    const heard = Date.now() + 3000;
    while (!states.includes('exists') && Date.now() < heard) await new Promise((r) => setTimeout(r, 5));
    expect(states.slice(0, 2)).toEqual(['sync', 'exists']);
    await calendar.channels.stop({
      requestBody: { id: 'flow-channel', resourceId: channel.data.resourceId as string },
    });
    await new Promise<void>((resolve) => receiver.close(() => resolve()));

    const rule = await calendar.acl.insert({
      calendarId,
      requestBody: { role: 'reader', scope: { type: 'user', value: 'sam@example.com' } },
    });
    expect(rule.data.id).toBe('user:sam@example.com');
    const busy = await calendar.freebusy.query({
      requestBody: {
        timeMin: '2026-04-01T00:00:00Z',
        timeMax: '2026-04-02T00:00:00Z',
        items: [{ id: calendarId }],
      },
    });
    expect(busy.data.calendars?.[calendarId]?.busy).toEqual([
      { start: '2026-04-01T09:00:00Z', end: '2026-04-01T09:30:00Z' },
    ]);
    const series = await calendar.events.insert({
      calendarId,
      requestBody: {
        summary: 'Weekly',
        start: { dateTime: '2026-04-06T10:00:00+02:00', timeZone: 'Europe/Zurich' },
        end: { dateTime: '2026-04-06T11:00:00+02:00', timeZone: 'Europe/Zurich' },
        recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'],
      },
    });
    const instances = await calendar.events.instances({ calendarId, eventId: series.data.id as string });
    expect(instances.data.items?.map((item) => item.id)).toEqual([
      `${series.data.id}_20260406T080000Z`,
      `${series.data.id}_20260413T080000Z`,
      `${series.data.id}_20260420T080000Z`,
    ]);

    await calendar.calendars.delete({ calendarId });
    const gone = await calendar.calendars.get({ calendarId }).catch((error: { status?: number }) => error);
    expect((gone as { status?: number }).status).toBe(404);
  });

  it("clears a field with null and writes local times, as Google's client users do", async () => {
    const auth = new google.auth.OAuth2();
    auth.setCredentials({ access_token: 'jordan@example.com' });
    const calendar = google.calendar({ version: 'v3', auth, rootUrl: `${emu.origin}/` });
    const event = await calendar.events.insert({
      calendarId: 'primary',
      requestBody: {
        summary: 'Local',
        location: 'Room 4',
        start: { dateTime: '2027-10-25T10:00:00', timeZone: 'Europe/Zurich' },
        end: { dateTime: '2027-10-25T11:00:00', timeZone: 'Europe/Zurich' },
        recurrence: ['RRULE:FREQ=WEEKLY;COUNT=2'],
      },
    });
    // Zurich leaves summer time on 2027-10-31: the second instance is an hour later in UTC.
    expect(event.data.start?.dateTime).toBe('2027-10-25T10:00:00+02:00');
    const instances = await calendar.events.instances({
      calendarId: 'primary',
      eventId: event.data.id as string,
    });
    expect(instances.data.items?.map((item) => item.start?.dateTime)).toEqual([
      '2027-10-25T10:00:00+02:00',
      '2027-11-01T10:00:00+01:00',
    ]);
    const patched = await calendar.events.patch({
      calendarId: 'primary',
      eventId: event.data.id as string,
      requestBody: { location: null },
    });
    expect(patched.data.location).toBeUndefined();
    expect(patched.data.summary).toBe('Local');
  });

  it("trims answers to a fields mask and answers 304 to a matching If-None-Match, through Google's client", async () => {
    const auth = new google.auth.OAuth2();
    auth.setCredentials({ access_token: 'kim@example.com' });
    const calendar = google.calendar({ version: 'v3', auth, rootUrl: `${emu.origin}/` });
    const made = await calendar.events.insert({
      calendarId: 'primary',
      requestBody: {
        summary: 'Masked',
        location: 'Room 7',
        start: { dateTime: '2027-03-01T09:00:00Z' },
        end: { dateTime: '2027-03-01T10:00:00Z' },
      },
      fields: 'id,etag',
    });
    expect(Object.keys(made.data).sort()).toEqual(['etag', 'id']);
    const page = await calendar.events.list({
      calendarId: 'primary',
      fields: 'items(summary,start/dateTime)',
    });
    expect(page.data).toEqual({
      items: [{ summary: 'Masked', start: { dateTime: '2027-03-01T09:00:00Z' } }],
    });
    const refused = await calendar.events.list({ calendarId: 'primary', fields: 'items(((' }).then(
      () => undefined,
      (error: { status?: number; response?: { data?: { error?: { errors?: unknown[] } } } }) => error,
    );
    expect(refused?.status).toBe(400);
    expect(refused?.response?.data?.error?.errors?.[0]).toMatchObject({
      reason: 'invalidParameter',
      location: 'fields',
    });
    // Google's client treats 304 as success (its default validateStatus takes < 400).
    const again = await calendar.events.get(
      { calendarId: 'primary', eventId: made.data.id as string },
      { headers: { 'If-None-Match': made.data.etag as string } },
    );
    expect(again.status).toBe(304);
    expect(again.data).toBeFalsy();
  });
});
