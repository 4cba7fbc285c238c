/** What Calendar's handlers get: the core's context with Calendar's store (store.ts). */
import type { Context as CoreContext, Handler as CoreHandler } from '../../core/context.js';
import type { ValidRequest } from '../../core/validate.js';
import type { Store } from './store.js';

export type Context<Request = ValidRequest> = CoreContext<Request, Store>;
export type Handler<Request = ValidRequest> = CoreHandler<Request, Store>;
