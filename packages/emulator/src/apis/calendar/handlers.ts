/**
 * The Calendar operations the emulator answers with state. Any other operation of the spec
 * answers 501 in Google's envelope, naming itself; the core's `checkHandlers` keeps this table
 * and the spec in step (a handler for an operation the spec does not have is a setup error).
 */
import { missingHandlers } from '../../core/api-module.js';
import { defineHandlers } from '../../core/context.js';
import type { ApiSpec } from '../../core/spec.js';
import { aclHandlers } from './acl.js';
import { calendarListHandlers } from './calendar-list.js';
import { calendarHandlers } from './calendars.js';
import type { Handler } from './context.js';
import { eventHandlers } from './events.js';
import { eventsInstancesHandler, eventsListHandler } from './events-list.js';
import { freebusyHandlers } from './freebusy.js';
import type { OperationRequests } from './generated/requests.js';
import { settingsHandlers } from './settings.js';
import type { Store } from './store.js';
import { watchHandlers } from './watch.js';

export const HANDLERS: Record<string, Handler> = defineHandlers<OperationRequests, Store>({
  ...aclHandlers,
  ...calendarHandlers,
  ...calendarListHandlers,
  ...eventHandlers,
  'events.list': eventsListHandler,
  'events.instances': eventsInstancesHandler,
  ...settingsHandlers,
  ...freebusyHandlers,
  ...watchHandlers,
});

/** The operations of the spec without a handler yet (the Calendar's unless `handlers` are given). */
export function notImplementedOperations(
  spec: ApiSpec,
  handlers: Readonly<Record<string, Handler>> = HANDLERS,
): string[] {
  return missingHandlers(spec, handlers);
}
