import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  type AnswerOf,
  type ArgsOf,
  type CalendarClient,
  type CalendarResources,
  colorsGet,
  createCalendar,
  createCalendarClient,
  defaultBaseUrl,
  type Event,
  type EventInput,
  isNotFound,
  isNotModified,
  type NotModified,
  operations,
  type paths,
  type Trimmed,
} from '../src/index.ts';
import { scriptedFetch } from './support.ts';

const BASE = 'https://www.googleapis.com/calendar/v3';

describe('createCalendarClient', () => {
  it('talks to the live service by default', () => {
    expect(defaultBaseUrl).toBe(BASE);
  });

  it('knows every operation of the spec by its Google method id, with x-pagination and x-sync', () => {
    expect(Object.keys(operations)).toHaveLength(37);
    expect(operations['colors.get']).toEqual(['colors.get', 'GET', '/colors']);
    expect(operations['colors.get']).toBe(colorsGet);
    // A list that syncs: no body, the parameters the service refuses with a sync token.
    expect(operations['events.list']).toEqual([
      'events.list',
      'GET',
      '/calendars/{calendarId}/events',
      0,
      [
        'iCalUID',
        'orderBy',
        'privateExtendedProperty',
        'q',
        'sharedExtendedProperty',
        'timeMin',
        'timeMax',
        'updatedMin',
      ],
    ]);
    // A list that does not sync; a body with its query parameters.
    expect(operations['events.instances'][4]).toBe(1);
    expect(operations['events.insert'][3]).toContain('sendUpdates');
    for (const [id, op] of Object.entries(operations)) expect(op[0]).toBe(id);
  });

  it.each<
    [
      string,
      {
        given: (c: CalendarClient) => Promise<unknown>;
        want: { method: string; url: string; body?: unknown; ifMatch?: string };
      },
    ]
  >([
    [
      'events.list with repeated array parameters',
      {
        given: (c) =>
          c.events.list({
            calendarId: 'primary',
            eventTypes: ['default', 'focusTime'],
            singleEvents: true,
            timeMin: '2026-12-01T00:00:00Z',
          }),
        want: {
          method: 'GET',
          url: `${BASE}/calendars/primary/events?eventTypes=default&eventTypes=focusTime&singleEvents=true&timeMin=2026-12-01T00%3A00%3A00Z`,
        },
      },
    ],
    [
      'events.delete with an id that needs encoding',
      {
        given: (c) =>
          c.events.delete({ calendarId: 'team@example.com', eventId: 'abc123', sendUpdates: 'none' }),
        want: {
          method: 'DELETE',
          url: `${BASE}/calendars/team%40example.com/events/abc123?sendUpdates=none`,
        },
      },
    ],
    [
      'colors.get without arguments',
      { given: (c) => c.colors.get(), want: { method: 'GET', url: `${BASE}/colors` } },
    ],
    [
      'events.insert: query parameters in the URL, the event in the body',
      {
        given: (c) =>
          c.events.insert({
            calendarId: 'primary',
            conferenceDataVersion: 1,
            summary: 'Standup',
            start: { dateTime: '2026-12-01T09:30:00-05:00' },
            end: { date: '2026-12-02' },
          }),
        want: {
          method: 'POST',
          url: `${BASE}/calendars/primary/events?conferenceDataVersion=1`,
          body: {
            summary: 'Standup',
            start: { dateTime: '2026-12-01T09:30:00-05:00' },
            end: { date: '2026-12-02' },
          },
        },
      },
    ],
    [
      'events.update with If-Match',
      {
        given: (c) =>
          c.events.update({
            calendarId: 'primary',
            eventId: 'e1',
            ifMatch: '"7"',
            start: { date: '2026-12-01' },
            end: { date: '2026-12-02' },
          }),
        want: {
          method: 'PUT',
          url: `${BASE}/calendars/primary/events/e1`,
          body: { start: { date: '2026-12-01' }, end: { date: '2026-12-02' } },
          ifMatch: '"7"',
        },
      },
    ],
    [
      'events.quickAdd with its required text',
      {
        given: (c) => c.events.quickAdd({ calendarId: 'primary', text: 'Lunch tomorrow 12:00' }),
        want: {
          method: 'POST',
          url: `${BASE}/calendars/primary/events/quickAdd?text=Lunch%20tomorrow%2012%3A00`,
        },
      },
    ],
  ])('sends %s as the spec says', async (_title, { given, want }) => {
    const { fetch, requests } = scriptedFetch(Response.json({ kind: 'calendar#events', items: [] }));
    await given(createCalendarClient({ accessToken: 'test-token', fetch }));
    const sent = requests[0];
    expect({
      method: sent?.method,
      url: sent?.url,
      body: sent?.body,
      ifMatch: sent?.headers['if-match'],
    }).toEqual({
      body: undefined,
      ifMatch: undefined,
      ...want,
    });
    expect(sent?.headers.authorization).toBe('Bearer test-token');
  });

  it('pages through events.list, empty pages included, and reports the sync token', async () => {
    const { fetch, requests } = scriptedFetch(
      Response.json({ items: [{ id: 'a' }], nextPageToken: 'p2' }),
      Response.json({ items: [], nextPageToken: 'p3' }),
      Response.json({ items: [{ id: 'b' }], nextSyncToken: 'sync-9' }),
    );
    const events = createCalendarClient({ fetch }).events.list.items({ calendarId: 'primary' });
    const ids: (string | undefined)[] = [];
    for await (const event of events) ids.push(event.id);
    expect(ids).toEqual(['a', 'b']);
    expect(requests).toHaveLength(3);
    expect(events.nextSyncToken).toBe('sync-9');
  });

  it.each([['events'], ['acl'], ['calendarList'], ['settings']] as const)(
    'offers the sync helper on %s.list',
    (resource) => {
      const client = createCalendarClient();
      expect(typeof client[resource].list.sync).toBe('function');
    },
  );

  it('throws typed errors from resource methods, while the raw methods return them', async () => {
    const notFound = Response.json(
      { error: { code: 404, message: 'Not Found', errors: [{ reason: 'notFound' }] } },
      { status: 404 },
    );
    const { fetch } = scriptedFetch(notFound);
    const client = createCalendarClient({ fetch });
    const error = await client.events.get({ calendarId: 'primary', eventId: 'x' }).catch((e: unknown) => e);
    expect(isNotFound(error) && error.operationId).toBe('events.get');
    const raw = await client.GET('/calendars/{calendarId}/events/{eventId}', {
      params: { path: { calendarId: 'primary', eventId: 'x' } },
    });
    expect(raw.response.status).toBe(404);
  });
});

describe('createCalendar', () => {
  it('has the resource namespaces of createCalendarClient and none of its raw methods', () => {
    const lean = createCalendar();
    const full = createCalendarClient();
    const namespaces = Object.keys(lean).sort();
    expect(namespaces).toEqual([
      'acl',
      'calendarList',
      'calendars',
      'channels',
      'colors',
      'events',
      'freebusy',
      'settings',
    ]);
    for (const name of namespaces) {
      expect(Object.keys(lean[name as keyof CalendarResources]).sort()).toEqual(
        Object.keys(full[name as keyof CalendarResources]).sort(),
      );
    }
    expect(['GET', 'POST', 'request', 'use'].filter((raw) => raw in lean)).toEqual([]);
    expectTypeOf(lean).toEqualTypeOf<CalendarResources>();
  });

  it.each<[string, { call: (c: CalendarResources) => Promise<unknown>; url: string; method: string }]>([
    [
      'events.list',
      {
        call: (c) =>
          c.events.list({
            calendarId: 'me@example.com',
            singleEvents: true,
            eventTypes: ['default', 'focusTime'],
          }),
        url: `${BASE}/calendars/me%40example.com/events?singleEvents=true&eventTypes=default&eventTypes=focusTime`,
        method: 'GET',
      },
    ],
    [
      'events.insert',
      {
        call: (c) =>
          c.events.insert({
            calendarId: 'primary',
            sendUpdates: 'all',
            start: { date: '2026-12-01' },
            end: { date: '2026-12-02' },
          }),
        url: `${BASE}/calendars/primary/events?sendUpdates=all`,
        method: 'POST',
      },
    ],
  ])('sends %s as createCalendarClient does', async (_title, { call, url, method }) => {
    const sent = [];
    for (const make of [createCalendar, createCalendarClient]) {
      const { fetch, requests } = scriptedFetch(Response.json({ items: [] }));
      await call(make({ accessToken: 't', fetch }));
      sent.push(requests[0]);
    }
    expect(sent[0]).toMatchObject({ url, method });
    expect(sent[0]).toEqual(sent[1]);
  });
});

describe('null in a patch body', () => {
  it('is sent as JSON null, so that the service removes the field', async () => {
    const { fetch, requests } = scriptedFetch(Response.json({ kind: 'calendar#event', id: 'e' }));
    const client = createCalendar({ accessToken: 't', fetch });
    await client.events.patch({ calendarId: 'primary', eventId: 'e', location: null, summary: 'Kept' });
    expect(requests[0]?.method).toBe('PATCH');
    expect(requests[0]?.body).toEqual({ location: null, summary: 'Kept' });
  });
});

describe('the types of the resource methods', () => {
  it('are exactly those of the spec', () => {
    type ListAnswer =
      paths['/calendars/{calendarId}/events']['get']['responses'][200]['content']['application/json'];
    expectTypeOf<ListAnswer['nextSyncToken']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<AnswerOf<'events.list'>['items']>().toEqualTypeOf<AnswerOf<'events.get'>[] | undefined>();
    expectTypeOf<AnswerOf<'events.get'>['etag']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<AnswerOf<'events.delete'>>().toEqualTypeOf<void>();
    expectTypeOf<NonNullable<Event['status']>>().toEqualTypeOf<'confirmed' | 'tentative' | 'cancelled'>();
    expectTypeOf<ArgsOf<'calendarList.insert'>['id']>().toEqualTypeOf<string>();
  });

  it('name every schema as users write it: Event as returned, EventInput as a body takes it', () => {
    expectTypeOf<AnswerOf<'events.get'>>().toEqualTypeOf<Event>();
    expectTypeOf<Event['etag']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<Event['attendees']>().toEqualTypeOf<NonNullable<Event['attendees']>[number][] | undefined>();
    expectTypeOf<EventInput>().not.toHaveProperty('etag'); // read-only: absent from what a body takes
    expectTypeOf<EventInput['summary']>().toEqualTypeOf<string | undefined>();
  });

  it('reject at compile time what the spec forbids', () => {
    const neverCalled = (c: CalendarClient) => {
      // @ts-expect-error calendarId is a required path parameter
      void c.events.list({});
      // @ts-expect-error etag is read-only: the server assigns it, so requests cannot carry it
      void c.events.insert({ calendarId: 'p', start: {}, end: {}, etag: '"1"' });
      // @ts-expect-error start and end are required by events.insert (allOf required in the spec)
      void c.events.insert({ calendarId: 'p', summary: 'x' });
      // @ts-expect-error id is required by calendarList.insert
      void c.calendarList.insert({ colorId: '1' });
      // @ts-expect-error orderBy is a closed set: startTime or updated
      void c.events.list({ calendarId: 'p', orderBy: 'title' });
      // @ts-expect-error events.list takes no body fields
      void c.events.list({ calendarId: 'p', summary: 'x' });
      // The patch body has no required field.
      void c.events.patch({ calendarId: 'p', eventId: 'e', summary: 'x' });
      // null removes a field in a patch (decision 0037)...
      void c.events.patch({ calendarId: 'p', eventId: 'e', location: null, reminders: null });
      void c.calendars.patch({ calendarId: 'p', description: null });
      void c.calendarList.patch({ calendarId: 'p', summaryOverride: null, colorId: null });
      // @ts-expect-error ...but never a field every event has
      void c.events.patch({ calendarId: 'p', eventId: 'e', start: null });
      // @ts-expect-error ...nor a calendar's title
      void c.calendars.patch({ calendarId: 'p', summary: null });
      // @ts-expect-error ...nor any field of a sharing rule
      void c.acl.patch({ calendarId: 'p', ruleId: 'r', role: null });
      // @ts-expect-error an update replaces the event and takes no null
      void c.events.update({ calendarId: 'p', eventId: 'e', start: {}, end: {}, location: null });
      // @ts-expect-error an insert takes no null either
      void c.calendars.insert({ summary: 'x', description: null });
    };
    expect(typeof neverCalled).toBe('function');
  });
});

describe('partial responses and conditional reads in the types', () => {
  const calendar = createCalendar({ accessToken: 't', fetch: scriptedFetch(Response.json({})).fetch });
  const ids = { calendarId: 'primary', eventId: 'e1' };

  it('answers what a literal mask selects, a trimmed event for any other, and the whole event without one', () => {
    expectTypeOf(calendar.events.get(ids)).resolves.toEqualTypeOf<AnswerOf<'events.get'>>();
    expectTypeOf(calendar.events.get({ ...ids, fields: 'start/dateTime' })).resolves.toEqualTypeOf<{
      start?: { dateTime?: string };
    }>();
    expectTypeOf(
      calendar.events.list({ calendarId: 'primary', fields: 'items(id),nextPageToken' }),
    ).resolves.toEqualTypeOf<{ items?: { id?: string }[]; nextPageToken?: string }>();
    const mask: string = ids.eventId;
    expectTypeOf(calendar.events.get({ ...ids, fields: mask })).resolves.toEqualTypeOf<
      Trimmed<AnswerOf<'events.get'>>
    >();
  });

  it('may answer NotModified where the spec documents 304, and only there', () => {
    expectTypeOf(calendar.events.get({ ...ids, ifNoneMatch: '"1"' })).resolves.toEqualTypeOf<
      AnswerOf<'events.get'> | NotModified
    >();
    expectTypeOf(calendar.events.list({ calendarId: 'primary', ifNoneMatch: '"1"' })).resolves.toEqualTypeOf<
      AnswerOf<'events.list'> | NotModified
    >();
    // @ts-expect-error colors.get answers no etag, so it has no conditional read
    calendar.colors.get({ ifNoneMatch: '"1"' }).catch(() => undefined);
  });

  it('sends If-None-Match and reads a 304 as NotModified', async () => {
    const { fetch, requests } = scriptedFetch(new Response(null, { status: 304, headers: { etag: '"1"' } }));
    const answer = await createCalendar({ accessToken: 't', fetch }).events.get({
      ...ids,
      ifNoneMatch: '"1"',
    });
    expect(requests[0]?.headers['if-none-match']).toBe('"1"');
    expect(isNotModified(answer)).toBe(true);
  });
});
