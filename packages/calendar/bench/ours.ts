// The benchmark's small program, with @gspec/calendar: list one page of events.
import { createCalendarClient } from '@gspec/calendar';

const calendar = createCalendarClient({
  accessToken: process.env.BENCH_TOKEN,
  baseUrl: process.env.BENCH_BASE_URL,
});
const page = await calendar.events.list({ calendarId: 'primary', maxResults: 10 });
console.log(page.items?.length ?? 0);
