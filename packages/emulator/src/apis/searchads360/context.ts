/** What Search Ads 360's handlers get: the core's context with the core's store (index.ts). */
import type { Context as CoreContext, Handler as CoreHandler } from '../../core/context.js';
import type { Store } from '../../core/store.js';
import type { ValidRequest } from '../../core/validate.js';

export type Context<Request = ValidRequest> = CoreContext<Request, Store>;
export type Handler<Request = ValidRequest> = CoreHandler<Request, Store>;

/**
 * Whether a request may name agencies, advertisers and what they hold that no seed made: they
 * are made on first use (decision 0035), unless the emulator is strict, and never by a seed's
 * own writes.
 */
export const openIds = (context: CoreContext<unknown, unknown>): boolean =>
  !context.strict && !context.seeding;
