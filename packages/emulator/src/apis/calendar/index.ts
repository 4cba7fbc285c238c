/**
 * Google Calendar API v3 as an emulator module: its store, handlers, tables, its parts of the
 * state and seed files, its rate-limit answer and its page in the inspector (inspector-page.ts,
 * which reads the calendars and events through read-only operations run as a user).
 */
import type { ApiModule } from '../../core/api-module.js';
import type { Services } from '../../core/services.js';
import { readDefaults } from './defaults.js';
import { withGroupsSeed } from './groups.js';
import { HANDLERS } from './handlers.js';
import { CALENDAR_PAGE_STYLE } from './inspector-style.js';
import { calendarSeedFromRecording } from './recording.js';
import { type CalendarSeed, calendarSeedShape } from './seed.js';
import { calendarStateShape } from './state-schema.js';
import { calendarStorage } from './storage.js';
import { Store } from './store.js';
import { withChannelFilters } from './watch.js';

export const calendarApi: ApiModule<Store, CalendarSeed> = {
  name: 'calendar',
  title: 'Google Calendar API',
  // Each handler first gives the notifier Calendar's channel filters (watch.ts): a process
  // of a shared store tells channels that other processes opened.
  handlers: withChannelFilters(HANDLERS),
  createStore: (core, spec) => new Store(core, readDefaults(spec)),
  startUser: (store, user) => store.startUser(user),
  storage: calendarStorage,
  state: calendarStateShape,
  // The seed names groups and their members in `groups` (groups.ts).
  seed: withGroupsSeed(calendarSeedShape),
  // --seed-from: what a recording's answers show, as seed entries (recording.ts).
  seedFromRecording: calendarSeedFromRecording,
  // The live service answers 403 rateLimitExceeded (decision 0032).
  rateLimitStatus: 403,
  page: { label: 'Calendar', style: CALENDAR_PAGE_STYLE },
};

/** Calendar's store among an emulator's services (its indexes and lookups), for tests and benchmarks. */
export function calendarStoreOf(services: Services): Store {
  const store = services.list.find((service) => service.module === calendarApi)?.store;
  if (!(store instanceof Store)) throw new Error('the emulator does not serve Google Calendar');
  return store;
}
