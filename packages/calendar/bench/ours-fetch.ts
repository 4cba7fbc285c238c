// The same program as ours.ts with the global fetch, as a browser or edge program runs it
// (and a Node program that does not pass nodeFetch).
import { createCalendarWith, eventsList } from '@gspec/calendar';

const calendar = createCalendarWith(
  {
    accessToken: process.env.BENCH_TOKEN,
    baseUrl: process.env.BENCH_BASE_URL,
  },
  eventsList,
);
const page = await calendar.events.list({ calendarId: 'primary', maxResults: 10 });
console.log(page.items?.length ?? 0);
