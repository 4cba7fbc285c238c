/**
 * Every Node line we support installs the workspace without an EBADENGINE warning
 * (decision 0061). npm warns when a package it installs declares `engines.node` that the
 * running Node does not satisfy, so this fails as soon as the lockfile holds a package that
 * leaves out the floor of a supported line (20.19.0, 22.12.0, 24.0.0) or a version CI runs
 * (.ci/node-lines). When that package is one we need, it is the signal of decision 0061: the
 * line it leaves out goes, in a minor release with a changeset.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../lib/apis.ts';

interface Locked {
  version?: string;
  name?: string;
  cpu?: string[];
  os?: string[];
  optional?: boolean;
  engines?: Record<string, string> | string[];
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

const RANGE = '^20.19.0 || ^22.12.0 || >=24.0.0';

/** The lowest version of each line of a range of the form `^A.B.C || ^D.E.F || >=G.0.0`. */
function floors(range: string): string[] {
  return new semver.Range(range).set.map((comparators) => {
    const lowest = comparators.find((c) => c.operator === '>=' || c.operator === '');
    if (!lowest) throw new Error(`${range}: a part without a lower bound`);
    return lowest.semver.version;
  });
}

/** The versions .ci/node-lines lists, one a line before any comment. */
function ciVersions(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.replace(/#.*/, '').trim())
    .filter(Boolean)
    .map((line) => line.split(/\s+/)[0] as string);
}

/** Node's values of `process.arch`: a package whose `cpu` allows none of them is never installed. */
const NODE_ARCHES = [
  'arm',
  'arm64',
  'ia32',
  'loong64',
  'mips',
  'mipsel',
  'ppc',
  'ppc64',
  'riscv64',
  's390',
  's390x',
  'x64',
];

/** Where npm finds `name` for the package at `from`: the nearest node_modules up the tree. */
function resolve(packages: Record<string, Locked>, from: string, name: string): string | undefined {
  let dir = from;
  for (;;) {
    const candidate = `${dir ? `${dir}/` : ''}node_modules/${name}`;
    if (packages[candidate]) return candidate;
    if (!dir) return undefined;
    const up = dir.lastIndexOf('/node_modules/');
    dir = up === -1 ? '' : dir.slice(0, up);
  }
}

/**
 * The lockfile's packages npm installs on some platform Node runs on: not those whose `cpu` rules
 * out every Node architecture (WebAssembly builds), nor what only they depend on.
 */
function installable(packages: Record<string, Locked>): Set<string> {
  const never = new Set(
    Object.entries(packages)
      .filter(([, p]) => p.cpu && !p.cpu.some((arch) => NODE_ARCHES.includes(arch)))
      .map(([key]) => key),
  );
  // Walk the dependencies from the root and the workspace folders (their links in node_modules
  // have none), never through a package that is never installed.
  const reached = new Set<string>();
  const queue = Object.keys(packages).filter((key) => !key.includes('node_modules/'));
  while (queue.length > 0) {
    const key = queue.pop() as string;
    if (reached.has(key) || never.has(key)) continue;
    reached.add(key);
    const own = packages[key] as Locked;
    const names = [
      ...Object.keys(own.dependencies ?? {}),
      ...Object.keys(own.optionalDependencies ?? {}),
      // npm installs the peers a package needs, and a workspace's own dev dependencies.
      ...Object.keys(own.peerDependencies ?? {}).filter(
        (name) => !own.peerDependenciesMeta?.[name]?.optional,
      ),
      ...(key.includes('node_modules/') ? [] : Object.keys(own.devDependencies ?? {})),
    ];
    for (const name of names) {
      const found = resolve(packages, key, name);
      if (found) queue.push(found);
    }
  }
  return reached;
}

/** What npm would warn about: each package whose engines.node leaves out one of `versions`. */
function excluding(packages: Record<string, Locked>, versions: string[]) {
  const keep = installable(packages);
  const found: string[] = [];
  for (const [key, p] of Object.entries(packages)) {
    const node = p.engines && !Array.isArray(p.engines) ? p.engines.node : undefined;
    if (!keep.has(key) || !node) continue;
    const left = versions.filter((v) => !semver.satisfies(v, node));
    if (left.length > 0)
      found.push(`${key || '(root)'}@${p.version ?? ''} needs node ${node}, not ${left.join(', ')}`);
  }
  return found;
}

const lock = JSON.parse(readFileSync(path.join(repoRoot, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, Locked>;
};
const rootEngines = (
  JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
    engines: { node: string };
  }
).engines.node;
const lines = ciVersions(readFileSync(path.join(repoRoot, '.ci', 'node-lines'), 'utf8'));

describe('the Node lines we support', () => {
  it('are the range of the root package.json, and CI runs versions inside it', () => {
    expect(rootEngines).toBe(RANGE);
    expect(floors(RANGE)).toEqual(['20.19.0', '22.12.0', '24.0.0']);
    expect(lines.length).toBeGreaterThan(0);
    for (const v of lines) expect(semver.satisfies(v, RANGE), `.ci/node-lines: ${v}`).toBe(true);
  });

  it('install every package of the lockfile without an EBADENGINE warning', () => {
    // Each entry names the package, the range it needs and the versions it leaves out. Take the
    // package out, or, if we need it, drop the line it leaves out as decision 0061 says.
    expect(excluding(lock.packages, [...floors(RANGE), ...lines])).toEqual([]);
  });
});

describe('the engines check', () => {
  const base: Record<string, Locked> = {
    '': { name: 'root', dependencies: { a: '1' } },
    'node_modules/a': {
      version: '1.0.0',
      engines: { node: '>=18' },
      optionalDependencies: { wasm: '1', b: '1' },
    },
    'node_modules/wasm': {
      version: '1.0.0',
      cpu: ['wasm32'],
      engines: { node: '>=23' },
      dependencies: { c: '1' },
    },
    'node_modules/c': { version: '1.0.0', engines: { node: '>=23' } },
    'node_modules/b': { version: '2.0.0', engines: { node: '^20.19.0 || ^22.13.0 || >=23.5.0' } },
    'node_modules/a/node_modules/b': { version: '1.0.0', engines: { node: '>=14' } },
    'node_modules/unused': { version: '1.0.0', engines: { node: '>=22' } },
  };

  it.each<[string, Record<string, Locked>, string[]]>([
    ['passes packages every line satisfies, and skips WebAssembly builds and what only they need', base, []],
    [
      'finds a dependency that leaves out a line',
      { ...base, 'node_modules/a': { ...base['node_modules/a'], engines: { node: '>=22' } } },
      ['node_modules/a@1.0.0 needs node >=22, not 20.19.0'],
    ],
    [
      'finds it nested, by npm resolution',
      { ...base, 'node_modules/a/node_modules/b': { version: '1.0.0', engines: { node: '>=22.13' } } },
      ['node_modules/a/node_modules/b@1.0.0 needs node >=22.13, not 20.19.0, 22.12.0'],
    ],
    [
      'finds a package a WebAssembly build shares with an installed one',
      { ...base, '': { name: 'root', dependencies: { a: '1', c: '1' } } },
      ['node_modules/c@1.0.0 needs node >=23, not 20.19.0, 22.12.0'],
    ],
  ])('%s', (_, packages, want) => {
    expect(excluding(packages, ['20.19.0', '22.12.0', '24.0.0'])).toEqual(want);
  });

  it('reads the floors of a range and the versions of .ci/node-lines', () => {
    expect(floors('^20.19.0 || ^22.12.0 || >=24.0.0')).toEqual(['20.19.0', '22.12.0', '24.0.0']);
    expect(ciVersions('# comment\n24.21.0 all\n\n22.23.3 node-line # note\n')).toEqual([
      '24.21.0',
      '22.23.3',
    ]);
  });
});
