/** What every operation handler gets and gives back. */

import type { Notifier } from './notifier.js';
import type { SchemaTools } from './schemas.js';
import type { ApiSpec, JsonObject, OperationSpec } from './spec.js';
import type { UserRecord } from './state.js';
import type { ValidRequest } from './validate.js';

/**
 * What a handler gets. `Request` is what validateRequest delivered; an API sees it through the
 * types of the operation's request generated from its spec (`Context<EventsInsertRequest>`,
 * see TypedHandlers); a function that reads none of it takes `Context<unknown>`. `S` is the
 * API's own store (`ApiModule.createStore`, core/api-module.ts).
 */
export interface Context<Request = ValidRequest, S = unknown> {
  /** The spec of the API the operation belongs to. */
  spec: ApiSpec;
  tools: SchemaTools;
  /** The API's own store (`ApiModule.createStore`). */
  store: S;
  user: UserRecord;
  op: OperationSpec;
  request: Request;
  notifier: Notifier;
  /** `http://<Host of the request>`: the emulator as the client reached it (for resourceUri). */
  origin: string;
  /** The emulator runs in strict mode (`--strict`): only the users, tokens and data it was given. */
  strict: boolean;
  /** The call is a seed's own write (`seed.apply`'s `invoke`), not a client's request. */
  seeding: boolean;
}

/** An operation called in-process (`emulator.invoke`), as an HTTP request would carry it. */
export interface InvokeInput {
  path?: Record<string, string>;
  query?: Record<string, string | number | boolean>;
  body?: unknown;
}

export interface InvokeResult {
  status: number;
  body?: JsonObject;
  /** A body that is not JSON (the ID-mapping CSV). */
  text?: string;
}

export interface Reply {
  /** Defaults to the operation's documented success status. */
  status?: number;
  body?: JsonObject;
  /** A body that is not JSON (the ID-mapping CSV): sent as it is, with its content type. */
  text?: { contentType: string; body: string };
  headers?: Record<string, string>;
}

export type Handler<Request = ValidRequest, S = unknown> = ((context: Context<Request, S>) => Reply) & {
  /**
   * The body's array of rows of a best-effort batch operation (`conversion`): the schema
   * problems of single rows then reach the handler as `request.rowProblems` (validate.ts).
   */
  batchList?: string;
};

/** What the handler of operation `Id` gets as its request: its generated type, and the batch rows refused. */
export type TypedRequest<Requests, Id extends keyof Requests> = Requests[Id] &
  Pick<ValidRequest, 'rowProblems'>;

/**
 * An API's handlers, each typed by the request of its operation: `Requests` maps an
 * operationId to the type of what validateRequest delivers for it (path and query parameters
 * in their schema's types, the body valid against its schema), generated from the API's spec.
 */
export type TypedHandlers<Requests, S> = {
  [Id in keyof Requests]?: Handler<TypedRequest<Requests, Id>, S>;
};

/**
 * The handler table of an API, as the core calls it. The one place a ValidRequest is taken
 * for the typed request of its operation: the core validates every request against the very
 * schemas `Requests` is generated from before it calls the operation's handler. (In a batch
 * operation the rows `rowProblems` names are the exception: the handler must skip them.)
 */
export function defineHandlers<Requests, S>(
  handlers: TypedHandlers<Requests, S>,
): Record<string, Handler<ValidRequest, S>> {
  return handlers as unknown as Record<string, Handler<ValidRequest, S>>;
}

/**
 * maxResults, or the default of its schema in the spec; never more than the operation's
 * `x-pagination.maxPageSize`, as the live service serves a larger value as its cap.
 */
export function maxResults(context: Context): number {
  const value = context.request.query.maxResults;
  const parameter = context.op.parameters.find((p) => p.name === 'maxResults');
  const asked =
    typeof value === 'number'
      ? value
      : typeof parameter?.schema.default === 'number'
        ? parameter.schema.default
        : 100;
  const cap = context.op.pagination?.maxPageSize;
  return cap === undefined ? asked : Math.min(asked, cap);
}
