/**
 * The Calendar's handlers typed by their operations: each handler's `request` is what the
 * validator delivered, in the types generated from the spec (generated/requests.ts).
 */
import type { TypedHandlers, TypedRequest } from '../../core/context.js';
import type { Context, Handler } from './context.js';
import type { OperationRequests } from './generated/requests.js';
import type { Store } from './store.js';

export type OperationId = keyof OperationRequests;
/** A table of Calendar handlers, by operationId. */
export type CalendarHandlers = TypedHandlers<OperationRequests, Store>;
/** The request of one operation, as its handler gets it. */
export type RequestOf<Id extends OperationId> = TypedRequest<OperationRequests, Id>;
export type CalendarHandler<Id extends OperationId> = Handler<RequestOf<Id>>;
export type CalendarContext<Id extends OperationId> = Context<RequestOf<Id>>;
/** The context of any operation with a calendarId in its path. */
export type OnCalendar = Context<{ path: { calendarId: string } }>;
/** The context of any operation on one event of a calendar. */
export type OnEvent = Context<{ path: { calendarId: string; eventId: string } }>;
/** The context of an operation that takes If-Match. */
export type Conditional = Context<{ headers: { 'If-Match'?: string } }>;
