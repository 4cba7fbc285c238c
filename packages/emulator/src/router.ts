/**
 * Finds the operation of a request by the spec's path templates. Path segments are
 * percent-decoded one by one (`user%3Aa%40example.com` is one segment), and among matching
 * paths the one with the most literal segments wins (`/events/import` over `/events/{eventId}`).
 */
import type { OperationSpec } from './spec.js';

export type RouteResult =
  | { kind: 'operation'; operation: OperationSpec; pathParams: Record<string, string> }
  | { kind: 'noPath' }
  | { kind: 'noMethod'; allowed: string[] };

interface Segment {
  literal?: string;
  /** The parameter a whole-segment template such as `{calendarId}` binds. */
  name?: string;
}

interface Route {
  segments: Segment[];
  literals: number;
  byMethod: Map<string, OperationSpec>;
}

function decode(fragment: string): string | undefined {
  try {
    return decodeURIComponent(fragment);
  } catch {
    return undefined;
  }
}

export interface Router {
  route(method: string, path: string): RouteResult;
}

export function createRouter(operations: OperationSpec[]): Router {
  const byPath = new Map<string, Route>();
  for (const operation of operations) {
    let route = byPath.get(operation.path);
    if (!route) {
      const segments = operation.path
        .split('/')
        .slice(1)
        .map((fragment): Segment => {
          const name = /^\{([^}]+)\}$/.exec(fragment)?.[1];
          return name ? { name } : { literal: fragment };
        });
      route = {
        segments,
        literals: segments.filter((s) => s.literal !== undefined).length,
        byMethod: new Map(),
      };
      byPath.set(operation.path, route);
    }
    route.byMethod.set(operation.method, operation);
  }
  const routes = [...byPath.values()].sort((a, b) => b.literals - a.literals);

  return {
    route(method, path) {
      const fragments = path.split('/').slice(1).map(decode);
      const allowed = new Set<string>();
      for (const route of routes) {
        if (route.segments.length !== fragments.length) continue;
        const params: Record<string, string> = {};
        const matches = route.segments.every((segment, i) => {
          const fragment = fragments[i];
          // An empty segment matches no template: Google answers `/calendars//events` with 404.
          if (fragment === undefined || fragment === '') return false;
          if (segment.literal !== undefined) return segment.literal === fragment;
          params[segment.name as string] = fragment;
          return true;
        });
        if (!matches) continue;
        const operation = route.byMethod.get(method);
        if (operation) return { kind: 'operation', operation, pathParams: params };
        for (const verb of route.byMethod.keys()) allowed.add(verb);
      }
      return allowed.size > 0 ? { kind: 'noMethod', allowed: [...allowed].sort() } : { kind: 'noPath' };
    },
  };
}
