/**
 * The registry: every API the emulator serves, in the order of its start-up lines. A third API
 * is a folder beside these two, exporting its `ApiModule` from index.ts, and one line here
 * (its spec must be bundled in @gspec/specs under the module's name).
 */
import type { AnyApiModule, RateLimitStatus } from '../core/api-module.js';
import type { ApiName } from '../core/spec.js';
import { calendarApi } from './calendar/index.js';
import { searchAds360Api } from './searchads360/index.js';

export const API_MODULES: readonly AnyApiModule[] = [calendarApi, searchAds360Api];

/** How each API answers a user over the limit when no status is chosen: as its live service. */
export const LIVE_RATE_LIMIT_STATUS = Object.fromEntries(
  API_MODULES.map((module) => [module.name, module.rateLimitStatus]),
) as Readonly<Record<ApiName, RateLimitStatus>>;
