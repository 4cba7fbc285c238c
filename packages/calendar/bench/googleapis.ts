// The benchmark's small program, with @googleapis/calendar: list one page of events.
import { calendar_v3 } from '@googleapis/calendar';

const calendar = new calendar_v3.Calendar({ rootUrl: process.env.BENCH_ROOT_URL });
const { data } = await calendar.events.list(
  { calendarId: 'primary', maxResults: 10 },
  { headers: { Authorization: `Bearer ${process.env.BENCH_TOKEN}` } },
);
console.log(data.items?.length ?? 0);
