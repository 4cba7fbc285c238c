/**
 * What a user sees of a published package on the registry's page and in node_modules: its
 * package.json points at our repository (the root package.json says where, once), and every
 * link of the markdown it ships works there. A link to a file the package ships stays relative;
 * a link to anything else in the repository is absolute, to a file or heading that exists.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../lib/apis.ts';

interface PackageJson {
  name: string;
  private?: boolean;
  files?: string[];
  workspaces?: string[];
  repository?: { type?: string; url?: string; directory?: string } | string;
  homepage?: string;
  bugs?: { url?: string } | string;
}

const readJson = (file: string): PackageJson => JSON.parse(readFileSync(path.join(repoRoot, file), 'utf8'));
const root = readJson('package.json');

/** The repository's web address, from the root's `repository`: https://github.com/OWNER/NAME. */
function webAddress(): string {
  const url = typeof root.repository === 'object' ? root.repository.url : root.repository;
  const match = /^git\+(https:\/\/github\.com\/[^/]+\/[^/]+?)\.git$/.exec(url ?? '');
  if (!match)
    throw new Error(
      `package.json: repository.url is ${JSON.stringify(url)}; expected git+https://github.com/OWNER/NAME.git`,
    );
  return match[1] as string;
}
const WEB = webAddress();
const BRANCH = 'main';

/** The folders of the published packages: the workspaces that are not private. */
const published: string[] = (root.workspaces ?? [])
  .flatMap((pattern) =>
    pattern.endsWith('/*')
      ? readdirSync(path.join(repoRoot, pattern.slice(0, -2)), { withFileTypes: true })
          .filter((entry) => entry.isDirectory())
          .map((entry) => `${pattern.slice(0, -2)}/${entry.name}`)
      : [pattern],
  )
  .filter((dir) => {
    try {
      return readJson(`${dir}/package.json`).private !== true;
    } catch {
      return false;
    }
  })
  .sort();

/** Every file of the repository: tracked, or new and not ignored. */
const repoFiles = new Set(
  execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], {
    cwd: repoRoot,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  })
    .split('\0')
    .filter(Boolean),
);
const isFile = (file: string) => repoFiles.has(file);
const isDir = (dir: string) => {
  const prefix = `${dir.replace(/\/$/, '')}/`;
  for (const file of repoFiles) if (file.startsWith(prefix)) return true;
  return false;
};

/** GitHub's anchors of a markdown file's headings. */
function anchors(file: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const heading of headings(readFileSync(path.join(repoRoot, file), 'utf8'))) {
    const base = heading
      .toLowerCase()
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/<[^>]+>/g, '')
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    result.add(count === 0 ? base : `${base}-${count}`);
  }
  return result;
}

/** The text outside fenced code blocks, line by line (code lines blanked, so lines keep their numbers). */
function prose(markdown: string): string[] {
  let fence: string | undefined;
  return markdown.split('\n').map((line) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      return '';
    }
    if (marker) {
      fence = marker;
      return '';
    }
    return line;
  });
}

function headings(markdown: string): string[] {
  return prose(markdown)
    .map((line) => /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1])
    .filter((h): h is string => h !== undefined);
}

/** The links of a markdown file: `[text](target)`, `[label]: target`, and HTML src/href. */
function links(markdown: string): { line: number; target: string }[] {
  const found: { line: number; target: string }[] = [];
  prose(markdown).forEach((text, index) => {
    const line = text.replace(/`[^`]*`/g, '');
    for (const m of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g))
      found.push({ line: index + 1, target: m[1] as string });
    const reference = /^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/.exec(line);
    if (reference) found.push({ line: index + 1, target: reference[1] as string });
    for (const m of line.matchAll(/\b(?:src|href)="([^"]+)"/g))
      found.push({ line: index + 1, target: m[1] as string });
  });
  return found;
}

/** The package's `files` entries, each a file or a folder it ships. */
function shipped(dir: string): string[] {
  return ['package.json', 'README.md', 'LICENSE', ...(readJson(`${dir}/package.json`).files ?? [])].map(
    (entry) => path.posix.normalize(`${dir}/${entry.replace(/^\.\//, '').replace(/\/$/, '')}`),
  );
}
const isShipped = (dir: string, file: string) =>
  shipped(dir).some((entry) => file === entry || file.startsWith(`${entry}/`));

/** The markdown files a package ships (its README and any .md its `files` names or holds). */
function shippedMarkdown(dir: string): string[] {
  return [...repoFiles].filter((file) => file.endsWith('.md') && isShipped(dir, file)).sort();
}

/** Images are linked to their raw bytes, which a page can show; other files to their GitHub page. */
const IMAGE = /\.(png|jpe?g|gif|svg|webp)$/i;

/** What is wrong with one link of `file` (a markdown file the package in `dir` ships), if anything. */
function problem(dir: string, file: string, target: string): string | undefined {
  const [address, anchor] = target.split('#', 2) as [string, string | undefined];
  const checkAnchor = (markdown: string) =>
    anchor === undefined || anchors(markdown).has(decodeURIComponent(anchor))
      ? undefined
      : `${markdown} has no heading with the anchor #${anchor}`;
  const repoLink = new RegExp(`^${WEB.replace(/[.]/g, '\\.')}/(blob|tree|raw)/([^/]+)/(.+)$`).exec(address);
  if (repoLink) {
    const [, kind, branch, inRepo] = repoLink as unknown as [string, string, string, string];
    const target = decodeURIComponent(inRepo).replace(/\/$/, '');
    if (branch !== BRANCH) return `links to the branch ${branch}; link to ${BRANCH}`;
    if (kind === 'tree') {
      if (!isDir(target)) return `${target} is not a folder of the repository`;
      return anchor === undefined
        ? undefined
        : `an anchor on a folder; link to ${target}/README.md#${anchor}`;
    }
    if (!isFile(target)) return `${target} is not a file of the repository`;
    return target.endsWith('.md') ? checkAnchor(target) : undefined;
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(address) || address.startsWith('//')) return undefined;
  const resolved =
    address === '' ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), address));
  const inRepo = resolved.replace(/\/$/, '');
  if (!isFile(inRepo) && !isDir(inRepo)) return `${inRepo} does not exist`;
  if (!isShipped(dir, inRepo)) {
    const absolute = !isDir(inRepo)
      ? `${WEB}/${IMAGE.test(inRepo) ? 'raw' : 'blob'}/${BRANCH}/${inRepo}${anchor === undefined ? '' : `#${anchor}`}`
      : anchor === undefined
        ? `${WEB}/tree/${BRANCH}/${inRepo}`
        : `${WEB}/blob/${BRANCH}/${inRepo}/README.md#${anchor}`;
    return `${inRepo} is not in the package, so the link is broken on the registry's page and in node_modules; link to ${absolute}`;
  }
  if (isDir(inRepo) && anchor !== undefined) return checkAnchor(`${inRepo}/README.md`);
  if (isFile(inRepo) && inRepo.endsWith('.md')) return checkAnchor(inRepo);
  return undefined;
}

describe('the published packages', () => {
  it('are found: every workspace that is not private', () => {
    expect(published).toContain('specs');
    expect(published).toContain('packages/calendar');
    expect(published).not.toContain('packages/consumer-tests');
  });

  it('the root says where the repository is, once', () => {
    expect(root.repository).toEqual({ type: 'git', url: `git+${WEB}.git` });
  });

  it.each(published)('%s points at its folder of the repository, its issues and its README', (dir) => {
    const own = readJson(`${dir}/package.json`);
    expect(own.repository, `${dir}/package.json: repository`).toEqual({
      type: 'git',
      url: `git+${WEB}.git`,
      directory: dir,
    });
    expect(own.homepage, `${dir}/package.json: homepage`).toBe(`${WEB}/tree/${BRANCH}/${dir}#readme`);
    expect(own.bugs, `${dir}/package.json: bugs`).toEqual({ url: `${WEB}/issues` });
  });

  it.each(published)(
    '%s ships markdown whose every link works on the registry and in node_modules',
    (dir) => {
      const files = shippedMarkdown(dir);
      expect(files).toContain(`${dir}/README.md`);
      const broken: string[] = [];
      for (const file of files)
        for (const { line, target } of links(readFileSync(path.join(repoRoot, file), 'utf8'))) {
          const wrong = problem(dir, file, target);
          if (wrong) broken.push(`${file}:${line}: ${target}: ${wrong}`);
        }
      expect(broken).toEqual([]);
    },
  );
});

describe('the link check', () => {
  const dir = 'packages/emulator';
  const file = `${dir}/README.md`;
  it.each<[string, string, RegExp | undefined]>([
    ['a file the package ships', 'docs/refusals.md', undefined],
    ['a heading of its own README', '#strict-mode', undefined],
    ['a heading its own README lacks', '#no-such-heading', /no heading with the anchor #no-such-heading/],
    [
      'a file outside the package',
      '../../docs/benchmarks.md',
      /not in the package.*blob\/main\/docs\/benchmarks\.md$/,
    ],
    ['a folder outside the package', '../runtime', /not in the package.*tree\/main\/packages\/runtime$/],
    [
      'a heading of a folder outside',
      '../runtime#retries',
      /link to .*blob\/main\/packages\/runtime\/README\.md#retries$/,
    ],
    [
      'an image the package does not ship',
      'docs/inspector-week.png',
      /not in the package.*raw\/main\/packages\/emulator\/docs\/inspector-week\.png$/,
    ],
    ['the repository: an image', `${WEB}/raw/main/packages/emulator/docs/inspector-week.png`, undefined],
    ['a file the package does not ship', 'src/cli.ts', /not in the package/],
    ['a file that does not exist', '../../docs/nothing.md', /does not exist/],
    ['the repository: a file', `${WEB}/blob/main/docs/benchmarks.md`, undefined],
    ['the repository: a heading', `${WEB}/blob/main/packages/calendar/README.md#signing-in`, undefined],
    ['the repository: a missing heading', `${WEB}/blob/main/packages/calendar/README.md#nope`, /no heading/],
    ['the repository: a missing file', `${WEB}/blob/main/docs/decisions/9999-none.md`, /not a file/],
    ['the repository: a folder', `${WEB}/tree/main/specs/calendar`, undefined],
    ['the repository: a missing folder', `${WEB}/tree/main/specs/nothing`, /not a folder/],
    ['the repository: another branch', `${WEB}/blob/next/docs/benchmarks.md`, /branch next/],
    ['another site', 'https://developers.google.com/calendar', undefined],
  ])('%s', (_, target, wrong) => {
    const said = problem(dir, file, target);
    if (wrong) expect(said).toMatch(wrong);
    else expect(said).toBeUndefined();
  });

  it('makes GitHub anchors, numbering repeated headings', () => {
    expect(
      [...anchors('packages/emulator/README.md')].filter(
        (a) => a === 'strict-mode' || a === 'search-ads-360',
      ),
    ).toEqual(expect.arrayContaining(['strict-mode', 'search-ads-360']));
    expect(headings('# A\n```\n# not a heading\n```\n## B `code`\n')).toEqual(['A', 'B `code`']);
    expect(links('[a](x.md)\n```\n[b](y.md)\n```\n`[c](z.md)` [d](<w.md> "t")\n')).toEqual([
      { line: 1, target: 'x.md' },
      { line: 5, target: 'w.md' },
    ]);
  });
});
