import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../lib/apis.ts';
import {
  failuresOf,
  fileTimes,
  minutes,
  type Row,
  report,
  type SavedLine,
  savedLineRows,
  savedLines,
  timesReport,
  type VitestReport,
} from '../test-summary.ts';

describe('test-summary over several Node lines', () => {
  it('adds up every saved line, each row named after its line', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'gspec-lines-'));
    const host: Row[] = [
      ['@gspec/mock#test', 120, 0, 2, ''],
      ['@gspec/mock#lint', 1, 0, 0, ''],
    ];
    const node24: Row[] = [
      ['@gspec/mock#test', 119, 1, 2, 'exit 1'],
      ['@gspec/mock#lint', 1, 0, 0, ''],
    ];
    const save = (name: string, rows: Row[]) =>
      writeFileSync(path.join(dir, name), JSON.stringify({ rows, tasks: [], files: [] } satisfies SavedLine));
    save('node-v20.20.2.json', host);
    save('node-v24.21.0.json', node24);
    const rows = savedLineRows(dir);
    expect(rows.map((r) => r[0])).toEqual([
      'node-v20.20.2 @gspec/mock#test',
      'node-v20.20.2 @gspec/mock#lint',
      'node-v24.21.0 @gspec/mock#test',
      'node-v24.21.0 @gspec/mock#lint',
    ]);
    const printed: string[] = [];
    expect(report(rows, (line) => printed.push(line))).toBe(1);
    expect(printed.at(-1)).toBe('241 passed, 1 failed, 4 skipped');
    expect(printed.find((line) => line.startsWith('node-v24.21.0 @gspec/mock#test'))).toMatch(
      /119\s+1\s+2\s+exit 1$/,
    );
  });

  it('refuses to add up nothing', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'gspec-lines-'));
    expect(() => savedLineRows(dir)).toThrow('no saved Node line');
  });

  it('refuses a saved line without rows rather than counting it as nothing', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'gspec-lines-'));
    writeFileSync(path.join(dir, 'node-v22.0.0.json'), JSON.stringify([['a#test', 1, 0, 0, '']]));
    expect(() => savedLines(dir)).toThrow('node-v22.0.0.json: no rows');
  });

  it('passes when nothing failed', () => {
    expect(report([['a#test', 3, 0, 0, '']], () => undefined)).toBe(0);
  });
});

describe('test times', () => {
  it("names each file from the repository's root, with the run's suffix", () => {
    const times = { files: [{ file: 'test/cli.test.ts', seconds: 12.5 }] };
    expect(fileTimes(times, 'times.json', 'packages/mock')).toEqual([
      { name: 'packages/mock/test/cli.test.ts', seconds: 12.5 },
    ]);
    expect(fileTimes(times, 'times-emulator.json', 'packages/contract-tests')).toEqual([
      { name: 'packages/contract-tests/test/cli.test.ts [emulator]', seconds: 12.5 },
    ]);
  });

  it('lists each line with its wall time and the slowest files over every line, slowest first', () => {
    const line = (wall: number | undefined, files: [string, number][]): SavedLine => ({
      rows: [['a#test', files.length, 0, 0, '']],
      ...(wall === undefined ? {} : { wallSeconds: wall }),
      tasks: [{ name: 'a#test', seconds: 5 }],
      files: files.map(([name, seconds]) => ({ name, seconds })),
    });
    const { markdown, summary } = timesReport(
      [
        [
          'node-v20.20.2',
          line(125, [
            ['a.test.ts', 3],
            ['b.test.ts', 40],
          ]),
        ],
        ['node-v24.21.0', line(undefined, [['c.test.ts', 12]])],
      ],
      2,
    );
    expect(summary).toEqual([
      'Each Node line:',
      '  node-v20.20.2        2 min 05 s       2 tests passed in 2 test files',
      '  node-v24.21.0         not timed       1 tests passed in 1 test files',
      'The 2 slowest test files:',
      '     40.0 s  b.test.ts  (node-v20.20.2)',
      '     12.0 s  c.test.ts  (node-v24.21.0)',
    ]);
    expect(markdown).toContain('| 40.0 | `b.test.ts` | node-v20.20.2 |');
    expect(markdown).not.toContain('a.test.ts');
    expect(markdown).toContain('## Tasks on node-v24.21.0');
  });
});

describe('failed tests', () => {
  const dir = 'packages/reference';
  const file = (name: string) => path.join(repoRoot, dir, 'test', name);
  const report: VitestReport = {
    numPassedTests: 1,
    numFailedTests: 1,
    numPendingTests: 0,
    numTodoTests: 0,
    testResults: [
      {
        name: file('browser.test.ts'),
        status: 'failed',
        assertionResults: [
          { fullName: 'the portal > opens /', status: 'passed' },
          {
            fullName: 'the portal > opens every link',
            status: 'failed',
            failureMessages: [
              '\nAssertionError: console errors: expected [ …(1) ] to deeply equal []\n    at x.ts:1',
            ],
          },
        ],
      },
      {
        name: file('build.test.ts'),
        status: 'failed',
        message: 'Error: Cannot find module x',
        assertionResults: [],
      },
      { name: file('samples.test.ts'), status: 'passed', assertionResults: [] },
    ],
  };

  it('names each failed test from the root with its first error line, and a file that failed to load', () => {
    expect(failuresOf(report, dir)).toEqual([
      {
        test: 'packages/reference/test/browser.test.ts > the portal > opens every link',
        message: 'AssertionError: console errors: expected [ …(1) ] to deeply equal []',
      },
      { test: 'packages/reference/test/build.test.ts', message: 'Error: Cannot find module x' },
    ]);
  });

  it('prints them with their line after the slowest files, and cuts a long message', () => {
    const long: VitestReport = {
      ...report,
      testResults: [
        { name: file('build.test.ts'), status: 'failed', message: 'y'.repeat(400), assertionResults: [] },
      ],
    };
    const failures = failuresOf(long, dir);
    expect(failures[0]?.message).toHaveLength(300);
    const { summary, markdown } = timesReport([
      ['node-v24.21.0', { rows: [['a#test', 0, 1, 0, 'exit 1']], tasks: [], files: [], failures }],
    ]);
    expect(summary.slice(-3)).toEqual([
      'Failed tests (1):',
      '  node-v24.21.0  packages/reference/test/build.test.ts',
      `      ${'y'.repeat(299)}…`,
    ]);
    expect(markdown).toContain('## Failed tests');
  });

  it('prints no such section when nothing failed', () => {
    const { summary } = timesReport([['node-v24.21.0', { rows: [], tasks: [], files: [], failures: [] }]]);
    expect(summary.join('\n')).not.toContain('Failed tests');
  });
});

describe('minutes', () => {
  it.each([
    [0, '0 min 00 s'],
    [125, '2 min 05 s'],
    [119.6, '2 min 00 s'],
    [824.68, '13 min 45 s'],
  ])('writes %d s as %s', (seconds, text) => {
    expect(minutes(seconds)).toBe(text);
  });
});
