/** Search Ads 360 API v2 as an emulator module: its handlers, its tables, its rate-limit answer. */
import type { ApiModule } from '../../core/api-module.js';
import { searchAds360Handlers } from './handlers.js';
import { searchAds360Storage } from './storage.js';

export const searchAds360Api: ApiModule = {
  name: 'searchads360',
  title: 'Search Ads 360 API',
  handlers: searchAds360Handlers,
  storage: () => searchAds360Storage(),
  // The live service answers 429 RESOURCE_EXHAUSTED (decision 0032).
  rateLimitStatus: 429,
};
