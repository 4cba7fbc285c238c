/** Google Calendar API v3 as an emulator module: its handlers, its tables, its rate-limit answer. */
import type { ApiModule } from '../../core/api-module.js';
import { HANDLERS } from './handlers.js';
import { calendarStorage } from './storage.js';

export const calendarApi: ApiModule = {
  name: 'calendar',
  title: 'Google Calendar API',
  handlers: HANDLERS,
  storage: calendarStorage,
  // The live service answers 403 rateLimitExceeded (decision 0032).
  rateLimitStatus: 403,
};
