/**
 * What each Node line runs is a reviewed choice (decision 0051): the list in
 * scripts/lib/node-lines.ts, the record that justifies it, .ci/node-lines and the packages'
 * `test:node-line` scripts must agree, or this fails.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../lib/apis.ts';
import {
  DIFFERENCES,
  type Difference,
  NODE_LINE_TESTS,
  nodeLineFiles,
  nodeLinePackages,
  onAnotherNodeLine,
} from '../lib/node-lines.ts';
import { turboArgs } from '../run-tests.ts';

const RECORD = path.join(repoRoot, 'docs', 'decisions', '0051-what-each-node-line-runs.md');

/** The rows of the record's table of files: `| \`file\` | reason, reason | why |`. */
function recordedFiles(): Map<string, string[]> {
  const rows = new Map<string, string[]>();
  for (const line of readFileSync(RECORD, 'utf8').split('\n')) {
    const match = /^\| `([^`]+\.test\.ts)` \| ([a-z, ]+) \|/.exec(line);
    if (match) rows.set(match[1] as string, (match[2] as string).split(/,\s*/));
  }
  return rows;
}

function packageJson(dir: string): { scripts?: Record<string, string> } {
  return JSON.parse(readFileSync(path.join(repoRoot, dir, 'package.json'), 'utf8'));
}

describe('the files that run on every Node line', () => {
  it.each(NODE_LINE_TESTS.map((t) => [t.file, t.differs] as const))(
    '%s exists and names what differs',
    (file, differs) => {
      expect(existsSync(path.join(repoRoot, file)), file).toBe(true);
      expect(differs.length).toBeGreaterThan(0);
      for (const difference of differs) expect(Object.keys(DIFFERENCES)).toContain(difference);
    },
  );

  it('are listed once each', () => {
    const files = NODE_LINE_TESTS.map((t) => t.file);
    expect(new Set(files).size).toBe(files.length);
  });

  it('are exactly the files of decision 0051, with the same reasons', () => {
    const recorded = recordedFiles();
    expect([...recorded.keys()].sort()).toEqual(NODE_LINE_TESTS.map((t) => t.file).sort());
    for (const { file, differs } of NODE_LINE_TESTS)
      expect(recorded.get(file)?.sort(), file).toEqual([...differs].sort() as Difference[]);
  });

  it("are run by their packages' test:node-line script, and no other package has one", () => {
    const packages = nodeLinePackages();
    expect(packages.length).toBeGreaterThan(0);
    for (const dir of packages) expect(packageJson(dir).scripts?.['test:node-line'], dir).toBe('vitest run');
    const workspaces = readFileSync(path.join(repoRoot, 'package.json'), 'utf8');
    expect(workspaces).toContain('packages/*');
    for (const dir of [
      'packages/calendar',
      'packages/searchads360',
      'packages/reference',
      'packages/contract-tests',
    ])
      expect(packageJson(dir).scripts?.['test:node-line'], dir).toBeUndefined();
  });

  it("are told from the package's test:node-line script, not from its test script", () => {
    expect(onAnotherNodeLine({ npm_lifecycle_event: 'test:node-line' })).toBe(true);
    expect(onAnotherNodeLine({ npm_lifecycle_event: 'test' })).toBe(false);
    expect(onAnotherNodeLine({})).toBe(false);
  });

  it('are narrowed to one package from its folder', () => {
    expect(nodeLineFiles('packages/emulator')).toContain('test/oauth.test.ts');
    expect(nodeLineFiles('packages/emulator/')).not.toContain('test/node.test.ts');
    expect(nodeLineFiles('packages/emulat')).toEqual([]);
    expect(nodeLineFiles('packages/reference')).toEqual([]);
  });
});

describe('npm test -- --node-line', () => {
  it("runs the packages' test:node-line task only, no lint nor type check", () => {
    const { args, nodeLine } = turboArgs(['--node-line', '--dry=json'], 2);
    expect(nodeLine).toBe(true);
    expect(args.slice(0, 2)).toEqual(['run', 'test:node-line']);
    expect(args).not.toContain('lint');
    expect(args).not.toContain('--node-line');
    expect(args.filter((a) => a.startsWith('--filter='))).toEqual(
      nodeLinePackages().map((dir) => `--filter=./${dir}`),
    );
    expect(args.at(-1)).toBe('--dry=json');
  });

  it('runs every check without it', () => {
    const { args, nodeLine } = turboArgs([], 3);
    expect(nodeLine).toBe(false);
    expect(args.slice(0, 4)).toEqual(['run', 'lint', 'typecheck', 'test']);
    expect(args).toContain('--concurrency=3');
  });
});

describe('.ci/node-lines', () => {
  const entries = readFileSync(path.join(repoRoot, '.ci', 'node-lines'), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('#'))
    .map((line) => line.trim().split(/\s+/));

  it('gives each version a scope, all or node-line', () => {
    for (const entry of entries) {
      expect(entry[0]).toMatch(/^\d+\.\d+\.\d+$/);
      expect(['all', 'node-line']).toContain(entry[1]);
    }
  });

  it('runs the whole suite on the newest line it lists', () => {
    const major = (v: string) => Number(v.split('.')[0]);
    const newest = Math.max(...entries.map((e) => major(e[0] as string)));
    expect(entries.filter((e) => e[1] === 'all').map((e) => major(e[0] as string))).toEqual([newest]);
  });
});
