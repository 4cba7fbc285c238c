// The program a user writes from the first example of the Calendar README: a token provider,
// the global fetch, one page of events and their summaries. The benchmark bundles it and
// never runs it, so it calls Google itself, as the README's program does.
import { createCalendarWith, eventsList } from '@gspec/calendar';

// Stand-ins for the user's own token store.
const cachedToken = async () => process.env.TOKEN ?? '';
const refreshToken = cachedToken;

const calendar = createCalendarWith(
  {
    accessToken: async ({ refresh }) => (refresh ? refreshToken() : cachedToken()),
  },
  eventsList,
);
const page = await calendar.events.list({
  calendarId: 'primary',
  timeMin: '2026-12-01T00:00:00Z',
  singleEvents: true,
  orderBy: 'startTime',
});
for (const event of page.items ?? []) console.log(event.summary, event.start?.dateTime ?? event.start?.date);
