/** What Search Ads 360's handlers get: the core's context with the core's store (index.ts). */
import type { Context as CoreContext, Handler as CoreHandler } from '../../core/context.js';
import type { Store } from '../../core/store.js';
import type { ValidRequest } from '../../core/validate.js';

export type Context<Request = ValidRequest> = CoreContext<Request, Store>;
export type Handler<Request = ValidRequest> = CoreHandler<Request, Store>;
