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
  // By number of segments, each list with the most literal segments first.
  const bySize = new Map<number, Route[]>();
  for (const route of [...byPath.values()].sort((a, b) => b.literals - a.literals)) {
    const list = bySize.get(route.segments.length) ?? [];
    list.push(route);
    bySize.set(route.segments.length, list);
  }

  return {
    route(method, path) {
      const fragments = path
        .split('/')
        .slice(1)
        .map((fragment) => (fragment.includes('%') ? decode(fragment) : fragment));
      const allowed = new Set<string>();
      for (const route of bySize.get(fragments.length) ?? []) {
        if (!matches(route, fragments)) continue;
        const operation = route.byMethod.get(method);
        if (operation) return { kind: 'operation', operation, pathParams: paramsOf(route, fragments) };
        for (const verb of route.byMethod.keys()) allowed.add(verb);
      }
      return allowed.size > 0 ? { kind: 'noMethod', allowed: [...allowed].sort() } : { kind: 'noPath' };
    },
  };
}

/** Whether decoded path segments fit a route's template (as many segments as it has). */
function matches(route: Route, fragments: (string | undefined)[]): boolean {
  const { segments } = route;
  for (let i = 0; i < segments.length; i++) {
    const fragment = fragments[i];
    // An empty segment matches no template: Google answers `/calendars//events` with 404.
    if (fragment === undefined || fragment === '') return false;
    const { literal } = segments[i] as Segment;
    if (literal !== undefined && literal !== fragment) return false;
  }
  return true;
}

function paramsOf(route: Route, fragments: (string | undefined)[]): Record<string, string> {
  const params: Record<string, string> = {};
  route.segments.forEach((segment, i) => {
    if (segment.name !== undefined) params[segment.name] = fragments[i] as string;
  });
  return params;
}
