import {
  type Batch,
  type BatchBuilder,
  type BatchEndpoint,
  type BoundResources,
  bindOperations,
  type ClientOptions,
  createApiClient,
  createBatchClient,
  createResourceClient,
  type GoogleClientOptions,
  type ResourceClientOptions,
} from '@gspec/runtime';
import { defaultBaseUrl, type OperationId, operations } from './generated/api.js';
import type { OperationTypes, ResourceMethods, Resources } from './generated/methods.js';
import type { paths } from './generated/schema.js';

export * from '@gspec/runtime';
// apiName, defaultBaseUrl, OperationId, readOnlyFields, every operation on its own
// (`eventsList`, for createCalendarWith) and all of them by operationId (`operations`).
export * from './generated/api.js';
export { operations } from './generated/api.js';
// The argument type of every operation (`EventsInsertArgs`), its body type where it requires more
// than its schema (`EventsInsertBody`), OperationTypes, ArgsOf, BodyOf and AnswerOf.
export type * from './generated/methods.js';
export type { Resources as CalendarResources } from './generated/methods.js';
export type * from './generated/schema.js';
export type * from './generated/types.js';
export { type ModifyEventOptions, modifyEvent, type WritableEvent } from './modify-event.js';

/** The most calls Calendar takes in one batch request; `batch` sends more as several requests. */
export const calendarBatchLimit = 50;

/** Calendar's batches: at most 50 calls, to `/batch/calendar/v3` at the base URL's host. */
const batchEndpoint: BatchEndpoint = { limit: calendarBatchLimit };

/** The argument of a batch's function: `b.events.insert(args)` makes a call of the batch. */
export type CalendarBatchBuilder = BatchBuilder<OperationTypes>;

/** The function `createCalendarBatch` returns: the calls its argument returns, in one request per 50, their results in call order. */
export type CalendarBatch = Batch<CalendarBatchBuilder>;

/**
 * Sends many Calendar calls as batch requests (`POST /batch/calendar/v3`), at most 50 in one,
 * and resolves to one result per call, in call order: `{ ok: true, value }` with what the
 * resource method would resolve to, or `{ ok: false, error }` with what it would throw. Every
 * call counts against the quota as if sent alone. The requests go one after another; calls that
 * fail with a retryable status are sent again in a later request, by the retry policy. Takes
 * the options of `createCalendar`; a function of its own, so that a program that never batches
 * does not bundle it.
 *
 * ```ts
 * const batch = createCalendarBatch({ accessToken });
 * const [created, read] = await batch((b) => [
 *   b.events.insert({ calendarId: 'primary', start: { date: '2027-01-04' }, end: { date: '2027-01-05' } }),
 *   b.events.get({ calendarId: 'primary', eventId: 'abc' }),
 * ]);
 * if (created.ok) console.log(created.value.id);
 * ```
 */
export function createCalendarBatch(options?: ResourceClientOptions): CalendarBatch {
  return createBatchClient<CalendarBatchBuilder>(defaultBaseUrl, operations, batchEndpoint, options);
}

/** One operation of Calendar as `createCalendarWith` takes it: `eventsList`, `eventsGet`, ... */
export type CalendarOperation = (typeof operations)[OperationId];

/** The client `createCalendarWith` makes of the operations `Id`: `{ events: { list } }` for `'events.list'`. */
export type CalendarOf<Id extends OperationId> = BoundResources<ResourceMethods, Id>;

/**
 * A client for the Google Calendar API v3 with the operations given and no others:
 * `createCalendarWith({ accessToken }, eventsList, eventsGet)` has `calendar.events.list` and
 * `calendar.events.get`. A bundler leaves every other operation out of the program, and the
 * page walks and the google-auth-library glue too, unless the program imports them: walk a
 * list with `items(calendar.events.list, args)`, `pages(...)` and `sync(...)`, and give a
 * library client as `auth: googleAuth(client)`. Same options and same behaviour as
 * `createCalendar` otherwise.
 *
 * ```ts
 * const calendar = createCalendarWith({ accessToken }, eventsList);
 * for await (const event of items(calendar.events.list, { calendarId: 'primary' })) console.log(event.summary);
 * ```
 */
export function createCalendarWith<const Ops extends readonly [CalendarOperation, ...CalendarOperation[]]>(
  options: ClientOptions,
  ...ops: Ops
): CalendarOf<Ops[number][0]> {
  return bindOperations(defaultBaseUrl, options, ops);
}

/**
 * A client for the Google Calendar API v3 with every resource method generated from the
 * spec (`calendar.events.list({ calendarId: 'primary' })`, which throw a GoogleApiError on
 * failure and retry what is safe to retry), and nothing else: a program that uses only this
 * does not bundle openapi-fetch. For openapi-fetch's raw methods as well, use
 * `createCalendarClient`; for batches, `createCalendarBatch`.
 */
export function createCalendar(options?: ResourceClientOptions): Resources {
  return createResourceClient<Resources>(defaultBaseUrl, operations, options);
}

/**
 * A client for the Google Calendar API v3: the resource methods of `createCalendar`, and
 * openapi-fetch's raw `GET`, `POST`, `PUT`, `PATCH`, `DELETE`, `request` and `use` on the
 * same object.
 */
export function createCalendarClient(options?: GoogleClientOptions) {
  return createApiClient<paths, Resources>(defaultBaseUrl, operations, options);
}

export type CalendarClient = ReturnType<typeof createCalendarClient>;
