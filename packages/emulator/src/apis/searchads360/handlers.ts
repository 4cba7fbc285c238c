/** The Search Ads 360 operations, all seven answered with state. */

import { availabilityHandlers } from './availability.js';
import type { Handler } from './context.js';
import { conversionReadHandlers } from './conversion-reads.js';
import { conversionWriteHandlers } from './conversions.js';
import { reportHandlers } from './reports.js';

export const searchAds360Handlers: Record<string, Handler> = {
  ...conversionWriteHandlers,
  ...conversionReadHandlers,
  ...availabilityHandlers,
  ...reportHandlers,
};
