import { describe, expect, it } from 'vitest';
import { createCalendarClient, isPreconditionFailed, modifyEvent } from '../src/index.ts';
import { googleError, scriptedFetch } from './support.ts';

const stored = (etag: string, summary: string) =>
  Response.json({
    kind: 'calendar#event',
    id: 'e1',
    etag,
    summary,
    htmlLink: 'https://calendar.google.com/e1',
    created: '2026-01-01T00:00:00Z',
    creator: { email: 'me@example.com', self: true },
    start: { date: '2026-12-01' },
    end: { date: '2026-12-02' },
    attendees: [{ email: 'a@example.com', self: true, responseStatus: 'accepted' }],
  });

describe('modifyEvent', () => {
  it.each<[string, { given: Response[]; maxAttempts?: number; want: { outcome: string; sent: string[] } }]>([
    [
      'gets, changes, updates with If-Match',
      {
        given: [stored('"1"', 'Review'), stored('"2"', 'Review (moved)')],
        want: { outcome: 'Review (moved)', sent: ['GET', 'PUT "1"'] },
      },
    ],
    [
      'reads again after 412 and redoes the change on the new version',
      {
        given: [
          stored('"1"', 'Review'),
          googleError(412, 'conditionNotMet'),
          stored('"2"', 'Review v2'),
          stored('"3"', 'Review v2 (moved)'),
        ],
        want: { outcome: 'Review v2 (moved)', sent: ['GET', 'PUT "1"', 'GET', 'PUT "2"'] },
      },
    ],
    [
      'gives up after maxAttempts conflicts with the last 412',
      {
        given: [
          stored('"1"', 'a'),
          googleError(412, 'conditionNotMet'),
          stored('"2"', 'b'),
          googleError(412, 'conditionNotMet'),
        ],
        maxAttempts: 2,
        want: { outcome: '412', sent: ['GET', 'PUT "1"', 'GET', 'PUT "2"'] },
      },
    ],
  ])('%s', async (_title, { given, maxAttempts, want }) => {
    const { fetch, requests } = scriptedFetch(...given);
    const calendar = createCalendarClient({ accessToken: 't', fetch });
    const outcome = await modifyEvent(
      calendar,
      { calendarId: 'primary', eventId: 'e1' },
      (event) => ({ ...event, summary: `${event.summary} (moved)` }),
      { update: { sendUpdates: 'all' }, ...(maxAttempts ? { maxAttempts } : {}) },
    ).then(
      (event) => event.summary,
      (error: unknown) => (isPreconditionFailed(error) ? '412' : String(error)),
    );
    expect(outcome).toBe(want.outcome);
    expect(requests.map((r) => (r.method === 'GET' ? 'GET' : `PUT ${r.headers['if-match']}`))).toEqual(
      want.sent,
    );
  });

  // `id` stays: event ids may be chosen by the client, so the spec does not mark them read-only (decision 0011).
  it('sends the whole event back without its read-only fields, with the update parameters', async () => {
    const { fetch, requests } = scriptedFetch(stored('"1"', 'Review'), stored('"2"', 'x'));
    await modifyEvent(
      createCalendarClient({ fetch }),
      { calendarId: 'primary', eventId: 'e1' },
      (event) => ({ ...event, summary: 'Moved' }),
      { update: { sendUpdates: 'all' } },
    );
    expect(requests[1]?.url).toBe(
      'https://www.googleapis.com/calendar/v3/calendars/primary/events/e1?sendUpdates=all',
    );
    expect(requests[1]?.body).toEqual({
      id: 'e1',
      summary: 'Moved',
      start: { date: '2026-12-01' },
      end: { date: '2026-12-02' },
      attendees: [{ email: 'a@example.com', responseStatus: 'accepted' }],
      creator: { email: 'me@example.com' },
    });
  });
});
