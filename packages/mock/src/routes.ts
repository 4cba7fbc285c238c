/**
 * The router the mock and the emulator share (server-kit's createPathRouter), for Prism's
 * operations, under the names the mock exported before.
 */
import { createPathRouter, type RouteResult as KitRouteResult, type PathRouter } from '@gspec/server-kit';
import type { IHttpOperation } from '@stoplight/types';

export type Router = PathRouter<IHttpOperation>;
export type RouteResult = KitRouteResult<IHttpOperation>;

export const createRouter = (operations: readonly IHttpOperation[]): Router => createPathRouter(operations);
