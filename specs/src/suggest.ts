/**
 * "Did you mean" for a name a person typed on `gspec-specs`'s command line: an option or the
 * command. The same rules as @gspec/server-kit's suggest.ts (the servers' command lines), kept
 * as a copy since this package depends on no other. Only close names
 * are offered: a known name the typed one starts (`--fau` for `--faults`), or one a few edits
 * away, a swap of two neighbours counting as one edit (`--fault`, `--prot`). The work is
 * bounded: a name is compared only with names of about its length, and a comparison stops
 * once it passes the allowed distance.
 */

/** The most edits a name of `length` characters may be away from a known one to be offered. */
const allowedEdits = (length: number) => (length < 3 ? 0 : Math.max(1, Math.floor(length / 3)));

/**
 * The edit distance of `a` and `b` (insertions, deletions, substitutions and swaps of two
 * neighbours, each one edit: optimal string alignment), or `max + 1` once it is past `max`.
 */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(
        (previous[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (previous[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d = Math.min(d, (before[j - 2] as number) + 1);
      row.push(d);
      best = Math.min(best, d);
    }
    if (best > max) return max + 1;
    before = previous;
    previous = row;
  }
  return Math.min(previous[b.length] as number, max + 1);
}

/**
 * The known names closest to `typed`, best first (at most three): those it is the start of,
 * then those fewest edits away, if within a third of its length (one for a name of three to
 * five characters, none for a shorter one). Case is
 * ignored. Empty when none is close: then offer nothing rather than a guess.
 */
export function closestNames(typed: string, known: readonly string[]): string[] {
  const input = typed.toLowerCase();
  if (input === '') return [];
  const max = allowedEdits(input.length);
  const scored: { name: string; score: number }[] = [];
  for (const name of new Set(known)) {
    const lower = name.toLowerCase();
    // The same name (in another case, or without its dashes) is closest; a start of one next.
    const score =
      lower === input
        ? 0
        : input.length >= 2 && lower.startsWith(input)
          ? 0.5
          : editDistance(input, lower, max);
    if (score <= Math.max(max, 0.5)) scored.push({ name, score });
  }
  return scored
    .sort((a, b) => a.score - b.score || a.name.localeCompare(b.name))
    .slice(0, 3)
    .map((s) => s.name);
}

/**
 * `; did you mean X?` (or `X or Y?`) for the known names close to `typed`, each shown with
 * `show` (such as `--${name}`); the empty string when none is close.
 */
export function didYouMean(
  typed: string,
  known: readonly string[],
  show: (name: string) => string = (name) => name,
): string {
  const close = closestNames(typed, known).map(show);
  if (close.length === 0) return '';
  const list =
    close.length === 1 ? close[0] : `${close.slice(0, -1).join(', ')} or ${close[close.length - 1]}`;
  return `; did you mean ${list}?`;
}
