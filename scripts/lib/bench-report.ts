/**
 * Writes one section of docs/benchmarks.md, so that every benchmark of `npm run bench`
 * (the clients', the mock's, later the emulator's) reports into one document without
 * overwriting the others. A section sits between `<!-- bench:NAME -->` and
 * `<!-- /bench:NAME -->` and is replaced whole on each run; the header names the machine.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from './apis.ts';

export const benchmarksFile = path.join(repoRoot, 'docs', 'benchmarks.md');

const HEADER = `# Benchmarks

Written by \`npm run bench\`; each section is replaced by its own benchmark on every run.
Figures are ratios measured in the same run wherever possible: absolute times vary on
shared machines.
`;

/** The machine a benchmark ran on, for the record. */
export function machineLine(): string {
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  return `${os.cpus().length} × ${cpu.trim()}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${os.platform()} ${os.arch()}`;
}

/** The median of the values (the mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** The p-th percentile of the values by nearest rank (the smallest value with p% at or under it). */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

/** A horizontal bar chart in plain text, for a Markdown code block. */
export function barChart(rows: [label: string, value: number][], unit = '', width = 40): string {
  const max = Math.max(...rows.map(([, v]) => v), Number.MIN_VALUE);
  const labelWidth = Math.max(...rows.map(([l]) => l.length));
  return rows
    .map(
      ([label, value]) =>
        `${label.padEnd(labelWidth)} ${'█'.repeat(Math.max(1, Math.round((value / max) * width)))} ${value}${unit}`,
    )
    .join('\n');
}

/** Replaces (or appends) the section NAME of docs/benchmarks.md (or `file`) with `markdown`. */
export function writeBenchSection(
  name: string,
  markdown: string,
  { now = new Date(), file = benchmarksFile }: { now?: Date; file?: string } = {},
): void {
  if (!/^[a-z0-9-]+$/.test(name))
    throw new Error(`bench section name "${name}" must be lower-case letters, digits and dashes`);
  const start = `<!-- bench:${name} -->`;
  const end = `<!-- /bench:${name} -->`;
  const body = `${start}\n${markdown.trim()}\n\n_Measured ${now.toISOString().slice(0, 10)} on ${machineLine()}._\n${end}`;
  const current = existsSync(file) ? readFileSync(file, 'utf8') : HEADER;
  const from = current.indexOf(start);
  const to = current.indexOf(end);
  const next =
    from >= 0 && to > from
      ? `${current.slice(0, from)}${body}${current.slice(to + end.length)}`
      : `${current.trimEnd()}\n\n${body}\n`;
  writeFileSync(file, next);
}
