/**
 * The per-operation report of the contract tests: at the end of the run, a table (operation,
 * cases, passed, failed, skipped with the reasons) on the console, and the same results as
 * JUnit XML in reports/junit.xml, one <testsuite> per operation, so CI systems can show it.
 * "known" counts the passed cases that are known issues (`it.fails`, see known-issues.ts),
 * which are included in "passed". A test belongs to the operation in its `meta.operationId`; the others (guards, validator)
 * are reported under "(suite)".
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Reporter, TestCase, TestModule, Vitest } from 'vitest/node';

interface Row {
  api: string;
  operationId: string;
  tests: { test: TestCase; state: 'passed' | 'failed' | 'skipped'; note?: string; message?: string }[];
}

const SUITE = '(suite)';

function xml(text: string): string {
  return (
    text
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      // biome-ignore lint/suspicious/noControlCharactersInRegex: XML 1.0 forbids these characters.
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '')
  );
}

export function groupByOperation(modules: ReadonlyArray<TestModule>): Row[] {
  const rows = new Map<string, Row>();
  for (const module of modules) {
    for (const test of module.children.allTests()) {
      const meta = test.meta();
      const api = meta.api ?? '';
      const operationId = meta.operationId ?? SUITE;
      const key = `${api} ${operationId}`;
      let row = rows.get(key);
      if (!row) {
        row = { api, operationId, tests: [] };
        rows.set(key, row);
      }
      const result = test.result();
      const state = result.state === 'pending' ? 'skipped' : result.state;
      row.tests.push({
        test,
        state,
        ...(result.state === 'skipped' ? { note: result.note ?? 'skipped without a note' } : {}),
        ...(result.state === 'failed'
          ? { message: (result.errors ?? []).map((e) => e.message).join('\n') }
          : {}),
      });
    }
  }
  return [...rows.values()].sort(
    (a, b) =>
      Number(a.operationId === SUITE) - Number(b.operationId === SUITE) ||
      a.api.localeCompare(b.api) ||
      a.operationId.localeCompare(b.operationId),
  );
}

function count(row: Row, state: string): number {
  return row.tests.filter((t) => t.state === state).length;
}

function reasons(row: Row): string {
  const notes = new Map<string, number>();
  for (const t of row.tests) if (t.note) notes.set(t.note, (notes.get(t.note) ?? 0) + 1);
  return [...notes].map(([note, n]) => `${n}× ${note}`).join('; ');
}

export function renderTable(rows: Row[]): string {
  const header = ['api', 'operation', 'cases', 'passed', 'failed', 'skipped', 'known', 'skip reasons'];
  const known = (row: Row) => row.tests.filter((t) => t.test.options.fails && t.state === 'passed').length;
  const lines = rows.map((row) => [
    row.api,
    row.operationId,
    String(row.tests.length),
    String(count(row, 'passed')),
    String(count(row, 'failed')),
    String(count(row, 'skipped')),
    String(known(row)),
    reasons(row),
  ]);
  const total = [
    '',
    'total',
    ...['all', 'passed', 'failed', 'skipped'].map((state) =>
      String(rows.reduce((n, row) => n + (state === 'all' ? row.tests.length : count(row, state)), 0)),
    ),
    String(rows.reduce((n, row) => n + known(row), 0)),
    '',
  ];
  const all = [header, ...lines, total];
  const widths = header.map((_, i) => Math.max(...all.map((line) => (line[i] ?? '').length)));
  const render = (line: string[]) =>
    line
      .map((cell, i) => (i >= 2 && i <= 6 ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [render(header), rule, ...lines.map(render), rule, render(total)].join('\n');
}

export function renderJUnit(rows: Row[]): string {
  const seconds = (t: TestCase) => ((t.diagnostic()?.duration ?? 0) / 1000).toFixed(3);
  const suites = rows.map((row) => {
    const name = row.api ? `${row.api} ${row.operationId}` : row.operationId;
    const classname = row.api ? `${row.api}.${row.operationId}` : 'contract-tests';
    const cases = row.tests.map(({ test, state, note, message }) => {
      const open = `    <testcase classname="${xml(classname)}" name="${xml(test.name)}" time="${seconds(test)}"`;
      if (state === 'skipped')
        return `${open}>\n      <skipped message="${xml(note ?? '')}"/>\n    </testcase>`;
      if (state === 'failed') {
        const first = (message ?? '').split('\n')[0] ?? '';
        return `${open}>\n      <failure message="${xml(first)}">${xml(message ?? '')}</failure>\n    </testcase>`;
      }
      return `${open}/>`;
    });
    return [
      `  <testsuite name="${xml(name)}" tests="${row.tests.length}" failures="${count(row, 'failed')}" errors="0" skipped="${count(row, 'skipped')}">`,
      ...cases,
      '  </testsuite>',
    ].join('\n');
  });
  const all = rows.flatMap((r) => r.tests);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="@gspec/contract-tests" tests="${all.length}" failures="${all.filter((t) => t.state === 'failed').length}" errors="0" skipped="${all.filter((t) => t.state === 'skipped').length}">`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}

export default class OperationReporter implements Reporter {
  private root = process.cwd();
  private log: (text: string) => void = (text) => process.stdout.write(`${text}\n`);

  constructor(private readonly outputFile = 'reports/junit.xml') {}

  onInit(vitest: Vitest): void {
    this.root = vitest.config.root;
    this.log = (text) => vitest.logger.log(text);
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const rows = groupByOperation(modules);
    if (rows.length === 0) return;
    this.log(`\nContract tests by operation\n\n${renderTable(rows)}\n`);
    const file = path.resolve(this.root, this.outputFile);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, renderJUnit(rows));
    this.log(`JUnit report (one testsuite per operation) written to ${file}`);
  }
}
