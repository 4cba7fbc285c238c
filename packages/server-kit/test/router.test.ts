/** Which operation a request path reaches (createPathRouter, shared by the mock and the emulator). */
import { describe, expect, it } from 'vitest';
import { createPathRouter } from '../src/index.ts';

// The Calendar paths that test the rules: literal over template, decoding, empty segments.
const OPERATIONS = [
  ['GET', '/calendars/{calendarId}/events', 'events.list'],
  ['POST', '/calendars/{calendarId}/events', 'events.insert'],
  ['POST', '/calendars/{calendarId}/events/import', 'events.import'],
  ['POST', '/calendars/{calendarId}/events/watch', 'events.watch'],
  ['GET', '/calendars/{calendarId}/events/{eventId}', 'events.get'],
  ['PUT', '/calendars/{calendarId}/events/{eventId}', 'events.update'],
  ['DELETE', '/calendars/{calendarId}/events/{eventId}', 'events.delete'],
  ['GET', '/calendars/{calendarId}/events/{eventId}/instances', 'events.instances'],
  ['GET', '/calendars/{calendarId}/acl/{ruleId}', 'acl.get'],
  ['GET', '/calendars/{calendarId}', 'calendars.get'],
  ['PUT', '/calendars/{calendarId}', 'calendars.update'],
  ['PATCH', '/calendars/{calendarId}', 'calendars.patch'],
  ['DELETE', '/calendars/{calendarId}', 'calendars.delete'],
  ['GET', '/users/me/calendarList/{calendarId}', 'calendarList.get'],
  ['GET', '/users/me/settings/{setting}', 'settings.get'],
  ['POST', '/freeBusy', 'freebusy.query'],
  ['get', '/colors', 'colors.get'],
].map(([method, path, id]) => ({ method: method as string, path: path as string, id: id as string }));

const router = createPathRouter(OPERATIONS);

describe('createPathRouter', () => {
  it.each([
    ['GET', '/calendars/primary/events', 'events.list', { calendarId: 'primary' }],
    ['post', '/calendars/primary/events/import', 'events.import', { calendarId: 'primary' }],
    ['POST', '/calendars/primary/events/watch', 'events.watch', { calendarId: 'primary' }],
    // A literal segment is preferred, but only among paths that have the method.
    ['GET', '/calendars/primary/events/import', 'events.get', { calendarId: 'primary', eventId: 'import' }],
    [
      'GET',
      '/calendars/a%40example.com/acl/user%3Aa%40example.com',
      'acl.get',
      { calendarId: 'a@example.com', ruleId: 'user:a@example.com' },
    ],
    // An escaped slash stays inside its segment.
    ['GET', '/calendars/a%2Fb/events', 'events.list', { calendarId: 'a/b' }],
    ['GET', '/users/me/calendarList/primary', 'calendarList.get', { calendarId: 'primary' }],
    ['GET', '/users/me/settings/timezone', 'settings.get', { setting: 'timezone' }],
    ['POST', '/freeBusy', 'freebusy.query', {}],
    ['GET', '/colors', 'colors.get', {}],
  ])('routes %s %s to %s with its path parameters', (method, path, id, pathParams) => {
    const result = router.route(method, path);
    expect(result.kind === 'operation' && [result.operation.id, result.pathParams]).toEqual([id, pathParams]);
  });

  it.each([
    ['an unknown path', '/nothing/here'],
    ['an empty path parameter', '/calendars//events'],
    ['a trailing slash', '/colors/'],
    ['a path that is too long', '/calendars/primary/events/e/instances/more'],
    ['a malformed escape', '/calendars/%E0%A4%A/events'],
  ])('finds no operation for %s', (_title, path) => {
    expect(router.route('GET', path)).toEqual({ kind: 'noPath' });
  });

  it('names the methods a path has when the method is wrong, in capitals', () => {
    expect(router.route('post', '/calendars/primary')).toEqual({
      kind: 'noMethod',
      allowed: ['DELETE', 'GET', 'PATCH', 'PUT'],
    });
  });

  it('refuses a template that is not a whole segment', () => {
    expect(() => createPathRouter([{ method: 'GET', path: '/files/{id}.json' }])).toThrow(
      '/files/{id}.json: a path template must be a whole segment, such as {eventId}',
    );
  });
});
