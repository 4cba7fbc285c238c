/**
 * The operations the emulator answers with state. Any other operation of the spec answers
 * 501 in Google's envelope, naming itself; `checkHandlers` keeps this table and the spec in
 * step (a handler for an operation the spec does not have is a setup error).
 */
import { searchAds360Handlers } from '../searchads360/handlers.js';
import { type ApiName, type ApiSpec, SpecError } from '../spec.js';
import { aclHandlers } from './acl.js';
import { calendarListHandlers } from './calendar-list.js';
import { calendarHandlers } from './calendars.js';
import type { Handler } from './context.js';
import { eventHandlers } from './events.js';
import { eventsInstancesHandler, eventsListHandler } from './events-list.js';
import { freebusyHandlers } from './freebusy.js';
import { settingsHandlers } from './settings.js';
import { watchHandlers } from './watch.js';

export const HANDLERS: Record<string, Handler> = {
  ...aclHandlers,
  ...calendarHandlers,
  ...calendarListHandlers,
  ...eventHandlers,
  'events.list': eventsListHandler,
  'events.instances': eventsInstancesHandler,
  ...settingsHandlers,
  ...freebusyHandlers,
  ...watchHandlers,
};

/** The handlers of each API; Search Ads 360's are in src/searchads360. */
export const HANDLERS_BY_API: Record<ApiName, Record<string, Handler>> = {
  calendar: HANDLERS,
  searchads360: searchAds360Handlers,
};

export function checkHandlers(spec: ApiSpec, handlers: Record<string, Handler> = HANDLERS): void {
  for (const id of Object.keys(handlers)) {
    if (!spec.byId.has(id))
      throw new SpecError(`the emulator has a handler for ${id}, which the spec does not have`);
  }
}

/** The operations of the spec without a handler yet. */
export function notImplementedOperations(
  spec: ApiSpec,
  handlers: Record<string, Handler> = HANDLERS,
): string[] {
  return spec.operations.map((op) => op.id).filter((id) => !(id in handlers));
}
