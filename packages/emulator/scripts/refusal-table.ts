/**
 * The refusal table (docs/refusals.md) from the registry (src/core/refusals.ts): every refusal
 * the emulator can answer, with its evidence resolved. Used by `npm run refusals` (which writes
 * the file) and by test/refusals.test.ts (which fails when the file is stale, when a refusal's
 * evidence does not resolve, or when a refusal site has no entry).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { API_MODULES } from '../src/apis/index.ts';
import { declaredRefusals, type Evidence, type Refusal } from '../src/core/refusals.ts';

export const packageDir = path.resolve(import.meta.dirname, '..');
export const repoRoot = path.resolve(packageDir, '../..');
export const tableFile = path.join(packageDir, 'docs/refusals.md');
const fixturesDir = path.join(repoRoot, 'specs/test/fixtures');
const decisionsDir = path.join(repoRoot, 'docs/decisions');

/** The surfaces every emulator has, besides its APIs. */
export const SHARED_SCOPES = ['every API', 'token endpoint', 'control plane'];

/**
 * The refusals of the emulator this package builds: those of its APIs (the registry of
 * src/apis/index.ts) and of the surfaces they share. An API a test serves (third-api.test.ts)
 * declares its own, which are not the package's.
 */
export function servedRefusals(): Refusal[] {
  const scopes = new Set([...API_MODULES.map((module) => module.name as string), ...SHARED_SCOPES]);
  return declaredRefusals().filter((r) => scopes.has(r.entry.scope));
}

/** The fixture files a `fact:` may name, by the name it uses. */
export const FACT_FILES: Record<string, string> = {
  'calendar-v3': 'calendar-v3.facts.json',
  'searchads360-v2': 'searchads360-v2.facts.json',
  conventions: 'conventions.json',
};

const facts = new Map<string, unknown>();
function factFile(name: string): unknown {
  const file = FACT_FILES[name];
  if (!file) return undefined;
  if (!facts.has(name)) facts.set(name, JSON.parse(readFileSync(path.join(fixturesDir, file), 'utf8')));
  return facts.get(name);
}

/** The decision record file of a number (`0054`), if there is one. */
export function decisionFile(number: string): string | undefined {
  const name = readdirSync(decisionsDir).find(
    (file) => file.startsWith(`${number}-`) && file.endsWith('.md'),
  );
  return name === undefined ? undefined : path.join(decisionsDir, name);
}

export interface Resolved {
  /** The text of the evidence in the table (a link, and a fact's value). */
  text: string;
  /** Why it does not resolve; undefined when it does. */
  problem?: string;
}

/**
 * Steps a `/`-separated path into a fact file; an array is stepped into by the element whose
 * `operation` or `name` equals the segment (or by index).
 */
export function factAt(file: string, factPath: string): { found: boolean; value?: unknown } {
  let node: unknown = factFile(file);
  if (node === undefined) return { found: false };
  for (const segment of factPath.split('/')) {
    if (Array.isArray(node)) {
      node = node.find(
        (item, index) =>
          String(index) === segment ||
          (item !== null &&
            typeof item === 'object' &&
            (item.operation === segment || item.name === segment)) ||
          item === segment,
      );
    } else if (node !== null && typeof node === 'object' && Object.hasOwn(node, segment)) {
      node = (node as Record<string, unknown>)[segment];
    } else return { found: false };
    if (node === undefined) return { found: false };
  }
  return { found: true, value: node };
}

/**
 * The table ships in the package, but what it cites (the facts, the decisions) does not: it links
 * to them in the repository, whose address the root package.json gives, so that the links work
 * on the registry's page and in node_modules too.
 */
const repositoryUrl = (
  JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { repository: { url: string } }
).repository.url
  .replace(/^git\+/, '')
  .replace(/\.git$/, '');
const inRepository = (file: string) =>
  `${repositoryUrl}/blob/main/${path.relative(repoRoot, file).split(path.sep).join('/')}`;

/** Resolves one evidence reference of the entry `id`. */
export function resolveEvidence(id: string, evidence: Evidence): Resolved {
  const fact = /^fact:([^:]+):(.+)$/.exec(evidence);
  if (fact) {
    const [, file, factPath] = fact as unknown as [string, string, string];
    const fixture = FACT_FILES[file];
    if (!fixture)
      return { text: evidence, problem: `no fact file ${file} (${Object.keys(FACT_FILES).join(', ')})` };
    const { found, value } = factAt(file, factPath);
    const link = `[${file}](${inRepository(path.join(fixturesDir, fixture))}) \`${factPath}\``;
    if (!found) return { text: link, problem: `${evidence} names nothing in ${fixture}` };
    const shown =
      value === true || typeof value === 'number' || typeof value === 'string'
        ? ` = ${JSON.stringify(value)}`
        : Array.isArray(value) && value.every((v) => typeof v !== 'object')
          ? ` = ${JSON.stringify(value)}`
          : '';
    return { text: `${link}${shown}` };
  }
  const decision = /^decision:(\d{4})$/.exec(evidence);
  if (decision) {
    const number = decision[1] as string;
    const file = decisionFile(number);
    if (!file) return { text: evidence, problem: `no decision record ${number} in docs/decisions` };
    const text = `[${number}](${inRepository(file)})`;
    if (!readFileSync(file, 'utf8').includes(`\`${id}\``))
      return { text, problem: `decision ${number} does not name \`${id}\`` };
    return { text };
  }
  return { text: evidence, problem: `${evidence} is neither fact:<file>:<path> nor decision:NNNN` };
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The order of the table's sections, then any other scope (a third API) by name. */
const SCOPES = ['calendar', 'searchads360', 'every API', 'token endpoint', 'control plane'];

/** The markdown of the refusal table of `refusals`. */
export function renderTable(refusals: readonly Refusal[]): string {
  const scopes = [...new Set(refusals.map((r) => r.entry.scope))].sort(
    (a, b) =>
      (SCOPES.indexOf(a) + 1 || SCOPES.length + 1) - (SCOPES.indexOf(b) + 1 || SCOPES.length + 1) ||
      a.localeCompare(b),
  );
  const lines = [
    '# Every refusal the emulator can answer',
    '',
    '<!-- Generated from the registry (src/core/refusals.ts) by `npm run refusals`; do not edit by hand. -->',
    '',
    'Each row is one condition the emulator refuses, declared where the code refuses it (an',
    'error can only be made from a declared entry), with its evidence that the live service',
    'refuses so: a fact of the live service (the reference facts and the conventions of',
    "Google's documentation, in `specs/test/fixtures/`), or a decision record that names the",
    'entry with the Google page or observation it rests on. The emulator’s own surfaces (the',
    'control plane, the inspector, the limits of its HTTP layer) cite the decision that chose',
    'them. `test/refusals.test.ts` fails when a refusal has no entry, an entry no resolving',
    'evidence, or this file differs from the registry. How to add one:',
    `[decision 0054](${inRepository(path.join(decisionsDir, '0054-every-refusal-cites-its-evidence.md'))}).`,
    '',
    `${refusals.length} refusals.`,
  ];
  for (const scope of scopes) {
    const rows = refusals.filter((r) => r.entry.scope === scope);
    lines.push(
      '',
      `## ${scope} (${rows.length})`,
      '',
      '| Id | Operations | Status | Reason | Location | When | Evidence |',
      '|---|---|---|---|---|---|---|',
    );
    for (const { entry } of rows) {
      const evidence = entry.evidence.map((e) => resolveEvidence(entry.id, e).text).join('<br>');
      lines.push(
        `| \`${entry.id}\` | ${cell(entry.operations.length > 0 ? entry.operations.join(', ') : 'all')} | ${entry.status} | \`${entry.reason}\`${entry.domain && entry.domain !== 'global' ? ` (${entry.domain})` : ''} | ${cell(entry.location ?? '')} | ${cell(entry.when)} | ${cell(evidence)} |`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}
