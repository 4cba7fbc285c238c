/** Requests the spec refuses, and the answers of paths and methods the spec does not have. */
import { describe, expect, it } from 'vitest';
import { notImplementedOperations } from '../src/apis/calendar/handlers.ts';
import { notImplemented } from '../src/core/errors.ts';
import { spec, timedEvent, useEmulator } from './support/harness.ts';
import { createResponseCheck } from './support/spec-check.ts';

const emu = useEmulator();

describe('400 in Google envelope, naming the parameter', () => {
  it.each([
    [
      'maxResults not a number',
      'GET',
      '/calendars/primary/events',
      { query: { maxResults: 'abc' } },
      'invalid',
      'maxResults',
    ],
    [
      // (above the page cap is no error: it is served as the cap, see paging-sync.test.ts)
      'maxResults below its minimum',
      'GET',
      '/calendars/primary/events',
      { query: { maxResults: 0 } },
      'invalid',
      'maxResults',
    ],
    [
      'orderBy outside its enum',
      'GET',
      '/calendars/primary/events',
      { query: { orderBy: 'random' } },
      'invalid',
      'orderBy',
    ],
    [
      'timeMin not a date-time',
      'GET',
      '/calendars/primary/events',
      { query: { timeMin: 'yesterday' } },
      'invalid',
      'timeMin',
    ],
    [
      'eventTypes item outside its enum',
      'GET',
      '/calendars/primary/events',
      { query: { eventTypes: ['default', 'party'] } },
      'invalid',
      'eventTypes',
    ],
    [
      'showDeleted not a boolean',
      'GET',
      '/calendars/primary/events',
      { query: { showDeleted: 'yes' } },
      'invalid',
      'showDeleted',
    ],
    ['text of quickAdd missing', 'POST', '/calendars/primary/events/quickAdd', {}, 'required', 'text'],
    [
      'destination of move missing',
      'POST',
      '/calendars/primary/events/abcdef/move',
      {},
      'required',
      'destination',
    ],
    ['body of insert missing', 'POST', '/calendars/primary/events', {}, 'required', 'body'],
    [
      'end of insert missing',
      'POST',
      '/calendars/primary/events',
      { body: { start: { date: '2026-01-01' } } },
      'required',
      'end',
    ],
    [
      'summary of calendars.insert missing',
      'POST',
      '/calendars',
      { body: { location: 'x' } },
      'required',
      'summary',
    ],
    [
      'a body field of the wrong type',
      'POST',
      '/calendars/primary/events',
      { body: { ...timedEvent('x'), summary: 5 } },
      'invalid',
      'summary',
    ],
    [
      'a nested body field outside its enum',
      'POST',
      '/calendars/primary/events',
      { body: { ...timedEvent('x'), reminders: { overrides: [{ method: 'sms', minutes: 5 }] } } },
      'invalid',
      'reminders.overrides[0].method',
    ],
    [
      'an event id outside base32hex',
      'POST',
      '/calendars/primary/events',
      { body: { ...timedEvent('x'), id: 'NOT_VALID' } },
      'invalid',
      'id',
    ],
    [
      'end before start',
      'POST',
      '/calendars/primary/events',
      { body: timedEvent('x', 9, { end: { dateTime: '2026-03-02T08:00:00Z' } }) },
      'timeRangeEmpty',
      // As the live service names it (decision 0055).
      'timeMax',
    ],
    ['primary to calendars.delete', 'DELETE', '/calendars/primary', {}, 'invalid', 'calendarId'],
    [
      'calendarList.insert without id',
      'POST',
      '/users/me/calendarList',
      { body: { hidden: true } },
      'required',
      'id',
    ],
  ] as const)('%s', async (_name, method, path, options, reason, location) => {
    const reply = await emu.call(method, path, options as never);
    expect(reply.status).toBe(400);
    expect(reply.body.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
    expect(reply.body.error.errors[0]).toMatchObject({ reason, location, locationType: 'parameter' });
  });

  it('malformed JSON is 400 parseError', async () => {
    const reply = await emu.call('POST', '/calendars/primary/events', { body: '{"summary": ' });
    expect(reply.status).toBe(400);
    expect(reply.body.error.errors[0].reason).toBe('parseError');
  });

  it('an unknown property in the body is ignored, as the service does, and never echoed', async () => {
    const reply = await emu.call('POST', '/calendars/primary/events', {
      body: { ...timedEvent('x'), favourite: true, etag: '"mine"' },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).not.toHaveProperty('favourite');
    expect(reply.body.etag).not.toBe('"mine"');
  });
});

describe('401 authError for missing or malformed credentials', () => {
  it.each([
    // The malformed credentials are the shared HTTP layer's: server-kit's readBearer tests and
    // the contract tests' http-layer cases, against both servers.
    ['no token', {}],
  ])('%s', async (_name, headers) => {
    const reply = await emu.call('GET', '/calendars/primary', { token: null, headers });
    expect(reply.status).toBe(401);
    expect(reply.body.error.errors[0]).toMatchObject({
      reason: 'authError',
      location: 'Authorization',
      locationType: 'header',
    });
    expect(reply.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });

  it.each([
    ['bearer in lower case', { token: null, headers: { authorization: 'bearer tok-1' } }],
    ['the access_token query parameter', { token: null, query: { access_token: 'tok-1' } }],
  ])('accepts %s', async (_name, options) => {
    expect((await emu.call('GET', '/calendars/primary', options)).status).toBe(200);
  });
});

describe('404, 405 and 501', () => {
  it.each([
    ['an unknown path', 'GET', '/nothing/here', 404, 'notFound'],
    ['an empty path parameter', 'GET', '/calendars//events', 404, 'notFound'],
    ['an unknown event', 'GET', '/calendars/primary/events/abcdef12345', 404, 'notFound'],
    ['an unknown setting', 'GET', '/users/me/settings/nope', 404, 'notFound'],
    ['a method the path does not have', 'PUT', '/colors', 405, 'httpMethodNotAllowed'],
  ])('%s', async (_name, method, path, status, reason) => {
    const reply = await emu.call(method, path);
    expect(reply.status).toBe(status);
    expect(reply.body.error.errors[0].reason).toBe(reason);
  });

  it('outside the base path is 404', async () => {
    const reply = await fetch(`${emu.origin}/calendar/v2/colors`);
    expect(reply.status).toBe(404);
  });

  it('every operation of the spec has a handler (none answers 501)', () => {
    expect(notImplementedOperations(spec)).toEqual([]);
  });

  it("an operation without a handler would answer 501 in Google's envelope, naming itself", () => {
    const error = notImplemented('things.frobnicate');
    expect(error.status).toBe(501);
    expect(error.body.error).toMatchObject({ code: 501, errors: [{ reason: 'notImplemented' }] });
    expect(error.body.error.message).toContain('things.frobnicate');
  });
});

describe('the response check itself', () => {
  const check = createResponseCheck(spec, notImplementedOperations(spec));
  const json = { 'content-type': 'application/json' };
  it.each([
    ['an undocumented status', { operationId: 'events.get', status: 418, headers: json, body: {} }],
    [
      'an undeclared property',
      { operationId: 'events.get', status: 200, headers: json, body: { id: 'x', colour: 'red' } },
    ],
    ['a wrong type', { operationId: 'events.get', status: 200, headers: json, body: { sequence: 'one' } }],
    ['a body on 204', { operationId: 'events.delete', status: 204, headers: {}, body: { id: 'x' } }],
    [
      '501 on an implemented operation',
      { operationId: 'events.get', status: 501, headers: json, body: { error: { code: 501, message: 'x' } } },
    ],
    [
      'an error outside the envelope',
      { operationId: 'events.get', status: 404, headers: json, body: { message: 'nope' } },
    ],
  ])('catches %s', (_name, exchange) => {
    expect(check({ method: 'GET', path: '/calendar/v3/x', ...exchange }).length).toBeGreaterThan(0);
  });

  it('passes a valid answer', () => {
    expect(
      check({
        method: 'GET',
        path: '/x',
        operationId: 'events.get',
        status: 200,
        headers: json,
        body: { id: 'x', sequence: 1 },
      }),
    ).toEqual([]);
  });
});
