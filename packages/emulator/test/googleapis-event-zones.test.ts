/**
 * A user of Google's own client (googleapis), with only rootUrl changed, on a calendar in
 * Kiritimati (UTC+14) read from New York: all-day events listed by the local day of their
 * calendar, free/busy agreeing, times answered in the zone asked for, a big meeting read with
 * maxAttendees and answered back without losing anyone (decision 0055).
 */
import { google } from 'googleapis';
import { describe, expect, it } from 'vitest';
import { useEmulator } from './support/harness.ts';

const emu = useEmulator();

describe('googleapis: time zones and attendees of events', () => {
  it('lists by the calendar’s days, answers in the zone asked for, and keeps hidden attendees', async () => {
    const auth = new google.auth.OAuth2();
    auth.setCredentials({ access_token: 'ana@example.com' });
    const calendar = google.calendar({ version: 'v3', auth, rootUrl: `${emu.origin}/` });

    const island = await calendar.calendars.insert({
      requestBody: { summary: 'Island office', timeZone: 'Pacific/Kiritimati' },
    });
    const calendarId = island.data.id as string;
    await calendar.events.insert({
      calendarId,
      requestBody: { summary: 'Holiday', start: { date: '2026-07-01' }, end: { date: '2026-07-02' } },
    });
    const meeting = await calendar.events.insert({
      calendarId,
      requestBody: {
        summary: 'All hands',
        start: { dateTime: '2026-07-02T09:00:00', timeZone: 'Pacific/Kiritimati' },
        end: { dateTime: '2026-07-02T10:00:00', timeZone: 'Pacific/Kiritimati' },
        attendees: [
          { email: 'bo@example.com' },
          { email: 'ana@example.com', responseStatus: 'needsAction' },
          { email: 'cy@example.com' },
        ],
      },
    });

    // The island's 1 July is 30 June 10:00 to 1 July 10:00 UTC: in the evening of 1 July (UTC)
    // the holiday is over there, and neither list nor free/busy has it.
    const evening = { timeMin: '2026-07-01T12:00:00Z', timeMax: '2026-07-01T18:00:00Z' };
    const late = await calendar.events.list({ calendarId, ...evening, singleEvents: true });
    expect(late.data.items).toEqual([]);
    const free = await calendar.freebusy.query({ requestBody: { ...evening, items: [{ id: calendarId }] } });
    expect(free.data.calendars?.[calendarId]?.busy).toEqual([]);
    const morning = { timeMin: '2026-06-30T09:00:00Z', timeMax: '2026-06-30T11:00:00Z' };
    const early = await calendar.events.list({ calendarId, ...morning, singleEvents: true });
    expect(early.data.items?.map((event) => event.summary)).toEqual(['Holiday']);
    const busy = await calendar.freebusy.query({ requestBody: { ...morning, items: [{ id: calendarId }] } });
    expect(busy.data.calendars?.[calendarId]?.busy).toEqual([
      { start: '2026-06-30T10:00:00Z', end: '2026-06-30T11:00:00Z' },
    ]);

    // Read from New York: the meeting at the island's 09:00 is 15:00 the day before there.
    const fromNewYork = await calendar.events.list({
      calendarId,
      timeZone: 'America/New_York',
      singleEvents: true,
      orderBy: 'startTime',
    });
    expect(fromNewYork.data.timeZone).toBe('America/New_York');
    expect(fromNewYork.data.items?.map((event) => event.start)).toEqual([
      { date: '2026-07-01' },
      { dateTime: '2026-07-01T15:00:00-04:00', timeZone: 'Pacific/Kiritimati' },
    ]);

    // A big meeting read with maxAttendees: only my own entry, and a flag saying more exist.
    const mine = await calendar.events.get({
      calendarId,
      eventId: meeting.data.id as string,
      maxAttendees: 1,
      alwaysIncludeEmail: false,
    });
    expect(mine.data.attendeesOmitted).toBe(true);
    expect(mine.data.attendees).toEqual([{ email: 'ana@example.com', responseStatus: 'needsAction' }]);
    // Accepting through what I read keeps the other attendees.
    const accepted = await calendar.events.update({
      calendarId,
      eventId: meeting.data.id as string,
      requestBody: { ...mine.data, attendees: [{ email: 'ana@example.com', responseStatus: 'accepted' }] },
    });
    expect(accepted.data.attendees?.map((attendee) => [attendee.email, attendee.responseStatus])).toEqual([
      ['bo@example.com', undefined],
      ['ana@example.com', 'accepted'],
      ['cy@example.com', undefined],
    ]);
  });
});
