/** Tests of a user's project against the emulator its global setup started (emulator-setup.ts). */
import { createCalendar } from '@gspec/calendar';
import { google } from 'googleapis';
import { describe, expect, inject, it } from 'vitest';

const rootUrl = inject('emulatorRootUrl');

describe('the emulator from the global setup', () => {
  it('keeps what Google’s client writes, and our client reads it back', async () => {
    const auth = new google.auth.OAuth2();
    auth.setCredentials({ access_token: 'token-ana' });
    const calendar = google.calendar({ version: 'v3', auth, rootUrl });
    const { data: inserted } = await calendar.events.insert({
      calendarId: 'primary',
      requestBody: {
        summary: 'Written by googleapis',
        start: { dateTime: '2027-02-01T09:00:00Z' },
        end: { dateTime: '2027-02-01T09:30:00Z' },
      },
    });
    const ours = createCalendar({ accessToken: 'token-ana', baseUrl: `${rootUrl}calendar/v3` });
    const read = await ours.events.get({ calendarId: 'primary', eventId: inserted.id ?? '' });
    expect(read.summary).toBe('Written by googleapis');
  });

  it('refuses a token the setup does not know (strict mode)', async () => {
    const ours = createCalendar({
      accessToken: 'token-nobody',
      baseUrl: `${rootUrl}calendar/v3`,
      retry: false,
    });
    await expect(ours.calendarList.list({})).rejects.toMatchObject({ status: 401 });
  });
});
