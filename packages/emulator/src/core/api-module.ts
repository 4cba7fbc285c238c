/**
 * What the core asks of an API it serves. Each API is a folder under src/apis/ that exports one
 * `ApiModule` (its index.ts), and src/apis/index.ts lists them: the registry. The core is
 * given the modules and names none of them.
 */
import type { Store } from '../apis/calendar/store.js';
import type { Handler } from './context.js';
import { type ApiName, type ApiSpec, SpecError } from './spec.js';
import type { StorageSlice } from './storage.js';

/** How an API answers a user over the rate limit. */
export type RateLimitStatus = 403 | 429;

export interface ApiModule {
  /** The name of its bundled spec in @gspec/specs (`calendar`), its key in the state and reports. */
  readonly name: ApiName;
  /** How people call it, for the start-up lines (`Google Calendar API`). */
  readonly title: string;
  /** Its operations' handlers by operationId; the spec's other operations answer 501. */
  readonly handlers: Readonly<Record<string, Handler>>;
  /** Its tables in the database of `--persist` (core/storage.ts). */
  storage(store: Store): StorageSlice;
  /** How its live service answers a user over the rate limit. */
  readonly rateLimitStatus: RateLimitStatus;
}

/** A handler for an operation the spec does not have is a setup error. */
export function checkHandlers(spec: ApiSpec, handlers: Readonly<Record<string, Handler>>): void {
  for (const id of Object.keys(handlers)) {
    if (!spec.byId.has(id))
      throw new SpecError(`the emulator has a handler for ${id}, which the spec does not have`);
  }
}

/** The operations of the spec without a handler. */
export function missingHandlers(spec: ApiSpec, handlers: Readonly<Record<string, Handler>>): string[] {
  return spec.operations.map((op) => op.id).filter((id) => !(id in handlers));
}
