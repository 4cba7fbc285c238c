/** The Search Ads 360 operations, all seven answered with state. */
import { defineHandlers } from '../../core/context.js';
import type { Store } from '../../core/store.js';
import { availabilityHandlers } from './availability.js';
import type { Handler } from './context.js';
import { conversionReadHandlers } from './conversion-reads.js';
import { conversionWriteHandlers } from './conversions.js';
import type { OperationRequests } from './generated/requests.js';
import { reportHandlers } from './reports.js';

export const searchAds360Handlers: Record<string, Handler> = defineHandlers<OperationRequests, Store>({
  ...conversionWriteHandlers,
  ...conversionReadHandlers,
  ...availabilityHandlers,
  ...reportHandlers,
});
