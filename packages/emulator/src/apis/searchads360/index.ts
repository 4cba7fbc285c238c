/**
 * Search Ads 360 API v2 as an emulator module: its handlers, tables, its parts of the state
 * and seed files, its rate-limit answer, and its page in the inspector (inspector-page.ts) with
 * the views it reads (inspect.ts). Its store is the core's: its part of the state is read and
 * written through state.ts.
 */
import type { ApiModule } from '../../core/api-module.js';
import type { Store } from '../../core/store.js';
import { searchAds360Handlers } from './handlers.js';
import { searchAds360Inspect } from './inspect.js';
import { SEARCHADS360_PAGE_STYLE } from './inspector-style.js';
import { searchAds360SeedFromRecording } from './recording.js';
import { type SearchAds360SeedDocument, searchAds360SeedShape } from './seed.js';
import { searchAds360StateShape } from './state-schema.js';
import { searchAds360Storage } from './storage.js';

export const searchAds360Api: ApiModule<Store, SearchAds360SeedDocument> = {
  name: 'searchads360',
  title: 'Search Ads 360 API',
  handlers: searchAds360Handlers,
  createStore: (core) => core,
  storage: () => searchAds360Storage(),
  state: searchAds360StateShape,
  seed: searchAds360SeedShape,
  // --seed-from: the conversions, availabilities and saved columns a recording's answers show (recording.ts).
  seedFromRecording: searchAds360SeedFromRecording,
  // The live service answers 429 RESOURCE_EXHAUSTED (decision 0032).
  rateLimitStatus: 429,
  inspect: searchAds360Inspect,
  page: { label: 'Search Ads 360', style: SEARCHADS360_PAGE_STYLE },
};
