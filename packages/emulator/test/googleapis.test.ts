/**
 * Google's own client (googleapis) against the emulator with only its rootUrl changed: create
 * a calendar, add events, change one, page, sync, move, delete. Every answer is checked
 * against the spec by the harness.
 */
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

    await calendar.calendars.delete({ calendarId });
    const gone = await calendar.calendars.get({ calendarId }).catch((error: { status?: number }) => error);
    expect((gone as { status?: number }).status).toBe(404);
  });
});
