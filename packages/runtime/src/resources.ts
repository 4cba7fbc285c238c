/**
 * The lean client: the resource methods of an operation table (`client.events.list(...)`)
 * and nothing else. It does not import openapi-fetch, so a program that uses only resource
 * methods bundles the runtime and the operation table, not the raw client.
 */
import { type CallContext, callOperation, type OperationTable } from './call.js';
import { type ResourceClientOptions, resolve } from './config.js';
import { bindMethods } from './methods.js';

/** The namespaces of a table, calling through one resolved context. */
export function bindResources(
  context: CallContext,
  table: OperationTable,
): Record<string, Record<string, unknown>> {
  return bindMethods((id, op, args, options) => callOperation(context, id, op, args, options), table);
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
  return bindResources(resolve(defaultBaseUrl, options), table) as Methods;
}
