/**
 * The deliberate differences (specs/drift-allowed.json, copied into dist/ by the build): each
 * names a kind of difference, the places it is allowed at, optionally the one aspect, the
 * decision record that explains it and a reason. A difference an entry covers is not reported; an entry place that
 * covers no difference is stale. Shape and rules: docs/decisions/0058-drift-against-discovery.md.
 */
import { readFileSync } from 'node:fs';
import { InputError } from './discovery.js';
import { DIFFERENCE_KINDS, type Difference, type DifferenceKind } from './drift.js';
import { isObject } from './model.js';

/**
 * Where an entry's difference shows: `facts`, only against the reference facts (Google's own
 * document states what the facts lost); `google`, only against Google's own document (the
 * facts left it out). Without it, against both.
 */
export type Only = 'facts' | 'google';

export interface AllowedEntry {
  kind: DifferenceKind;
  /** Places, such as `/operations/events.list/parameters/eventTypes`; `*` stands for any text without `/`. */
  at: string[];
  /** The one aspect allowed to differ (`enum`, `format`, ...); every aspect when left out. */
  aspect?: string;
  /** The decision record, from the repository's root: `docs/decisions/0010-....md`. */
  decision: string;
  reason: string;
  only?: Only;
}

export type AllowedFile = Record<string, AllowedEntry[]>;

export const DECISION_PATH = /^docs\/decisions\/\d{4}-[a-z0-9-]+\.md$/;

/** Checks the file's shape; an InputError names the entry at fault. */
export function checkAllowed(value: unknown, where: string): AllowedFile {
  const fail = (at: string, what: string): never => {
    throw new InputError(`${where}: ${at} ${what}`);
  };
  if (!isObject(value)) fail('the file', 'is not a JSON object of API ids');
  const out: AllowedFile = {};
  for (const [api, entries] of Object.entries(value as Record<string, unknown>)) {
    if (api.startsWith('$')) continue; // "$comment"
    if (!Array.isArray(entries)) fail(`"${api}"`, 'is not a list of entries');
    out[api] = (entries as unknown[]).map((entry, i) => {
      const here = `${api}[${i}]`;
      if (!isObject(entry)) fail(here, 'is not an object');
      const e = entry as Record<string, unknown>;
      if (!DIFFERENCE_KINDS.includes(e.kind as DifferenceKind))
        fail(`${here}.kind`, `is ${JSON.stringify(e.kind)}, not one of: ${DIFFERENCE_KINDS.join(', ')}`);
      const at = typeof e.at === 'string' ? [e.at] : e.at;
      if (
        !Array.isArray(at) ||
        at.length === 0 ||
        !at.every((p) => typeof p === 'string' && p.startsWith('/'))
      )
        fail(`${here}.at`, 'is not a place starting with / or a non-empty list of them');
      if (e.aspect !== undefined && (typeof e.aspect !== 'string' || e.aspect === ''))
        fail(`${here}.aspect`, 'is not a non-empty string');
      if (typeof e.decision !== 'string' || !DECISION_PATH.test(e.decision))
        fail(
          `${here}.decision`,
          'is not a path such as docs/decisions/0010-calendar-follows-the-live-service.md',
        );
      if (typeof e.reason !== 'string' || e.reason.trim() === '')
        fail(`${here}.reason`, 'is missing or empty');
      if (e.only !== undefined && e.only !== 'facts' && e.only !== 'google')
        fail(`${here}.only`, 'is neither "facts" nor "google"');
      return {
        kind: e.kind as DifferenceKind,
        at: at as string[],
        ...(e.aspect !== undefined ? { aspect: e.aspect as string } : {}),
        decision: e.decision as string,
        reason: e.reason as string,
        ...(e.only !== undefined ? { only: e.only as Only } : {}),
      };
    });
  }
  return out;
}

export function readAllowed(file: string): AllowedFile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new InputError(`cannot read ${file}: ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new InputError(`${file} is not JSON: ${(error as Error).message}`);
  }
  return checkAllowed(value, file);
}

const patternCache = new Map<string, RegExp>();

/** Whether a place pattern (`*` = any text without `/`) names the place. */
export function placeMatches(pattern: string, at: string): boolean {
  if (!pattern.includes('*')) return pattern === at;
  let regex = patternCache.get(pattern);
  if (!regex) {
    const source = pattern
      .split('*')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('[^/]*');
    regex = new RegExp(`^${source}$`);
    patternCache.set(pattern, regex);
  }
  return regex.test(at);
}

const covers = (entry: AllowedEntry, place: string, d: Difference) =>
  entry.kind === d.kind &&
  (entry.aspect === undefined || entry.aspect === d.aspect) &&
  placeMatches(place, d.at);

/** An entry's place that covered no difference. */
export interface StaleEntry {
  kind: DifferenceKind;
  at: string;
  aspect?: string;
  decision: string;
}

export interface Sorted {
  /** Differences no entry covers: the drift to act on. */
  reported: Difference[];
  /** Differences an entry covers, with it. */
  allowed: { difference: Difference; entry: AllowedEntry }[];
  /** Entry places that cover nothing. */
  stale: StaleEntry[];
}

/**
 * Sorts differences into reported and allowed, and finds stale entry places. `checkStale`
 * says which entries can be stale against this document (see Only).
 */
export function applyAllowed(
  differences: Difference[],
  entries: AllowedEntry[],
  checkStale: (entry: AllowedEntry) => boolean = () => true,
): Sorted {
  const used = new Set<string>();
  const reported: Difference[] = [];
  const allowed: Sorted['allowed'] = [];
  for (const d of differences) {
    let match: AllowedEntry | undefined;
    entries.forEach((entry, i) => {
      entry.at.forEach((place, j) => {
        if (covers(entry, place, d)) {
          used.add(`${i}:${j}`);
          match ??= entry;
        }
      });
    });
    if (match) allowed.push({ difference: d, entry: match });
    else reported.push(d);
  }
  const stale: StaleEntry[] = [];
  entries.forEach((entry, i) => {
    if (!checkStale(entry)) return;
    entry.at.forEach((place, j) => {
      if (!used.has(`${i}:${j}`))
        stale.push({
          kind: entry.kind,
          at: place,
          ...(entry.aspect ? { aspect: entry.aspect } : {}),
          decision: entry.decision,
        });
    });
  });
  return { reported, allowed, stale };
}
