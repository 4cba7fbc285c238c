/** Which operation a request path reaches, the way Prism would route it. */
import { beforeAll, describe, expect, it } from 'vitest';
import { createRouter, loadApis, type Router } from '../src/index.ts';

let calendar: Router;
beforeAll(async () => {
  const apis = await loadApis();
  const api = apis.find((a) => a.basePath === '/calendar/v3');
  if (!api) throw new Error('the Calendar API is missing from the bundled specs');
  calendar = createRouter(api.operations);
});

describe('the router', () => {
  it.each([
    ['get', '/calendars/primary/events', 'events.list'],
    ['post', '/calendars/primary/events/import', 'events.import'],
    ['post', '/calendars/primary/events/watch', 'events.watch'],
    // A literal segment is preferred, but only among paths that have the method.
    ['get', '/calendars/primary/events/import', 'events.get'],
    ['get', '/calendars/a%40example.com/acl/user%3Aa%40example.com', 'acl.get'],
    ['get', '/users/me/calendarList/primary', 'calendarList.get'],
    ['get', '/users/me/settings/timezone', 'settings.get'],
    ['post', '/freeBusy', 'freebusy.query'],
  ])('routes %s %s to %s', (method, path, operationId) => {
    const result = calendar.route(method, path);
    expect(result.kind === 'operation' && result.operation.iid).toBe(operationId);
  });

  it.each([
    ['an unknown path', '/nothing/here'],
    ['an empty path parameter', '/calendars//events'],
    ['a trailing slash', '/colors/'],
    ['a path that is too long', '/calendars/primary/events/e/instances/more'],
  ])('finds no operation for %s', (_title, path) => {
    expect(calendar.route('get', path)).toEqual({ kind: 'noPath' });
  });

  it('names the methods a path has when the method is wrong', () => {
    expect(calendar.route('post', '/calendars/primary')).toEqual({
      kind: 'noMethod',
      allowed: ['DELETE', 'GET', 'PATCH', 'PUT'],
    });
  });
});
