// The type-check benchmark's program with @gspec/calendar and @gspec/searchads360; theirs.ts
// is the same program with Google's clients. Never run, only type-checked (types.bench.ts).
import { createCalendar, type Event, type EventsInsertBody, isNotFound, items, sync } from '@gspec/calendar';
import { type ConversionInput, createSearchAds360 } from '@gspec/searchads360';

const calendar = createCalendar({ accessToken: 'token' });
const searchAds = createSearchAds360({ accessToken: 'token' });

export async function calendars(): Promise<string> {
  const created = await calendar.calendars.insert({ summary: 'Team', timeZone: 'Europe/Zurich' });
  const id = created.id ?? '';
  const read = await calendar.calendars.get({ calendarId: id });
  await calendar.calendars.patch({ calendarId: id, description: `${read.summary} calendar` });
  await calendar.calendars.update({ calendarId: id, summary: 'Team (renamed)', location: 'Zurich' });
  await calendar.calendars.clear({ calendarId: 'primary' });
  await calendar.calendars.delete({ calendarId: id });
  return id;
}

export async function calendarList(): Promise<string[]> {
  const names: string[] = [];
  const page = await calendar.calendarList.list({ minAccessRole: 'writer', maxResults: 50 });
  for (const entry of page.items ?? []) names.push(entry.summaryOverride ?? entry.summary ?? '');
  const entry = await calendar.calendarList.get({ calendarId: 'primary' });
  await calendar.calendarList.patch({ calendarId: 'primary', colorId: entry.colorId ?? '1', hidden: false });
  await calendar.calendarList.update({ calendarId: 'primary', selected: true, defaultReminders: [] });
  await calendar.calendarList.insert({ id: 'team@example.com', colorRgbFormat: false });
  await calendar.calendarList.delete({ calendarId: 'team@example.com' });
  return names;
}

const planning: EventsInsertBody = {
  summary: 'Planning',
  description: 'Quarterly planning',
  location: 'Room 4',
  start: { dateTime: '2027-01-05T10:00:00+01:00' },
  end: { dateTime: '2027-01-05T11:00:00+01:00' },
  attendees: [{ email: 'ana@example.com', optional: false }, { email: 'ben@example.com' }],
  reminders: { useDefault: false, overrides: [{ method: 'popup', minutes: 10 }] },
  transparency: 'opaque',
  visibility: 'default',
};

export async function events(): Promise<Event[]> {
  const created = await calendar.events.insert({ calendarId: 'primary', sendUpdates: 'all', ...planning });
  const eventId = created.id ?? '';
  const read = await calendar.events.get({ calendarId: 'primary', eventId, maxAttendees: 10 });
  await calendar.events.patch({ calendarId: 'primary', eventId, location: null, colorId: '5' });
  await calendar.events.update({
    calendarId: 'primary',
    eventId,
    ifMatch: read.etag ?? '',
    summary: 'Planning (moved)',
    start: { dateTime: '2027-01-06T10:00:00+01:00' },
    end: { dateTime: '2027-01-06T11:00:00+01:00' },
  });
  const recurring = await calendar.events.insert({
    calendarId: 'primary',
    summary: 'Stand-up',
    start: { dateTime: '2027-01-04T09:00:00', timeZone: 'Europe/Zurich' },
    end: { dateTime: '2027-01-04T09:15:00', timeZone: 'Europe/Zurich' },
    recurrence: ['RRULE:FREQ=DAILY;COUNT=5'],
  });
  const instances = await calendar.events.instances({ calendarId: 'primary', eventId: recurring.id ?? '' });
  const quick = await calendar.events.quickAdd({ calendarId: 'primary', text: 'Lunch tomorrow at noon' });
  await calendar.events.move({
    calendarId: 'primary',
    eventId: quick.id ?? '',
    destination: 'team@example.com',
  });
  await calendar.events.import({
    calendarId: 'primary',
    iCalUID: 'review-2027@example.com',
    summary: 'Review',
    start: { date: '2027-02-01' },
    end: { date: '2027-02-02' },
  });
  const all: Event[] = [];
  for await (const event of items(calendar.events.list, { calendarId: 'primary', singleEvents: true })) {
    if (event.status !== 'cancelled') all.push(event);
  }
  const page = await calendar.events.list({
    calendarId: 'primary',
    timeMin: '2027-01-01T00:00:00Z',
    orderBy: 'startTime',
    singleEvents: true,
  });
  all.push(...(page.items ?? []), ...(instances.items ?? []));
  try {
    await calendar.events.delete({ calendarId: 'primary', eventId, sendUpdates: 'none' });
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  return all;
}

export async function sharing(): Promise<string[]> {
  const rule = await calendar.acl.insert({
    calendarId: 'primary',
    role: 'reader',
    scope: { type: 'user', value: 'ben@example.com' },
  });
  await calendar.acl.patch({ calendarId: 'primary', ruleId: rule.id ?? '', role: 'writer' });
  const rules = await calendar.acl.list({ calendarId: 'primary' });
  await calendar.acl.delete({ calendarId: 'primary', ruleId: rule.id ?? '' });
  return (rules.items ?? []).map((r) => `${r.scope?.type}:${r.scope?.value} ${r.role}`);
}

export async function settingsAndColors(): Promise<number> {
  const colors = await calendar.colors.get();
  const zone = await calendar.settings.get({ setting: 'timezone' });
  const settings = await calendar.settings.list({ maxResults: 20 });
  const busy = await calendar.freebusy.query({
    timeMin: '2027-01-04T00:00:00Z',
    timeMax: '2027-01-11T00:00:00Z',
    timeZone: zone.value ?? 'UTC',
    items: [{ id: 'primary' }, { id: 'team@example.com' }],
  });
  const periods = Object.values(busy.calendars ?? {}).flatMap((c) => c.busy ?? []);
  return Object.keys(colors.event ?? {}).length + (settings.items ?? []).length + periods.length;
}

export async function notifications(): Promise<void> {
  const channel = await calendar.events.watch({
    calendarId: 'primary',
    id: 'channel-1',
    type: 'web_hook',
    address: 'https://example.com/notify',
    token: 'shared-secret',
  });
  await calendar.channels.stop({ id: channel.id ?? '', resourceId: channel.resourceId ?? '' });
}

const order: ConversionInput = {
  agencyId: '20100000000000895',
  advertiserId: '21700000000011523',
  clickId: 'COiYmPDTv7kCFcP0KgodOzQAAA',
  conversionId: 'order-2027-01-05-000001',
  conversionTimestamp: '1799143200000',
  segmentationType: 'FLOODLIGHT',
  segmentationName: 'Online purchase',
  type: 'TRANSACTION',
  revenueMicros: '129990000',
  currencyCode: 'EUR',
};

export async function conversions(): Promise<string[]> {
  const inserted = await searchAds.conversion.insert({ conversion: [order] });
  const stored = inserted.conversion ?? [];
  await searchAds.conversion.update({
    conversion: stored.map((row) => ({
      ...order,
      conversionId: row.conversionId,
      revenueMicros: '99990000',
    })),
  });
  const availability = await searchAds.conversion.updateAvailability({
    availabilities: [
      {
        agencyId: order.agencyId,
        advertiserId: order.advertiserId,
        segmentationType: 'FLOODLIGHT',
        segmentationName: 'Online purchase',
        availabilityTimestamp: '1799146800000',
      },
    ],
  });
  const columns = await searchAds.savedColumns.list({
    agencyId: '20100000000000895',
    advertiserId: '21700000000011523',
  });
  const csv = await searchAds.reports.getIdMappingFile({
    agencyId: '20100000000000895',
    advertiserId: '21700000000011523',
  });
  return [
    ...stored.map((row) => row.dsConversionId ?? ''),
    ...(availability.availabilities ?? []).map((a) => a.segmentationName ?? ''),
    ...(columns.items ?? []).map((c) => c.savedColumnName ?? ''),
    csv.split('\n')[0] ?? '',
  ];
}

export async function more(): Promise<number> {
  const rule = await calendar.acl.get({ calendarId: 'primary', ruleId: 'user:ben@example.com' });
  await calendar.acl.update({
    calendarId: 'primary',
    ruleId: rule.id ?? '',
    role: 'owner',
    scope: rule.scope ?? { type: 'default' },
  });
  const watched = await calendar.calendarList.watch({
    id: 'channel-2',
    type: 'web_hook',
    address: 'https://example.com/n',
  });
  await calendar.settings.watch({ id: 'channel-3', type: 'web_hook', address: 'https://example.com/n' });
  const kept: Event[] = [];
  const result = await sync(
    calendar.events.list,
    { calendarId: 'primary', showDeleted: true },
    { syncToken: watched.token ?? undefined, onItems: (changed) => void kept.push(...changed) },
  );
  const rows = await searchAds.conversion.get({
    agencyId: '20100000000000895',
    advertiserId: '21700000000011523',
    engineAccountId: '700000000042201',
    startDate: 20270101,
    endDate: 20270131,
    startRow: 0,
    rowCount: 100,
  });
  return kept.length + (rows.conversion ?? []).length + result.nextSyncToken.length;
}
