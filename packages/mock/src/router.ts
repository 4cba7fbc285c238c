/**
 * Finds the operation a request is for before Prism sees it. Knowing the operation up front
 * lets the gateway apply that operation's fault rules, and lets it hand Prism only the one
 * operation instead of the whole API (Prism's own router scores every path on each request).
 * Matching follows Prism's: path segments are percent-decoded one by one (so
 * `user%3Aa%40example.com` is one segment), and among the paths that match, the one with the
 * most literal segments wins (`/events/import` over `/events/{eventId}`).
 */
import type { IHttpOperation } from '@stoplight/types';

export type RouteResult =
  | { kind: 'operation'; operation: IHttpOperation }
  | { kind: 'noPath' }
  | { kind: 'noMethod'; allowed: string[] };

interface Segment {
  literal?: string;
  /** For a templated segment such as `{calendarId}` or `{id}.json`: what it must look like. */
  pattern?: RegExp;
}

interface Route {
  segments: Segment[];
  literals: number;
  byMethod: Map<string, IHttpOperation>;
}

function decode(fragment: string): string {
  try {
    return decodeURIComponent(fragment);
  } catch {
    // Prism keeps a malformed escape as it is; so do we, and the path then fails to match.
    return fragment;
  }
}

function compileSegment(fragment: string): Segment {
  if (!/\{[^}]+\}/.test(fragment)) return { literal: fragment };
  const escaped = fragment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  // A template needs at least one character: Google answers `/calendars//events` with 404.
  return { pattern: new RegExp(`^${escaped.replace(/\\\{[^\\]+\\\}/g, '(.+)')}$`) };
}

export interface Router {
  route(method: string, path: string): RouteResult;
}

export function createRouter(operations: IHttpOperation[]): Router {
  const byPath = new Map<string, Route>();
  for (const operation of operations) {
    let route = byPath.get(operation.path);
    if (!route) {
      const segments = operation.path.split('/').slice(1).map(compileSegment);
      route = {
        segments,
        literals: segments.filter((s) => s.literal !== undefined).length,
        byMethod: new Map(),
      };
      byPath.set(operation.path, route);
    }
    route.byMethod.set(operation.method.toLowerCase(), operation);
  }
  // Most literal segments first, so the first match with the method is the best one.
  const routes = [...byPath.values()].sort((a, b) => b.literals - a.literals);

  return {
    route(method, path) {
      const fragments = path.split('/').slice(1).map(decode);
      const allowed = new Set<string>();
      let pathMatched = false;
      for (const route of routes) {
        if (route.segments.length !== fragments.length) continue;
        let matches = true;
        for (let i = 0; i < fragments.length; i++) {
          const segment = route.segments[i] as Segment;
          const fragment = fragments[i] as string;
          if (
            segment.literal !== undefined ? segment.literal !== fragment : !segment.pattern?.test(fragment)
          ) {
            matches = false;
            break;
          }
        }
        if (!matches) continue;
        const operation = route.byMethod.get(method);
        if (operation) return { kind: 'operation', operation };
        pathMatched = true;
        for (const verb of route.byMethod.keys()) allowed.add(verb.toUpperCase());
      }
      return pathMatched ? { kind: 'noMethod', allowed: [...allowed].sort() } : { kind: 'noPath' };
    },
  };
}
