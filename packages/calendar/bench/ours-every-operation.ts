// The same program as ours.ts with a client of every operation (`createCalendar`), which binds
// them all with their page walks and the google-auth-library glue: a bundler cannot leave out
// what an object holds. Bundled only, as the reference for what naming the operations saves.
import { createCalendar } from '@gspec/calendar';
import { nodeFetch } from '@gspec/calendar/node';

const calendar = createCalendar({
  accessToken: process.env.BENCH_TOKEN,
  baseUrl: process.env.BENCH_BASE_URL,
  fetch: nodeFetch,
});
const page = await calendar.events.list({ calendarId: 'primary', maxResults: 10 });
console.log(page.items?.length ?? 0);
