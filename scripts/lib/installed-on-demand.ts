/**
 * A package a test needs on some Node lines only, installed when a test asks for it instead of
 * being a dev dependency (decision 0061). A dev dependency whose `engines` leave out a line we
 * support makes every `npm install` on that line warn EBADENGINE; installed here, it is fetched
 * only on a line it supports, once, and reused by every later run.
 *
 * - It goes into its own folder under node_modules/.cache/gspec-on-demand/ (git-ignored, outside
 *   the workspace's resolution), with `npm install --prefix`, its install scripts not run.
 * - Two test files may ask at once: each installs into a folder of its own and renames it into
 *   place; a rename is atomic, so a folder in place is always whole, and the one that loses the
 *   race drops its copy and uses the winner's.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from './apis.ts';

const run = promisify(execFile);

/** Where the installs are kept. */
export const ON_DEMAND_CACHE = path.join(repoRoot, 'node_modules', '.cache', 'gspec-on-demand');

/** A hang guard for one install, far above any real one. */
const INSTALL_WITHIN_MS = 600_000;

export interface OnDemand {
  /** The package's name, as a program imports it. */
  name: string;
  /** The exact version. */
  version: string;
  /** The lowest Node major it runs on (its `engines.node`), when that is above our floor. */
  nodeMajor?: number;
}

/** Why the package is not installed on this Node, or undefined when it is. */
export function notOnThisNode(wanted: OnDemand, nodeVersion = process.versions.node): string | undefined {
  const major = Number(nodeVersion.split('.')[0]);
  if (wanted.nodeMajor === undefined || major >= wanted.nodeMajor) return undefined;
  return `${wanted.name} ${wanted.version} needs Node ${wanted.nodeMajor} or later, and this is Node ${nodeVersion}`;
}

/** The environment of a user's shell: none of the npm_* variables of the `npm test` that runs us. */
function npmEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_|^INIT_CWD$/i.test(key)));
}

const installedVersion = (folder: string, name: string): string | undefined => {
  try {
    const manifest = path.join(folder, 'node_modules', ...name.split('/'), 'package.json');
    return (JSON.parse(readFileSync(manifest, 'utf8')) as { version?: string }).version;
  } catch {
    return undefined;
  }
};

export interface InstallOptions {
  /** The cache folder; {@link ON_DEMAND_CACHE} unless a test of this module says otherwise. */
  cache?: string;
  /** What npm installs; `name@version` unless a test of this module gives a tarball. */
  source?: string;
}

/**
 * The folder whose node_modules holds `name` at `version`: installed on the first call, the
 * same folder on every later one, whichever process asks.
 */
export async function installOnDemand(wanted: OnDemand, options: InstallOptions = {}): Promise<string> {
  const cache = options.cache ?? ON_DEMAND_CACHE;
  const folder = path.join(cache, `${wanted.name.replace('/', '+')}@${wanted.version}`);
  if (installedVersion(folder, wanted.name) === wanted.version) return folder;
  mkdirSync(cache, { recursive: true });
  const own = mkdtempSync(`${folder}.installing-`);
  const source = options.source ?? `${wanted.name}@${wanted.version}`;
  try {
    await run(
      'npm',
      [
        'install',
        '--prefix',
        own,
        '--no-save',
        '--no-package-lock',
        '--ignore-scripts',
        '--no-audit',
        '--no-fund',
        '--loglevel=error',
        source,
      ],
      { cwd: own, env: npmEnv(), timeout: INSTALL_WITHIN_MS, maxBuffer: 16 << 20 },
    );
  } catch (error) {
    rmSync(own, { recursive: true, force: true });
    const { stderr, message } = error as { stderr?: string; message: string };
    throw new Error(
      `npm install ${source} into ${own} failed: ${(stderr || message).trim()}\n` +
        `A test needs ${wanted.name} ${wanted.version}; check that npm reaches its registry (proxy, CA) and run the test again.`,
    );
  }
  if (installedVersion(own, wanted.name) !== wanted.version) {
    const found = installedVersion(own, wanted.name);
    rmSync(own, { recursive: true, force: true });
    throw new Error(
      `npm install ${source} installed ${found === undefined ? 'no' : `version ${found} of`} ${wanted.name}, not ${wanted.version}`,
    );
  }
  try {
    renameSync(own, folder);
  } catch (error) {
    // Another process put its copy in place first (ENOTEMPTY, EEXIST, or EPERM on Windows).
    rmSync(own, { recursive: true, force: true });
    if (installedVersion(folder, wanted.name) !== wanted.version) throw error;
  }
  return folder;
}

/** `require(name)` from the folder {@link installOnDemand} gave. */
export function requireFrom<T>(folder: string, name: string): T {
  if (!existsSync(path.join(folder, 'node_modules', ...name.split('/'))))
    throw new Error(`${name} is not installed in ${folder}`);
  return createRequire(path.join(folder, 'index.js'))(name) as T;
}
