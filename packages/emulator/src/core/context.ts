/** What every operation handler gets and gives back. */

import type { Notifier } from './notifier.js';
import type { SchemaTools } from './schemas.js';
import type { ApiSpec, Json, JsonObject, OperationSpec } from './spec.js';
import type { UserRecord } from './state.js';
import type { ValidRequest } from './validate.js';

/** What a handler of an API whose store is `S` gets (core/api-module.ts). */
export interface Context<S = unknown> {
  /** The spec of the API the operation belongs to. */
  spec: ApiSpec;
  tools: SchemaTools;
  /** The API's own store (`ApiModule.createStore`). */
  store: S;
  user: UserRecord;
  op: OperationSpec;
  request: ValidRequest;
  notifier: Notifier;
  /** `http://<Host of the request>`: the emulator as the client reached it (for resourceUri). */
  origin: string;
  /**
   * Search Ads 360: create the agencies, advertisers and what they hold that a request names
   * and no seed did, on first use (the default; not in strict mode, nor for a seed's own writes).
   */
  openIds?: boolean;
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

export type Handler<S = unknown> = ((context: Context<S>) => Reply) & {
  /**
   * The body's array of rows of a best-effort batch operation (`conversion`): the schema
   * problems of single rows then reach the handler as `request.rowProblems` (validate.ts).
   */
  batchList?: string;
};

export const text = (query: Record<string, Json>, name: string): string | undefined => {
  const value = query[name];
  return typeof value === 'string' ? value : undefined;
};

export const flag = (query: Record<string, Json>, name: string): boolean => query[name] === true;

export const strings = (query: Record<string, Json>, name: string): string[] => {
  const value = query[name];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
};

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
