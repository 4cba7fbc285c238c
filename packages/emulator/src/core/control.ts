/**
 * The control plane, under CONTROL_PREFIX (outside the API base paths, so no client call can
 * reach it by mistake): health, reset, dump and load the state, quota use.
 */

import { ApiError } from './errors.js';
import { jsonChunks } from './json.js';
import type { QuotaMeter } from './quota.js';
import type { Services } from './services.js';
import type { State } from './state.js';
import type { StateFileError } from './state-file.js';
import type { Store } from './store.js';
import type { RateLimiter } from './strict.js';

export const CONTROL_PREFIX = '/__emulator';

export interface ControlDeps {
  services: Services;
  store: Pick<Store, 'state' | 'empty'>;
  quota: QuotaMeter;
  /** The rate limit, when one is set: reported with the quota and emptied with it. */
  limiter?: Pick<RateLimiter, 'snapshot' | 'reset'>;
  checkState(value: unknown): State;
  /** Called when the state is replaced (reset or load): watch channels close. */
  onReset(): void;
}

export interface ControlAnswer {
  status: number;
  body?: unknown;
  /** A JSON body in pieces, sent one after another (the state dump). */
  chunks?: string[];
}

const problem = (status: number, reason: string, message: string) =>
  new ApiError(status, [{ domain: 'emulator', reason, message }]);

export function handleControl(
  deps: ControlDeps,
  method: string,
  path: string,
  body: string | undefined,
): ControlAnswer {
  const route = `${method} ${path.slice(CONTROL_PREFIX.length) || '/'}`;
  switch (route) {
    case 'GET /health':
      return {
        status: 200,
        body: {
          status: 'ok',
          apis: Object.fromEntries(
            deps.services.list.map((s) => [
              s.name,
              {
                basePath: s.spec.basePath,
                operations: s.spec.operations.length,
                notImplemented: s.notImplemented,
              },
            ]),
          ),
          users: Object.keys(deps.store.state.users).length,
        },
      };
    case 'POST /reset':
      deps.store.state = deps.store.empty();
      deps.quota.reset();
      deps.limiter?.reset();
      deps.onReset();
      return { status: 204 };
    case 'GET /state':
      return { status: 200, chunks: jsonChunks(deps.store.state) };
    case 'PUT /state':
    case 'POST /state': {
      let value: unknown;
      try {
        value = JSON.parse(body ?? '');
      } catch (error) {
        throw problem(400, 'parseError', `The state is not valid JSON: ${(error as Error).message}`);
      }
      try {
        deps.store.state = deps.checkState(value);
        deps.onReset();
      } catch (error) {
        throw problem(400, 'invalid', (error as StateFileError).message);
      }
      return { status: 204 };
    }
    case 'GET /quota':
      return {
        status: 200,
        body: { ...deps.quota.snapshot(), ...(deps.limiter ? { rateLimit: deps.limiter.snapshot() } : {}) },
      };
    case 'POST /quota/reset':
      deps.quota.reset();
      deps.limiter?.reset();
      return { status: 204 };
    default:
      throw problem(
        404,
        'notFound',
        `No control endpoint ${route}; see GET /health, POST /reset, GET|PUT /state, GET /quota, POST /quota/reset under ${CONTROL_PREFIX}`,
      );
  }
}
