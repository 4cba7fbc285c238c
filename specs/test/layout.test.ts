/**
 * The split layout is checked here, not left to agreement: path files are named after their
 * path, components after their file, and the entry file holds nothing but the allowed keys.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { listApis } from '@gspec/scripts/apis';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const specsDir = path.resolve(import.meta.dirname, '..');
const componentKinds = ['schemas', 'parameters', 'responses', 'examples', 'links'];

describe.each(listApis().map((api) => [api.name, api] as const))('%s layout', (_name, api) => {
  const dir = path.dirname(api.root);
  const entry = parse(readFileSync(api.root, 'utf8'));

  it('keeps only info, servers, tags, security, paths and the security scheme in the entry file', () => {
    const allowed = ['openapi', 'info', 'servers', 'tags', 'security', 'paths', 'components'];
    expect(Object.keys(entry).filter((key) => !allowed.includes(key))).toEqual([]);
    expect(Object.keys(entry.components ?? {})).toEqual(['securitySchemes']);
  });

  it('refers every path to paths/<path with / as _>.yaml', () => {
    for (const [route, item] of Object.entries<{ $ref?: string }>(entry.paths)) {
      const expected = `paths/${route.slice(1).replaceAll('/', '_')}.yaml`;
      expect(item.$ref, route).toBe(expected);
    }
  });

  it('has a path file for every path and no orphan path file', () => {
    const files = readdirSync(path.join(dir, 'paths')).sort();
    const referenced = Object.values<{ $ref: string }>(entry.paths)
      .map((item) => path.basename(item.$ref))
      .sort();
    expect(files).toEqual(referenced);
  });

  it.each(componentKinds)('names every %s file in PascalCase', (kind) => {
    let files: string[] = [];
    try {
      files = readdirSync(path.join(dir, 'components', kind));
    } catch {
      return; // a kind this API does not need yet
    }
    for (const file of files) expect(file, `${kind}/${file}`).toMatch(/^[A-Z][A-Za-z0-9]*\.yaml$/);
  });
});

describe('shared components', () => {
  it.each(componentKinds.concat('headers'))('names every shared %s file in PascalCase', (kind) => {
    let files: string[] = [];
    try {
      files = readdirSync(path.join(specsDir, 'shared', 'components', kind));
    } catch {
      return;
    }
    for (const file of files) expect(file, `${kind}/${file}`).toMatch(/^[A-Z][A-Za-z0-9]*\.yaml$/);
  });
});
