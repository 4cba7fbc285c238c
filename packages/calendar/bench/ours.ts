// The benchmark's small program, with @gspec/calendar as a Node program would use it: the
// resource methods only (no openapi-fetch) over nodeFetch (no undici): list one page of events.
import { createCalendarWith, eventsList } from '@gspec/calendar';
import { nodeFetch } from '@gspec/calendar/node';

const calendar = createCalendarWith(
  {
    accessToken: process.env.BENCH_TOKEN,
    baseUrl: process.env.BENCH_BASE_URL,
    fetch: nodeFetch,
  },
  eventsList,
);
const page = await calendar.events.list({ calendarId: 'primary', maxResults: 10 });
console.log(page.items?.length ?? 0);
