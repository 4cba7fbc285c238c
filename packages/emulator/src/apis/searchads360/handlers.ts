/** The Search Ads 360 operations, all seven answered with state. */
import { defineHandlers, type Handler } from '../../core/context.js';
import { availabilityHandlers } from './availability.js';
import { conversionReadHandlers } from './conversion-reads.js';
import { conversionWriteHandlers } from './conversions.js';
import type { OperationRequests } from './generated/requests.js';
import { reportHandlers } from './reports.js';

export const searchAds360Handlers: Record<string, Handler> = defineHandlers<OperationRequests>({
  ...conversionWriteHandlers,
  ...conversionReadHandlers,
  ...availabilityHandlers,
  ...reportHandlers,
});
