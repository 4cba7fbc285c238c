/**
 * Cases that fail today for a reason outside this package, each with the exact behaviour
 * and whom it belongs to. Such a case runs as `it.fails`: it stays green while the problem
 * is there and turns red once it is fixed, so the entry must then be removed. Keys are
 * `<operationId> <kind>: <title>`, as the case is named in the run.
 */
import type { TargetKind } from './target.ts';

export interface KnownIssue {
  owner: 'mock' | 'specs' | 'emulator';
  /** The targets the case fails on (an emulator bug fails only there); every target when left out. */
  targets?: TargetKind[];
  reason: string;
}

// None at the moment: the mock's array-parameter locations and the five operations that
// documented no 400 are fixed. Add an entry here, with its owner and the exact behaviour,
// when a case fails for a reason outside this package.
export const KNOWN_ISSUES: Record<string, KnownIssue> = {};

export function caseKey(operationId: string, kind: string, title: string): string {
  return `${operationId} ${kind}: ${title}`;
}

/** The known issue of a case on a target, if any. */
export function knownIssue(
  target: TargetKind,
  operationId: string,
  kind: string,
  title: string,
): KnownIssue | undefined {
  const issue = KNOWN_ISSUES[caseKey(operationId, kind, title)];
  return issue && (issue.targets === undefined || issue.targets.includes(target)) ? issue : undefined;
}
