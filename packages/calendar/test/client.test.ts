import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  type CalendarClient,
  createCalendarClient,
  defaultBaseUrl,
  type Event,
  operations,
  type paths,
} from '../src/index.ts';

function recordingClient(
  answer: () => Response = () => Response.json({ kind: 'calendar#events', items: [] }),
) {
  const requests: Request[] = [];
  const client = createCalendarClient({
    accessToken: 'test-token',
    fetch: async (request) => {
      requests.push(request);
      return answer();
    },
  });
  return { client, requests };
}

describe('createCalendarClient', () => {
  it('talks to the live service by default', () => {
    expect(defaultBaseUrl).toBe('https://www.googleapis.com/calendar/v3');
  });

  it('knows every operation of the spec by its Google method id', () => {
    expect(operations['events.list']).toEqual({ method: 'GET', path: '/calendars/{calendarId}/events' });
    expect(operations['colors.get']).toEqual({ method: 'GET', path: '/colors' });
  });

  it.each([
    [
      'events.list with repeated array parameters',
      (c: CalendarClient) =>
        c.GET('/calendars/{calendarId}/events', {
          params: {
            path: { calendarId: 'primary' },
            query: {
              eventTypes: ['default', 'focusTime'],
              singleEvents: true,
              timeMin: '2026-12-01T00:00:00Z',
            },
          },
        }),
      {
        method: 'GET',
        url: 'https://www.googleapis.com/calendar/v3/calendars/primary/events?eventTypes=default&eventTypes=focusTime&singleEvents=true&timeMin=2026-12-01T00%3A00%3A00Z',
      },
    ],
    [
      'events.delete with an id that needs encoding',
      (c: CalendarClient) =>
        c.DELETE('/calendars/{calendarId}/events/{eventId}', {
          params: {
            path: { calendarId: 'team@example.com', eventId: 'abc123' },
            query: { sendUpdates: 'none' },
          },
        }),
      {
        method: 'DELETE',
        url: 'https://www.googleapis.com/calendar/v3/calendars/team%40example.com/events/abc123?sendUpdates=none',
      },
    ],
    [
      'colors.get',
      (c: CalendarClient) => c.GET('/colors'),
      { method: 'GET', url: 'https://www.googleapis.com/calendar/v3/colors' },
    ],
  ])('sends %s as the spec says', async (_title, call, want) => {
    const { client, requests } = recordingClient();
    await call(client);
    expect({ method: requests[0]?.method, url: requests[0]?.url }).toEqual(want);
    expect(requests[0]?.headers.get('authorization')).toBe('Bearer test-token');
  });

  it('sends events.insert with a JSON body and returns the typed event', async () => {
    const created = { kind: 'calendar#event', id: 'ev1', summary: 'Standup', etag: '"1"' };
    const { client, requests } = recordingClient(() => Response.json(created));
    const { data, error } = await client.POST('/calendars/{calendarId}/events', {
      params: { path: { calendarId: 'primary' }, query: { conferenceDataVersion: 1 } },
      body: {
        summary: 'Standup',
        start: { dateTime: '2026-12-01T09:30:00-05:00' },
        end: { date: '2026-12-02' },
      },
    });
    expect(error).toBeUndefined();
    expect(data?.id).toBe('ev1');
    expect(requests[0]?.headers.get('content-type')).toBe('application/json');
    expect(await requests[0]?.json()).toEqual({
      summary: 'Standup',
      start: { dateTime: '2026-12-01T09:30:00-05:00' },
      end: { date: '2026-12-02' },
    });
  });

  it('types the answers exactly from the spec', () => {
    type ListAnswer =
      paths['/calendars/{calendarId}/events']['get']['responses'][200]['content']['application/json'];
    expectTypeOf<ListAnswer['nextSyncToken']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<ListAnswer['items']>().toEqualTypeOf<Event[] | undefined>();
    expectTypeOf<NonNullable<Event['status']>>().toEqualTypeOf<'confirmed' | 'tentative' | 'cancelled'>();
  });

  it('rejects at compile time what the spec forbids', () => {
    const { client } = recordingClient();
    const neverCalled = () => {
      // @ts-expect-error calendarId is a required path parameter
      void client.GET('/calendars/{calendarId}/events', { params: { path: {} } });
      void client.POST('/calendars/{calendarId}/events', {
        params: { path: { calendarId: 'primary' } },
        // @ts-expect-error etag is read-only: the server assigns it, so request bodies cannot carry it
        body: { summary: 'x', etag: '"1"' },
      });
      void client.GET('/calendars/{calendarId}/events', {
        params: {
          path: { calendarId: 'p' },
          // @ts-expect-error orderBy is a closed set: startTime or updated
          query: { orderBy: 'title' },
        },
      });
    };
    expect(typeof neverCalled).toBe('function');
  });
});
