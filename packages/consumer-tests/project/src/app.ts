/**
 * Both clients as a user's program uses them, against the origin given as the first argument
 * (the emulator or the mock): it prints one JSON line of what it got back.
 */
import { createCalendar, createCalendarBatch, isNotFound } from '@gspec/calendar';
import { nodeFetch } from '@gspec/calendar/node';
import { createSearchAds360 } from '@gspec/searchads360';
import { idMappingRows } from '@gspec/searchads360/id-mapping';

const origin = process.argv[2];
if (!origin) throw new Error('usage: node build/src/app.js ORIGIN');

const calendar = createCalendar({
  accessToken: 'ana@example.com',
  baseUrl: `${origin}/calendar/v3`,
  fetch: nodeFetch,
});
const searchAds = createSearchAds360({
  accessToken: 'ana@example.com',
  baseUrl: `${origin}/doubleclicksearch/v2`,
});

const created = await calendar.calendars.insert({ summary: 'Release planning', timeZone: 'Europe/Zurich' });
const calendarId = created.id ?? 'primary';
const event = await calendar.events.insert({
  calendarId,
  summary: 'Release review',
  start: { dateTime: '2027-01-05T10:00:00', timeZone: 'Europe/Zurich' },
  end: { dateTime: '2027-01-05T11:00:00', timeZone: 'Europe/Zurich' },
});
const page = await calendar.events.list({ calendarId, singleEvents: true, orderBy: 'startTime' });
let missing = 'found';
try {
  await calendar.events.get({ calendarId, eventId: 'nosuchevent0' });
} catch (error) {
  if (!isNotFound(error)) throw error;
  missing = `${error.status} ${error.reasons.join(',')}`;
}

// Two calls in one batch request: each answered on its own.
const batch = createCalendarBatch({
  accessToken: 'ana@example.com',
  baseUrl: `${origin}/calendar/v3`,
  fetch: nodeFetch,
});
const batched = (
  await batch((b) => [
    b.events.insert({
      calendarId,
      summary: 'Batched',
      start: { date: '2027-01-06' },
      end: { date: '2027-01-07' },
    }),
    b.events.get({ calendarId, eventId: 'nosuchevent1' }),
  ])
).map((result) => {
  if (result.ok) return `ok ${result.value.summary}`;
  return isNotFound(result.error) ? `${result.error.status} ${result.error.reason}` : result.error.message;
});

const ids = { agencyId: '20100000000000895', advertiserId: '21700000000011523' };
const stored = await searchAds.conversion.insert({
  conversion: [
    {
      ...ids,
      clickId: 'COiYmPDTv7kCFcP0KgodOzQAAA',
      conversionId: 'order-2027-01-05-000001',
      conversionTimestamp: '1799143200000',
      segmentationType: 'FLOODLIGHT',
      segmentationName: 'Online purchase',
      type: 'TRANSACTION',
      revenueMicros: '129990000',
      currencyCode: 'EUR',
    },
  ],
});
const columns = await searchAds.savedColumns.list(ids);
let mappingRows = 0;
for await (const _row of idMappingRows(searchAds, ids)) mappingRows++;

console.log(
  JSON.stringify({
    calendar: created.summary,
    event: { id: event.id, start: event.start?.dateTime },
    listed: (page.items ?? []).map((item) => item.summary),
    missing,
    batched,
    conversions: (stored.conversion ?? []).map((c) => c.conversionId),
    savedColumns: columns.kind,
    mappingRows,
  }),
);
