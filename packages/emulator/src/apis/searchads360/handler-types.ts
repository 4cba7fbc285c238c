/**
 * The Search Ads 360 handlers typed by their operations: each handler's `request` is what the
 * validator delivered, in the types generated from the spec (generated/requests.ts).
 */
import type { TypedHandlers, TypedRequest } from '../../core/context.js';
import type { Store } from '../../core/store.js';
import type { Handler } from './context.js';
import type { OperationRequests } from './generated/requests.js';

export type OperationId = keyof OperationRequests;
/** A table of Search Ads 360 handlers, by operationId. */
export type SearchAds360Handlers = TypedHandlers<OperationRequests, Store>;
/** The request of one operation, as its handler gets it. */
export type RequestOf<Id extends OperationId> = TypedRequest<OperationRequests, Id>;
export type SearchAds360Handler<Id extends OperationId> = Handler<RequestOf<Id>>;

/**
 * The request of a best-effort batch (its handler has `batchList: List`): the body's array of
 * rows is checked row by row, so a row `rowProblems` names may be anything; batchRows leaves
 * those out before a row is read.
 */
export type BatchRequest<Id extends OperationId, List extends string> = Omit<RequestOf<Id>, 'body'> & {
  body: { [Name in List]?: readonly unknown[] };
};
export type BatchHandler<Id extends OperationId, List extends string> = Handler<BatchRequest<Id, List>>;
