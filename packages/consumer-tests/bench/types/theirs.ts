// The type-check benchmark's program with Google's clients (@googleapis/calendar and the
// doubleclicksearch API of googleapis); ours.ts is the same program with @gspec/calendar and
// @gspec/searchads360. Never run, only type-checked (types.bench.ts).
import { calendar_v3 } from '@googleapis/calendar';
import { doubleclicksearch_v2 } from 'googleapis/build/src/apis/doubleclicksearch/v2.js';

const calendar = new calendar_v3.Calendar({});
const searchAds = new doubleclicksearch_v2.Doubleclicksearch({});

export async function calendars(): Promise<string> {
  const { data: created } = await calendar.calendars.insert({
    requestBody: { summary: 'Team', timeZone: 'Europe/Zurich' },
  });
  const id = created.id ?? '';
  const { data: read } = await calendar.calendars.get({ calendarId: id });
  await calendar.calendars.patch({
    calendarId: id,
    requestBody: { description: `${read.summary} calendar` },
  });
  await calendar.calendars.update({
    calendarId: id,
    requestBody: { summary: 'Team (renamed)', location: 'Zurich' },
  });
  await calendar.calendars.clear({ calendarId: 'primary' });
  await calendar.calendars.delete({ calendarId: id });
  return id;
}

export async function calendarList(): Promise<string[]> {
  const names: string[] = [];
  const { data: page } = await calendar.calendarList.list({ minAccessRole: 'writer', maxResults: 50 });
  for (const entry of page.items ?? []) names.push(entry.summaryOverride ?? entry.summary ?? '');
  const { data: entry } = await calendar.calendarList.get({ calendarId: 'primary' });
  await calendar.calendarList.patch({
    calendarId: 'primary',
    requestBody: { colorId: entry.colorId ?? '1', hidden: false },
  });
  await calendar.calendarList.update({
    calendarId: 'primary',
    requestBody: { selected: true, defaultReminders: [] },
  });
  await calendar.calendarList.insert({ colorRgbFormat: false, requestBody: { id: 'team@example.com' } });
  await calendar.calendarList.delete({ calendarId: 'team@example.com' });
  return names;
}

const planning: calendar_v3.Schema$Event = {
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

export async function events(): Promise<calendar_v3.Schema$Event[]> {
  const { data: created } = await calendar.events.insert({
    calendarId: 'primary',
    sendUpdates: 'all',
    requestBody: planning,
  });
  const eventId = created.id ?? '';
  const { data: read } = await calendar.events.get({ calendarId: 'primary', eventId, maxAttendees: 10 });
  await calendar.events.patch({
    calendarId: 'primary',
    eventId,
    requestBody: { location: null, colorId: '5' },
  });
  await calendar.events.update(
    {
      calendarId: 'primary',
      eventId,
      requestBody: {
        summary: 'Planning (moved)',
        start: { dateTime: '2027-01-06T10:00:00+01:00' },
        end: { dateTime: '2027-01-06T11:00:00+01:00' },
      },
    },
    { headers: { 'If-Match': read.etag ?? '' } },
  );
  const { data: recurring } = await calendar.events.insert({
    calendarId: 'primary',
    requestBody: {
      summary: 'Stand-up',
      start: { dateTime: '2027-01-04T09:00:00', timeZone: 'Europe/Zurich' },
      end: { dateTime: '2027-01-04T09:15:00', timeZone: 'Europe/Zurich' },
      recurrence: ['RRULE:FREQ=DAILY;COUNT=5'],
    },
  });
  const { data: instances } = await calendar.events.instances({
    calendarId: 'primary',
    eventId: recurring.id ?? '',
  });
  const { data: quick } = await calendar.events.quickAdd({
    calendarId: 'primary',
    text: 'Lunch tomorrow at noon',
  });
  await calendar.events.move({
    calendarId: 'primary',
    eventId: quick.id ?? '',
    destination: 'team@example.com',
  });
  await calendar.events.import({
    calendarId: 'primary',
    requestBody: {
      iCalUID: 'review-2027@example.com',
      summary: 'Review',
      start: { date: '2027-02-01' },
      end: { date: '2027-02-02' },
    },
  });
  const all: calendar_v3.Schema$Event[] = [];
  let pageToken: string | undefined;
  do {
    const { data } = await calendar.events.list({ calendarId: 'primary', singleEvents: true, pageToken });
    for (const event of data.items ?? []) if (event.status !== 'cancelled') all.push(event);
    pageToken = data.nextPageToken ?? undefined;
  } while (pageToken);
  const { data: page } = await calendar.events.list({
    calendarId: 'primary',
    timeMin: '2027-01-01T00:00:00Z',
    orderBy: 'startTime',
    singleEvents: true,
  });
  all.push(...(page.items ?? []), ...(instances.items ?? []));
  try {
    await calendar.events.delete({ calendarId: 'primary', eventId, sendUpdates: 'none' });
  } catch (error) {
    if ((error as { status?: number }).status !== 404) throw error;
  }
  return all;
}

export async function sharing(): Promise<string[]> {
  const { data: rule } = await calendar.acl.insert({
    calendarId: 'primary',
    requestBody: { role: 'reader', scope: { type: 'user', value: 'ben@example.com' } },
  });
  await calendar.acl.patch({ calendarId: 'primary', ruleId: rule.id ?? '', requestBody: { role: 'writer' } });
  const { data: rules } = await calendar.acl.list({ calendarId: 'primary' });
  await calendar.acl.delete({ calendarId: 'primary', ruleId: rule.id ?? '' });
  return (rules.items ?? []).map((r) => `${r.scope?.type}:${r.scope?.value} ${r.role}`);
}

export async function settingsAndColors(): Promise<number> {
  const { data: colors } = await calendar.colors.get();
  const { data: zone } = await calendar.settings.get({ setting: 'timezone' });
  const { data: settings } = await calendar.settings.list({ maxResults: 20 });
  const { data: busy } = await calendar.freebusy.query({
    requestBody: {
      timeMin: '2027-01-04T00:00:00Z',
      timeMax: '2027-01-11T00:00:00Z',
      timeZone: zone.value ?? 'UTC',
      items: [{ id: 'primary' }, { id: 'team@example.com' }],
    },
  });
  const periods = Object.values(busy.calendars ?? {}).flatMap((c) => c.busy ?? []);
  return Object.keys(colors.event ?? {}).length + (settings.items ?? []).length + periods.length;
}

export async function notifications(): Promise<void> {
  const { data: channel } = await calendar.events.watch({
    calendarId: 'primary',
    requestBody: {
      id: 'channel-1',
      type: 'web_hook',
      address: 'https://example.com/notify',
      token: 'shared-secret',
    },
  });
  await calendar.channels.stop({
    requestBody: { id: channel.id ?? '', resourceId: channel.resourceId ?? '' },
  });
}

const order: doubleclicksearch_v2.Schema$Conversion = {
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
  const { data: inserted } = await searchAds.conversion.insert({ requestBody: { conversion: [order] } });
  const stored = inserted.conversion ?? [];
  await searchAds.conversion.update({
    requestBody: {
      conversion: stored.map((row) => ({
        ...order,
        conversionId: row.conversionId,
        revenueMicros: '99990000',
      })),
    },
  });
  const { data: availability } = await searchAds.conversion.updateAvailability({
    requestBody: {
      availabilities: [
        {
          agencyId: order.agencyId,
          advertiserId: order.advertiserId,
          segmentationType: 'FLOODLIGHT',
          segmentationName: 'Online purchase',
          availabilityTimestamp: '1799146800000',
        },
      ],
    },
  });
  const { data: columns } = await searchAds.savedColumns.list({
    agencyId: '20100000000000895',
    advertiserId: '21700000000011523',
  });
  const { data: csv } = await searchAds.reports.getIdMappingFile({
    agencyId: '20100000000000895',
    advertiserId: '21700000000011523',
  });
  return [
    ...stored.map((row) => row.dsConversionId ?? ''),
    ...(availability.availabilities ?? []).map((a) => a.segmentationName ?? ''),
    ...(columns.items ?? []).map((c) => c.savedColumnName ?? ''),
    String(csv).split('\n')[0] ?? '',
  ];
}

export async function more(): Promise<number> {
  const { data: rule } = await calendar.acl.get({ calendarId: 'primary', ruleId: 'user:ben@example.com' });
  await calendar.acl.update({
    calendarId: 'primary',
    ruleId: rule.id ?? '',
    requestBody: { role: 'owner', scope: rule.scope ?? { type: 'default' } },
  });
  const { data: watched } = await calendar.calendarList.watch({
    requestBody: { id: 'channel-2', type: 'web_hook', address: 'https://example.com/n' },
  });
  await calendar.settings.watch({
    requestBody: { id: 'channel-3', type: 'web_hook', address: 'https://example.com/n' },
  });
  const kept: calendar_v3.Schema$Event[] = [];
  let pageToken: string | undefined;
  let nextSyncToken = '';
  do {
    const { data } = await calendar.events.list({
      calendarId: 'primary',
      showDeleted: true,
      syncToken: watched.token ?? undefined,
      pageToken,
    });
    kept.push(...(data.items ?? []));
    pageToken = data.nextPageToken ?? undefined;
    nextSyncToken = data.nextSyncToken ?? nextSyncToken;
  } while (pageToken);
  const { data: rows } = await searchAds.conversion.get({
    agencyId: '20100000000000895',
    advertiserId: '21700000000011523',
    engineAccountId: '700000000042201',
    startDate: 20270101,
    endDate: 20270131,
    startRow: 0,
    rowCount: 100,
  });
  return kept.length + (rows.conversion ?? []).length + nextSyncToken.length;
}
