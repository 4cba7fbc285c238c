/**
 * The clients with resource methods only (`client.events.list(...)`), without openapi-fetch's
 * raw methods: a program that uses only these does not bundle openapi-fetch.
 *
 * - `bindOperations` binds the operations a program names (`createCalendarWith(options,
 *   eventsList)`): a bundler cannot drop a method it does not call from an object, but it drops
 *   every operation the program does not import, with the walks and the google-auth-library
 *   glue unless the program imports them (`items`, `googleAuth`).
 * - `createResourceClient` binds every operation of a table (`createCalendar(options)`), gives
 *   list methods their walks as properties and takes a library client as `auth` as it is, so
 *   its program bundles every operation, the walks and the google-auth-library glue.
 */

import { type CallContext, callOperation, type OperationDescriptor, type OperationTable } from './call.js';
import { type ClientOptions, type ResourceClientOptions, resolve } from './config.js';
import { ClientConfigError } from './errors.js';
import { acceptLibraryClient } from './google-auth.js';
import { type BoundMethod, bindMethods, type Caller } from './methods.js';
import { withWalks } from './paging.js';

/** The caller of the resource methods of one resolved context. */
export const callerOf =
  (context: CallContext): Caller =>
  (op, args, options) =>
    callOperation(context, op, args, options);

/**
 * A client of the operations given: one namespace per resource among them
 * (`client.events.list(...)`), typed by the package (`createCalendarWith`).
 */
export function bindOperations<Methods>(
  defaultBaseUrl: string,
  options: ClientOptions,
  ops: readonly OperationDescriptor[],
): Methods {
  if (!ops.length || ops.some((op) => !Array.isArray(op)))
    throw new ClientConfigError('name the operations to bind after the options, such as eventsList');
  return bindMethods(callerOf(resolve(defaultBaseUrl, options ?? {})), ops) as Methods;
}

/** The namespaces of every operation of a table, with the walks on list methods. */
export function bindTable(
  context: CallContext,
  table: OperationTable,
): Record<string, Record<string, BoundMethod>> {
  return bindMethods(callerOf(context), Object.values(table), withWalks);
}

/**
 * One namespace per resource of the operation table (`client.events.list(...)`), typed by
 * `Methods` from the generated `methods.ts`, without openapi-fetch's raw methods. Same
 * options, same behaviour as the resource methods of `createApiClient`.
 */
export function createResourceClient<Methods>(
  defaultBaseUrl: string,
  table: OperationTable,
  options: ResourceClientOptions = {},
): Methods {
  return bindTable(resolve(defaultBaseUrl, acceptLibraryClient(options)), table) as Methods;
}
