/**
 * A package installed when a test asks for it: only on a Node line it supports, once, safe when
 * two ask at once, and an install that fails says what failed and what to do. The package here
 * is a tarball made for the test, so nothing is fetched.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installOnDemand, notOnThisNode, ON_DEMAND_CACHE, requireFrom } from '../lib/installed-on-demand.ts';

describe('notOnThisNode', () => {
  it.each<[string, number | undefined, string, RegExp | undefined]>([
    [
      'a line below its floor',
      22,
      '20.20.2',
      /probe 1\.2\.3 needs Node 22 or later, and this is Node 20\.20\.2/,
    ],
    ['its floor', 22, '22.12.0', undefined],
    ['a line above it', 22, '24.21.0', undefined],
    ['a package for every line', undefined, '20.19.0', undefined],
  ])('%s', (_, nodeMajor, node, says) => {
    const why = notOnThisNode({ name: 'probe', version: '1.2.3', nodeMajor }, node);
    if (says) expect(why).toMatch(says);
    else expect(why).toBeUndefined();
  });
});

describe('installOnDemand', () => {
  let dir: string;
  let tarball: string;
  const wanted = { name: '@gspec-test/on-demand', version: '1.2.3' };

  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'gspec-on-demand-'));
    const source = path.join(dir, 'source');
    mkdirSync(source);
    writeFileSync(path.join(source, 'package.json'), JSON.stringify({ ...wanted, main: 'index.js' }));
    writeFileSync(path.join(source, 'index.js'), 'exports.answer = 42;\n');
    const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));
    const name = execFileSync('npm', ['pack', '--silent', '--pack-destination', dir], {
      cwd: source,
      env,
      encoding: 'utf8',
    }).trim();
    tarball = path.join(dir, name);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps its installs out of the workspace, in a git-ignored cache', () => {
    expect(ON_DEMAND_CACHE.split(path.sep).slice(-3)).toEqual(['node_modules', '.cache', 'gspec-on-demand']);
  });

  it('installs once when two ask at once, and both get the same whole folder', async () => {
    const cache = path.join(dir, 'race');
    const [a, b] = await Promise.all([
      installOnDemand(wanted, { cache, source: tarball }),
      installOnDemand(wanted, { cache, source: tarball }),
    ]);
    expect(a).toBe(b);
    expect(requireFrom<{ answer: number }>(a, wanted.name).answer).toBe(42);
    expect(readdirSync(cache)).toEqual(['@gspec-test+on-demand@1.2.3']);
  });

  it('reuses the folder later without running npm', async () => {
    const cache = path.join(dir, 'reuse');
    const first = await installOnDemand(wanted, { cache, source: tarball });
    // A source npm could not install: it is not asked again.
    await expect(installOnDemand(wanted, { cache, source: path.join(dir, 'gone.tgz') })).resolves.toBe(first);
  });

  it.each<[string, (cache: string) => Promise<string>, RegExp]>([
    [
      'a source npm cannot install',
      (cache) => installOnDemand(wanted, { cache, source: path.join(dir, 'gone.tgz') }),
      /npm install .*gone\.tgz into .* failed: [\s\S]*A test needs @gspec-test\/on-demand 1\.2\.3; check that npm reaches its registry/,
    ],
    [
      'another version than asked',
      (cache) => installOnDemand({ ...wanted, version: '9.9.9' }, { cache, source: tarball }),
      /installed version 1\.2\.3 of @gspec-test\/on-demand, not 9\.9\.9/,
    ],
  ])('fails on %s, saying so, and leaves nothing in the cache', async (_, install, says) => {
    const cache = mkdtempSync(path.join(dir, 'fail-'));
    await expect(install(cache)).rejects.toThrow(says);
    expect(readdirSync(cache)).toEqual([]);
  });

  it('says when the package is not in the folder', () => {
    expect(() => requireFrom(dir, 'nothing-here')).toThrow(`nothing-here is not installed in ${dir}`);
  });
});
