/**
 * The registry of every refusal the emulator can answer. An ApiError is made only from an
 * entry (`Refusal.error`, or `new ApiError(refusal, …)`), so the registry is the complete
 * list, and every entry names the evidence that the live service refuses so:
 *
 * - `fact:<file>:<path>`: a fact of the live service, in specs/test/fixtures/ (the reference
 *   facts: `calendar-v3`, `searchads360-v2`; and `conventions`, what Google's documentation
 *   of both services states about errors and shared conventions, as data);
 * - `decision:<NNNN>`: a decision record that names the entry's id, with the Google page or
 *   guide it rests on, an observation of the live service, or (for the emulator's own control
 *   plane and HTTP layer, which Google has no counterpart of) the choice and its reason.
 *
 * Entries are declared at module level (each API's `refusals.ts`, and core/refusals-core.ts),
 * so importing the emulator registers them all. `test/refusals.test.ts` checks that every
 * entry's evidence resolves and that REFUSALS.md (written by `npm run refusals`) is the table
 * of this registry.
 */
import type { GoogleErrorItem } from '@gspec/server-kit';

/** Where an entry's evidence is: a fact (`fact:<file>:<path>`) or a decision record (`decision:NNNN`). */
export type Evidence = `fact:${string}:${string}` | `decision:${string}`;

/**
 * Which surface answers the refusal: an API's name (`calendar`, `searchads360`), or `every API`,
 * `token endpoint`, `control plane`.
 */
export type RefusalScope = string;

export interface RefusalEntry {
  /** Unique, `<scope>.<name>` in camel case (`calendar.eventNotFound`). */
  readonly id: string;
  readonly scope: RefusalScope;
  /** The operation ids that can answer it; empty for every operation of the scope. */
  readonly operations: readonly string[];
  readonly status: number;
  readonly reason: string;
  /** The error item's `domain` (default `global`). */
  readonly domain?: string;
  /** The `location` it names, as documentation (`timeMax`, `conversion[i].countMillis`); none when it names none. */
  readonly location?: string;
  /** The condition, in one line. */
  readonly when: string;
  readonly evidence: readonly [Evidence, ...Evidence[]];
}

export interface ErrorOptions {
  /** The item's `location`; its `locationType` is `parameter` unless `locationType` says otherwise. */
  readonly location?: string;
  readonly locationType?: 'parameter' | 'header';
  /** Response headers (`Allow`, `Retry-After`, `WWW-Authenticate`). */
  readonly headers?: Record<string, string>;
}

/** One entry of the registry; makes the error items and ApiErrors of its refusal. */
export class Refusal {
  constructor(readonly entry: RefusalEntry) {}

  get status(): number {
    return this.entry.status;
  }

  get reason(): string {
    return this.entry.reason;
  }

  /** The error item of one occurrence, with its message and location. */
  item(message: string, options: Pick<ErrorOptions, 'location' | 'locationType'> = {}): GoogleErrorItem {
    return {
      domain: this.entry.domain ?? 'global',
      reason: this.entry.reason,
      message,
      ...(options.location
        ? { location: options.location, locationType: options.locationType ?? 'parameter' }
        : {}),
    };
  }
}

const registry = new Map<string, Refusal>();

/** Declares a refusal; an id may be declared once. */
export function refusal(entry: RefusalEntry): Refusal {
  if (registry.has(entry.id)) throw new Error(`The refusal ${entry.id} is declared twice`);
  if (entry.evidence.length === 0) throw new Error(`The refusal ${entry.id} cites no evidence`);
  const made = new Refusal(entry);
  registry.set(entry.id, made);
  return made;
}

/** Every declared refusal, by id. */
export function declaredRefusals(): Refusal[] {
  return [...registry.values()].sort((a, b) => a.entry.id.localeCompare(b.entry.id));
}

/**
 * A refusal of the emulator's own surfaces (the control plane, the inspector; domain
 * `emulator`), `<surface>.<name>`: Google has no counterpart, so the evidence is decision 0054,
 * which names each.
 */
export const ownRefusal = (
  surface: string,
  name: string,
  status: number,
  reason: string,
  when: string,
): Refusal =>
  refusal({
    id: `${surface}.${name}`,
    scope: 'control plane',
    operations: [],
    status,
    reason,
    domain: 'emulator',
    when,
    evidence: ['decision:0054'],
  });
