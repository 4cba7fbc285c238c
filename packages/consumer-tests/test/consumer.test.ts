/**
 * The packages as a user meets them. Every published package of the workspace is packed with
 * `npm pack`; the tarballs are installed into a fresh project in the system's temporary folder
 * (no workspace link, no path into this repository) with the tools a user's project has, as
 * npm installs them today (no version: the newest whose engines allow this Node line, so
 * googleapis brings its own google-auth-library beside the project's), plus the oldest
 * TypeScript we support (5.8, decision 0062) under another name; the versions are printed. And
 * there:
 *
 * - the newest TypeScript (the native compiler, `tsc` of the package `typescript`) and 5.8
 *   each type-check the whole project with `--strict` and `skipLibCheck: false`, beside the
 *   tests (on the other Node lines of decision 0051 they do not run at all); the programs are
 *   built file by file with 5.8's API first;
 * - a program using both clients (project/src/app.ts) runs against `npx gspec-emulator
 *   --port 0` and against `npx gspec-mock --port 0`;
 * - every ```ts / ```js block of a published package's README is type-checked, or marked as a
 *   fragment with its reason (a guard names any other by README and line): the blocks of each
 *   README and prefix make one program (README_PROGRAMS) that runs against the emulator, the
 *   mock or alone; the sign-in blocks, which need Google, are only type-checked;
 * - other README examples run as printed, taken from their blocks marked
 *   `<!-- consumer-test: NAME -->`: the mock's (Google's client against it, its programmatic
 *   use, its fault file) and the emulator's (its CI commands: started in the background with a
 *   seed, health waited for with curl; --persist; strict mode; the sign-in with
 *   google-auth-library for googleapis and for our client; its vitest global setup, config and
 *   test, which vitest runs in the project);
 * - `@gspec/specs` is imported and each of its documents validated as OpenAPI 3.1;
 * - both commands answer `--help` and refuse a mistake with one line and status 1;
 * - the guide "Checking against the live service", with the emulator standing in for Google:
 *   the program through `gspec-mock --proxy` (recorded, reported), the recording replayed
 *   (`--replay`), an emulator seeded from it (`--seed-from`), and `gspec-specs drift`.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { type ChildRun, freePort, startProcess, stopAll } from '@gspec/scripts/child-process';
import { onAnotherNodeLine } from '@gspec/scripts/node-lines';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  blocksRead,
  composeProgram,
  programNames,
  readmeBlock,
  readmeBlocks,
  unmarkedPrograms,
} from './support/readme.ts';

const exec = promisify(execFile);
const here = import.meta.dirname;
const repoRoot = path.resolve(here, '../../..');

/** What the workspace publishes; a package made public or private must be added or taken off here. */
const PUBLISHED = [
  '@gspec/calendar',
  '@gspec/emulator',
  '@gspec/mock',
  '@gspec/runtime',
  '@gspec/searchads360',
  '@gspec/server-kit',
  '@gspec/specs',
];

/**
 * The tools of a user's project as `npm install NAME` gives them today: no version, so npm
 * picks the newest whose engines allow the running Node line (on Node 20, googleapis 178 and
 * google-auth-library 10; on Node 22 and 24, the newest of both). googleapis pins its own
 * google-auth-library, so a project usually holds two copies of it, as here.
 */
const TOOLS = ['typescript', '@types/node', 'vitest', 'googleapis', 'google-auth-library'];

/**
 * The oldest TypeScript we support (decision 0062), installed beside the newest under another
 * name: its compiler checks the project too, and its API builds the programs (the newest, the
 * native compiler, has no JS API to transpile with).
 */
const OLDEST_TYPESCRIPT = { alias: 'typescript-oldest', range: '~5.8' };

/** A tool of this test's own programs, at the version the workspace uses. */
const VALIDATOR = '@seriousme/openapi-schema-validator';

interface Packed {
  name: string;
  file: string;
  size: number;
  files: string[];
}

/** The environment of a user's shell: none of the npm_* variables `npm test` set for this run. */
function userEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(npm_|INIT_CWD$|PORT$|GSPEC_MOCK_SPECS$)/i.test(key)) continue;
    env[key] = value;
  }
  return env;
}

/**
 * Ends every command of the set-up still running when the file ends: a set-up cut off by its
 * hang guard must not leave npm installing after the test run.
 */
const setUp = new AbortController();

/** Runs a command to its end: its exit code and output, and a report of all of it for errors. */
async function attempt(command: string, args: string[], cwd: string) {
  let result: { code: number; stdout: string; stderr: string };
  try {
    result = {
      code: 0,
      ...(await exec(command, args, { cwd, env: userEnv(), maxBuffer: 64 << 20, signal: setUp.signal })),
    };
  } catch (error) {
    const { code, stdout, stderr } = error as { code?: number | string; stdout?: string; stderr?: string };
    result = {
      code: typeof code === 'number' ? code : -1,
      stdout: stdout ?? '',
      stderr: stderr ?? String(error),
    };
  }
  const report = `${command} ${args.join(' ')} in ${cwd} exited ${result.code}:\n${result.stdout}\n${result.stderr}`;
  return { ...result, report };
}

/** Runs a command that must succeed; its output. */
async function run(command: string, args: string[], cwd: string) {
  const result = await attempt(command, args, cwd);
  if (result.code !== 0) throw new Error(result.report);
  return result;
}

function workspacePackages(): { name: string; dir: string; private: boolean }[] {
  const root = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
    workspaces: string[];
  };
  const dirs = root.workspaces.flatMap((pattern) =>
    pattern.endsWith('/*')
      ? readdirSync(path.join(repoRoot, pattern.slice(0, -2))).map((d) => path.join(pattern.slice(0, -2), d))
      : [pattern],
  );
  return dirs.flatMap((dir) => {
    try {
      const pkg = JSON.parse(readFileSync(path.join(repoRoot, dir, 'package.json'), 'utf8'));
      return [{ name: pkg.name as string, dir: path.join(repoRoot, dir), private: pkg.private === true }];
    } catch {
      return [];
    }
  });
}

function workspaceVersion(name: string): string {
  const file = path.join(repoRoot, 'node_modules', name, 'package.json');
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

/** The version of a package installed in the project (`googleapis/node_modules/x` for a copy of its own), or undefined. */
function installedVersion(name: string): string | undefined {
  try {
    const file = path.join(project, 'node_modules', name, 'package.json');
    return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
  } catch {
    return undefined;
  }
}

/** What a command printed on stderr, without the warnings npm itself prints about its configuration. */
const ownErrors = (run: ChildRun) =>
  run
    .output()
    .err.split('\n')
    .filter((line) => !line.startsWith('npm warn '))
    .join('\n');

/**
 * Stops what `npx` started as a user's tooling does (SIGTERM to npx) and waits until the server
 * behind it no longer answers: npm does not pass the signal on, so the server must notice.
 */
async function stopServer(run: ChildRun, origin: string): Promise<void> {
  await run.stop();
  await gone(origin);
}

/** Resolves once nothing listens at `origin` (no time limit but the test's). */
async function gone(origin: string): Promise<void> {
  for (;;) {
    try {
      await fetch(origin, { signal: AbortSignal.timeout(5000) });
    } catch (error) {
      if ((error as { cause?: { code?: string } }).cause?.code === 'ECONNREFUSED') return;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * The one command of a README's marked shell block, `npx <bin> ...`, started in the project
 * as a user runs it (the files it names written there first), on a free port.
 */
function npxFromReadme(readme: string, name: string, bin: string): ChildRun {
  const line = readmeBlock(path.join(repoRoot, readme), name).trim();
  const words = line.split(/\s+/);
  if (words[0] !== 'npx' || words[1] !== bin || line.includes('\n'))
    throw new Error(`${readme} ${name}: expected one line "npx ${bin} ...", found ${JSON.stringify(line)}`);
  return npx(bin, [...words.slice(2), '--port', '0']);
}

/** A README's marked block written as a file of the project, as the user saves it. */
function writeReadmeFile(readme: string, name: string, file: string): void {
  writeFileSync(path.join(project, file), readmeBlock(path.join(repoRoot, readme), name));
}

/** Every file and link under `dir`, as paths relative to it. */
async function walk(dir: string, base = dir): Promise<{ file: string; link: boolean }[]> {
  const found: { file: string; link: boolean }[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) found.push(...(await walk(full, base)));
    else found.push({ file: path.relative(base, full), link: (await lstat(full)).isSymbolicLink() });
  }
  return found;
}

/**
 * What the clients' README examples take as given, in a user's program against the server
 * whose origin is its first argument: a client, an event made before, a store for a sync.
 */
/**
 * The examples that name no `baseUrl` talk to Google: in the programs, a request to a Google
 * host goes to the server whose origin is the program's first argument, path and query kept.
 */
const GOOGLE_IS_THE_SERVER = `const server = process.argv[2] ?? '';
const googleFetch = globalThis.fetch;
globalThis.fetch = ((input: string | URL | Request, init?: RequestInit) => {
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  const local = url.replace(/^https:\\/\\/[a-z0-9.-]*\\.googleapis\\.com/, server);
  if (local === url) return googleFetch(input, init);
  return googleFetch(input instanceof Request ? new Request(local, input) : local, init);
}) as typeof fetch;`;

const README_PRELUDES = {
  calendar: `import { createCalendar, type Event } from '@gspec/calendar';
${GOOGLE_IS_THE_SERVER}
const accessToken = 'readme@example.com';
const cachedToken = async () => accessToken;
const refreshToken = async () => accessToken;
const baseUrl = \`\${process.argv[2]}/calendar/v3\`;
const calendar = createCalendar({ accessToken, baseUrl });
const created = await calendar.events.insert({
  calendarId: 'primary',
  summary: 'Made before',
  start: { dateTime: '2026-12-02T09:00:00Z' },
  end: { dateTime: '2026-12-02T10:00:00Z' },
});
const eventId = created.id ?? '';
const kept: Event[] = [];
let token: string | undefined;
const store = {
  loadToken: async () => token,
  saveToken: async (next: string | undefined) => { token = next; },
  clear: () => { kept.length = 0; },
  apply: (events: Event[]) => { kept.push(...events); },
};`,
  searchads360: `import { type ConversionInput, createSearchAds360 } from '@gspec/searchads360';
${GOOGLE_IS_THE_SERVER}
process.env.GOOGLE_ACCESS_TOKEN ??= 'readme@example.com';
const searchAds = createSearchAds360({ accessToken: 'readme@example.com', baseUrl: \`\${process.argv[2]}/doubleclicksearch/v2\` });
const conversions: ConversionInput[] = Array.from({ length: 450 }, (_, i) => ({
  agencyId: '20100000000000895',
  advertiserId: '21700000000011523',
  clickId: 'COiYmPDTv7kCFcP0KgodOzQAAA',
  conversionId: \`readme-\${i}\`,
  conversionTimestamp: String(1799143200000 + i),
  segmentationType: 'FLOODLIGHT',
  segmentationName: 'Online purchase',
  type: 'TRANSACTION',
  revenueMicros: '1000000',
  currencyCode: 'EUR',
}));`,
  runtime: `${GOOGLE_IS_THE_SERVER}
const accessToken = 'readme@example.com';`,
  specs: `/** A code generator that takes a spec's file, as the README's example has one. */
const someGenerator = (options: { input: string }) => console.log(options.input);`,
} as const;

/**
 * Where a README's examples become one program each: the blocks of `readme` marked
 * `<!-- consumer-test: PREFIX... -->` in order, after a prelude with what they take as given,
 * the address `http://127.0.0.1:4011` (the emulator's) or `:4010` (the mock's) replaced with
 * the server's origin. `server` is what the program runs against (none: it runs alone; the
 * sign-in examples, which need Google, are type-checked only). `after` adds a check at the end
 * of a block's scope.
 */
const README_PROGRAMS: {
  file: string;
  readme: string;
  prefix: string;
  prelude: string;
  server: 'emulator' | 'mock' | 'none' | 'type-check only';
  after?: Record<string, string>;
}[] = [
  {
    file: 'readme-calendar',
    readme: 'packages/calendar/README.md',
    prefix: 'calendar-',
    prelude: README_PRELUDES.calendar,
    server: 'emulator',
  },
  {
    file: 'readme-searchads360',
    readme: 'packages/searchads360/README.md',
    prefix: 'searchads360-',
    prelude: README_PRELUDES.searchads360,
    server: 'emulator',
  },
  {
    file: 'readme-runtime',
    readme: 'packages/runtime/README.md',
    prefix: 'runtime-',
    prelude: README_PRELUDES.runtime,
    server: 'emulator',
  },
  {
    file: 'readme-emulator',
    readme: 'packages/emulator/README.md',
    prefix: 'emulator-',
    prelude: '',
    server: 'emulator',
    after: {
      'emulator-googleapis': `const { data } = await calendar.calendarList.list();
if (data.kind !== 'calendar#calendarList') throw new Error(JSON.stringify(data));`,
      'emulator-calendar': 'await client.calendarList.list();',
    },
  },
  {
    file: 'readme-mock',
    readme: 'packages/mock/README.md',
    prefix: 'mock-',
    prelude: '',
    server: 'mock',
    after: { 'mock-calendar': 'await calendar.calendarList.list();' },
  },
  {
    file: 'readme-specs',
    readme: 'specs/README.md',
    prefix: 'specs-',
    prelude: README_PRELUDES.specs,
    server: 'none',
  },
  {
    file: 'readme-server-kit',
    readme: 'packages/server-kit/README.md',
    prefix: 'server-kit-',
    prelude: '',
    server: 'none',
  },
  {
    file: 'readme-auth-calendar',
    readme: 'packages/calendar/README.md',
    prefix: 'auth-',
    prelude: '',
    server: 'type-check only',
  },
  {
    file: 'readme-auth-searchads360',
    readme: 'packages/searchads360/README.md',
    prefix: 'auth-',
    prelude: '',
    server: 'type-check only',
  },
];

/** What the emulator's google-auth examples print: the events each read, as Ana. */
const GOOGLE_AUTH_CHECKS: Record<string, string> = {
  'google-auth': 'console.log(JSON.stringify({ googleapis: data.items?.length }));',
  'google-auth-ours': 'console.log(JSON.stringify({ ours: page.items?.length }));',
};

/** A README's addresses of the emulator (4011) and the mock (4010) as the program's first argument. */
const atServer = (code: string) =>
  code.replace(
    /'http:\/\/127\.0\.0\.1:401[01](\/[^'\n]*)?'/g,
    (_all, rest: string | undefined) => `\`\${process.argv[2]}${rest ?? ''}\``,
  );

/**
 * The READMEs whose program blocks (```ts, ```js, ...) must each be type-checked here or
 * marked as a fragment with its reason: those of the published packages, and the repository's.
 */
const README_FILES = [
  ...workspacePackages()
    .filter((p) => !p.private)
    .map((p) => path.relative(repoRoot, path.join(p.dir, 'README.md')).split(path.sep).join('/')),
  'README.md',
];

/**
 * The hang guard of the set-up: packing seven packages and installing them with their
 * dependencies takes about a minute on an idle 2-core machine, several on a busy one.
 */
const INSTALL_GUARD_MS = 20 * 60_000;

let temp: string;
/**
 * The project's type checks, by the newest TypeScript and by the oldest we support, run beside
 * the tests (they run what transpileSources built). On the other Node lines (decision 0051)
 * they are not run: tsc is the same program on every line, and the newest line runs it.
 */
const typechecks: Record<'newest' | 'oldest', Promise<{ code: number; report: string }> | undefined> = {
  newest: undefined,
  oldest: undefined,
};
/** What npm installed, `name version` each, as the test prints it. */
const installed: string[] = [];
const anotherNodeLine = onAnotherNodeLine();
let project: string;
const packed: Packed[] = [];
const started: ChildRun[] = [];

/**
 * Each program of the project's src/ written to dist/src/ as tsc writes it with the project's
 * settings (ES2022 modules, the import paths as written), one file at a time by the API of the
 * oldest TypeScript installed (the newest has none): what tsc emits for these files needs no
 * type information.
 */
function transpileSources(): void {
  const ts = createRequire(path.join(project, 'package.json'))(
    OLDEST_TYPESCRIPT.alias,
  ) as typeof import('typescript');
  const out = path.join(project, 'dist', 'src');
  mkdirSync(out, { recursive: true });
  for (const file of readdirSync(path.join(project, 'src')).filter((f) => f.endsWith('.ts'))) {
    const { outputText, diagnostics } = ts.transpileModule(
      readFileSync(path.join(project, 'src', file), 'utf8'),
      {
        fileName: file,
        reportDiagnostics: true,
        compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ES2022 },
      },
    );
    if (diagnostics && diagnostics.length > 0)
      throw new Error(`src/${file}: ${ts.flattenDiagnosticMessageText(diagnostics[0]?.messageText, '\n')}`);
    writeFileSync(path.join(out, file.replace(/\.ts$/, '.js')), outputText);
  }
}

/** `npx <bin> args` in the project, as a user starts it; stopped after the file. */
function npx(bin: string, args: string[]): ChildRun {
  const child = startProcess(`npx ${bin} ${args.join(' ')}`, ['--no-install', bin, ...args], {
    command: 'npx',
    cwd: project,
    env: userEnv(),
  });
  started.push(child);
  return child;
}

beforeAll(async () => {
  temp = mkdtempSync(path.join(os.tmpdir(), 'gspec-consumer-'));
  const tarballs = path.join(temp, 'tarballs');
  project = path.join(temp, 'project');
  mkdirSync(tarballs);
  // Packed side by side: each `npm pack` is mostly npm starting up.
  const packing = workspacePackages()
    .filter((p) => !p.private)
    .map(async (pkg): Promise<Packed> => {
      const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', tarballs], pkg.dir);
      const [info] = JSON.parse(stdout) as { filename: string; size: number; files: { path: string }[] }[];
      if (!info) throw new Error(`npm pack printed nothing for ${pkg.name}`);
      return {
        name: pkg.name,
        file: path.join(tarballs, info.filename),
        size: info.size,
        files: info.files.map((f) => f.path),
      };
    });
  packed.push(...(await Promise.all(packing)));
  cpSync(path.join(here, '../project'), project, { recursive: true });
  // The emulator's vitest set-up, its config and a test, as its README prints them.
  for (const [name, file] of [
    ['global-setup', 'test/emulator-setup.ts'],
    ['vitest-config', 'vitest.config.ts'],
    ['vitest-test', 'test/calendar.test.ts'],
  ] as const)
    writeReadmeFile('packages/emulator/README.md', name, file);
  // Our packages come from the tarballs only. `overrides` points every dependency on one of
  // them (the mock's on @gspec/specs, ...) at its tarball too: not yet published, they would
  // otherwise be looked up in the registry first.
  const tarballOf = Object.fromEntries(
    packed.map((p) => [p.name, `file:${path.relative(project, p.file).split(path.sep).join('/')}`]),
  );
  writeFileSync(
    path.join(project, 'package.json'),
    `${JSON.stringify({ name: 'a-users-project', private: true, type: 'module', overrides: tarballOf }, null, 2)}\n`,
  );
  await run(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      // No --prefer-offline: npm asks the registry what is newest, as a user's install does.
      // A request the registry leaves hanging is given up after a minute instead of npm's five.
      '--fetch-timeout=60000',
      ...Object.values(tarballOf),
      ...TOOLS,
      `${OLDEST_TYPESCRIPT.alias}@npm:typescript@${OLDEST_TYPESCRIPT.range}`,
      `${VALIDATOR}@${workspaceVersion(VALIDATOR)}`,
    ],
    project,
  );
  for (const name of [...TOOLS, OLDEST_TYPESCRIPT.alias]) installed.push(`${name} ${installedVersion(name)}`);
  // googleapis' own copies of google-auth-library, where npm put them.
  for (const name of ['googleapis', 'googleapis-common'].map(
    (p) => `${p}/node_modules/google-auth-library`,
  )) {
    const version = installedVersion(name);
    if (version) installed.push(`${name} ${version}`);
  }
  console.log(`installed on Node ${process.versions.node}:\n  ${installed.join('\n  ')}`);
  // The README examples, one program per README and prefix (type-checked with the rest).
  for (const program of README_PROGRAMS) {
    const blocks = readmeBlocks(path.join(repoRoot, program.readme), program.prefix).map((block) => ({
      ...block,
      code: program.server === 'type-check only' ? block.code : atServer(block.code),
      ...(program.after?.[block.name] ? { after: program.after[block.name] } : {}),
    }));
    if (blocks.length === 0) throw new Error(`${program.readme} has no ${program.prefix} examples`);
    writeFileSync(
      path.join(project, `src/${program.file}.ts`),
      `${composeProgram(program.prelude, blocks)}\nconsole.log(${JSON.stringify(blocks.map((b) => b.name))}.join(' '));\n`,
    );
  }
  // The mock's examples that run as printed: Google's client, and its programmatic use.
  writeFileSync(
    path.join(project, 'src/readme-mock-googleapis.ts'),
    `${atServer(readmeBlock(path.join(repoRoot, 'packages/mock/README.md'), 'googleapis'))}\nconsole.log(JSON.stringify({ items: data.items?.length, csv: typeof csv.data }));\n`,
  );
  writeReadmeFile('packages/mock/README.md', 'programmatic', 'src/readme-mock-programmatic.ts');
  // The emulator's google-auth examples (googleapis, then our client), at the origin the test
  // gives them; each prints what it read.
  writeFileSync(
    path.join(project, 'src/readme-google-auth.ts'),
    composeProgram(
      '',
      ['google-auth', 'google-auth-ours'].map((name) => ({
        name,
        code: atServer(readmeBlock(path.join(repoRoot, 'packages/emulator/README.md'), name)),
        after: GOOGLE_AUTH_CHECKS[name],
      })),
    ),
  );
  // The programs are built file by file, so that the tests can start at once; the project's
  // type check (tsc, which reads every declaration of googleapis: most of a minute) runs beside
  // them, and the first test below waits for it.
  transpileSources();
  if (!anotherNodeLine) {
    // The newest as a user runs it (`npx tsc`: the bin of the package `typescript`), the
    // oldest by its own bin.
    typechecks.newest = attempt('node', ['node_modules/typescript/bin/tsc', '-p', '.', '--noEmit'], project);
    typechecks.oldest = attempt(
      'node',
      [`node_modules/${OLDEST_TYPESCRIPT.alias}/bin/tsc`, '-p', '.', '--noEmit'],
      project,
    );
  }
}, INSTALL_GUARD_MS);

afterAll(async () => {
  setUp.abort();
  await Promise.all(started.map((child) => child.stop()));
  await stopAll();
  if (temp) rmSync(temp, { recursive: true, force: true });
});

/** The documents a package ships besides its README, which its README links to. */
const SHIPPED_DOCS: Record<string, string[]> = {
  // The refusal table (decision 0054).
  '@gspec/emulator': ['docs/refusals.md'],
};

describe('every README example', () => {
  it.each(README_FILES)(
    '%s: each program block is type-checked here, or marked a fragment with its reason',
    (readme) => {
      expect(unmarkedPrograms(path.join(repoRoot, readme), readme)).toEqual([]);
    },
  );

  it.each(README_FILES)('%s: each program block marked with a name is one this test reads', (readme) => {
    const file = path.join(repoRoot, readme);
    const unread = programNames(file).filter((name) => !blocksRead.has(`${file}#${name}`));
    expect(unread, `${readme}: blocks marked but in no program of test/consumer.test.ts`).toEqual([]);
  });
});

describe('the tarballs', () => {
  it('are every published package, each with what runs and nothing else', () => {
    expect(packed.map((p) => p.name).sort()).toEqual(PUBLISHED);
    const sizes = packed.map((p) => `${p.name} ${(p.size / 1024).toFixed(1)} KiB (${p.files.length} files)`);
    console.log(`packed:\n  ${sizes.join('\n  ')}`);
    for (const p of packed) {
      expect(p.files, p.name).toEqual(expect.arrayContaining(['package.json', 'README.md', 'LICENSE']));
      const extra = p.files.filter(
        (f) =>
          !['package.json', 'README.md', 'LICENSE', ...(SHIPPED_DOCS[p.name] ?? [])].includes(f) &&
          !f.startsWith('dist/'),
      );
      expect(extra, `${p.name}: files outside dist/`).toEqual([]);
      expect(
        p.files.filter((f) => /\.(map|tsbuildinfo)$|\.test\.|(^|\/)test\//.test(f)),
        `${p.name}: maps or tests`,
      ).toEqual([]);
    }
  });

  it('install as files: no link into the workspace, no path of this repository', async () => {
    const installed = await walk(path.join(project, 'node_modules', '@gspec'));
    expect(installed.filter((f) => f.link)).toEqual([]);
    expect(installed.length).toBeGreaterThan(0);
    const lock = readFileSync(path.join(project, 'package-lock.json'), 'utf8');
    expect(lock).not.toContain(repoRoot);
    expect(path.relative(repoRoot, project).startsWith('..')).toBe(true);
  });
});

// Each test of this group starts servers of its own and writes no file: they run side by side.
describe.concurrent('the program with both clients', () => {
  it.skipIf(anotherNodeLine).each(['newest', 'oldest'] as const)(
    'type-checks with tsc --strict of the %s TypeScript, with the declarations of every package checked too',
    async (which) => {
      const result = await typechecks[which];
      expect(result?.code, result?.report).toBe(0);
    },
  );

  it('runs against npx gspec-emulator --port 0', async () => {
    const emulator = npx('gspec-emulator', ['--port', '0']);
    const origin = await emulator.ready;
    expect(emulator.output().out).toContain(`${origin}/calendar/v3`);
    expect(emulator.output().out).toContain(`${origin}/doubleclicksearch/v2`);
    const { stdout } = await run('node', ['dist/src/app.js', origin], project);
    expect(JSON.parse(stdout)).toEqual({
      calendar: 'Release planning',
      event: { id: expect.any(String), start: '2027-01-05T10:00:00+01:00' },
      listed: ['Release review'],
      missing: '404 notFound',
      batched: ['ok Batched', '404 notFound'],
      conversions: ['order-2027-01-05-000001'],
      savedColumns: 'doubleclicksearch#savedColumnList',
      mappingRows: expect.any(Number),
    });
    // The inspector from the tarball: its page, its script, and every module each API's page
    // loads (a module left out of the package would leave that tab blank).
    const page = `${origin}/__emulator/ui/`;
    const html = await (await fetch(page)).text();
    const app = new URL(/<script type="module" src="([^"]+)"/.exec(html)?.[1] ?? 'missing', page);
    const modules = [app.href];
    for (const name of ['calendar', 'searchads360']) {
      const entry = new URL(`../apis/${name}/inspector-page.js`, app);
      const text = await (await fetch(entry)).text();
      modules.push(
        entry.href,
        ...[...text.matchAll(/from '(\.\/inspector-[a-z-]+\.js)'/g)].map(
          (m) => new URL(m[1] as string, entry).href,
        ),
      );
    }
    expect(modules.length).toBeGreaterThan(4);
    for (const module of modules) expect((await fetch(module)).status, module).toBe(200);
    await stopServer(emulator, origin);
  });

  it.each(
    README_PROGRAMS.filter((p) => p.server !== 'type-check only').map(
      (p) => [p.readme, p.prefix, p.server, p] as const,
    ),
  )('%s: the examples %s* type-check and run (server: %s)', async (_readme, _prefix, _server, program) => {
    // Every block the README marks with the prefix, in order: a block added is run too.
    const names = readmeBlocks(path.join(repoRoot, program.readme), program.prefix).map((b) => b.name);
    let origin = '';
    let server: ChildRun | undefined;
    if (program.server !== 'none') {
      server = npx(`gspec-${program.server}`, ['--port', '0']);
      origin = await server.ready;
    }
    const { stdout } = await run('node', [`dist/src/${program.file}.js`, origin], project);
    expect(stdout.trim().split('\n').at(-1)).toBe(names.join(' '));
    if (server) await stopServer(server, origin);
  });

  it('runs against npx gspec-mock --port 0, which answers from the examples', async () => {
    const mock = npx('gspec-mock', ['--port', '0']);
    const origin = await mock.ready;
    const { stdout } = await run('node', ['dist/src/app.js', origin], project);
    const answers = JSON.parse(stdout) as { listed: unknown[]; conversions: unknown[]; batched: string[] };
    expect(answers.listed.length).toBeGreaterThan(0);
    // The batch's calls answered from the examples, each in its own part.
    expect(answers.batched).toEqual([expect.stringMatching(/^ok /), expect.stringMatching(/^ok /)]);
    expect(answers.conversions.length).toBeGreaterThan(0);
    await stopServer(mock, origin);
  });
});

describe('the README examples', () => {
  it("the mock's: Google's client with only rootUrl changed", async () => {
    const mock = npx('gspec-mock', ['--port', '0']);
    const origin = await mock.ready;
    const { stdout } = await run('node', ['dist/src/readme-mock-googleapis.js', origin], project);
    expect(JSON.parse(stdout)).toEqual({ items: expect.any(Number), csv: 'string' });
    await stopServer(mock, origin);
  });

  it("the mock's programmatic use: a gateway with a fault sequence", async () => {
    const { stdout } = await run('node', ['dist/src/readme-mock-programmatic.js'], project);
    expect(stdout.trim()).toBe('503 200');
  });

  it("the emulator's CI steps: started in the background with a seed, health waited for", async () => {
    const port = String(await freePort());
    const commands = readmeBlock(path.join(repoRoot, 'packages/emulator/README.md'), 'ci').replaceAll(
      '4011',
      port,
    );
    writeFileSync(
      path.join(project, 'test/emulator-seed.json'),
      JSON.stringify({
        users: [{ email: 'ci@example.com', tokens: ['ci-token'] }],
        calendars: [{ id: 'primary', owner: 'ci@example.com' }],
      }),
    );
    // The README's lines, then what a CI job's tests would do, then the job's end.
    const script = `${commands}\ncurl --silent --fail -H 'Authorization: Bearer ci-token' http://127.0.0.1:${port}/calendar/v3/users/me/calendarList\nkill %1\nwait\n`;
    writeFileSync(path.join(project, 'ci.sh'), script);
    const { stdout } = await run('bash', ['-e', 'ci.sh'], project);
    expect(stdout).toContain('"status":"ok"'); // the health answer the wait ended on
    expect(stdout).toContain('calendar#calendarList');
    // `kill %1` stopped npx, and the emulator with it.
    await gone(`http://127.0.0.1:${port}`);
  });

  it("the mock's fault file, given with --faults, plays its sequences", async () => {
    writeReadmeFile('packages/mock/README.md', 'faults-file', 'faults.json');
    const mock = npxFromReadme('packages/mock/README.md', 'faults', 'gspec-mock');
    const origin = await mock.ready;
    const auth = { authorization: 'Bearer t' };
    const list = () => fetch(`${origin}/calendar/v3/calendars/primary/events`, { headers: auth });
    const first = await list();
    expect([first.status, first.headers.get('retry-after')]).toEqual([503, '2']);
    expect([(await list()).status, (await list()).status]).toEqual([503, 200]);
    const insert = await fetch(`${origin}/calendar/v3/calendars/primary/events`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ start: { date: '2027-01-04' }, end: { date: '2027-01-05' } }),
    });
    const refused = (await insert.json()) as { error: { code: number; errors: { reason: string }[] } };
    expect([refused.error.code, refused.error.errors[0]?.reason]).toEqual([403, 'rateLimitExceeded']);
    await stopServer(mock, origin);
  });

  it("the README's files name the JSON Schemas the packages ship, and are valid against them, as an editor checks them", async () => {
    for (const [readme, block, file] of [
      ['packages/emulator/README.md', 'seed-file', 'seed.json'],
      ['packages/emulator/README.md', 'strict-users', 'users.json'],
      ['packages/mock/README.md', 'faults-file', 'faults.json'],
    ] as const) {
      writeReadmeFile(readme, block, file);
      const value = JSON.parse(readFileSync(path.join(project, file), 'utf8')) as { $schema: string };
      // The path as an editor resolves it: from the file, into the installed package.
      const schema = JSON.parse(readFileSync(path.resolve(project, value.$schema), 'utf8'));
      const validate = new Ajv2020({ strict: false, allErrors: true, validateFormats: false }).compile(
        schema,
      );
      expect([file, validate(value), validate.errors ?? []]).toEqual([file, true, []]);
      // An editor would flag a mistake: an unknown field.
      expect(validate({ ...value, unknownField: true })).toBe(false);
    }
  });

  it("the emulator's --persist: what was written is there after a restart", async () => {
    // The README's seed file (users with their tokens, calendars and events).
    writeReadmeFile('packages/emulator/README.md', 'seed-file', 'seed.json');
    const auth = { authorization: 'Bearer token-ana', 'content-type': 'application/json' };
    const first = npxFromReadme('packages/emulator/README.md', 'persist', 'gspec-emulator');
    let origin = await first.ready;
    const created = await fetch(`${origin}/calendar/v3/calendars/primary/events`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ summary: 'Kept', start: { date: '2027-01-04' }, end: { date: '2027-01-05' } }),
    });
    const event = (await created.json()) as { id: string; etag: string };
    await stopServer(first, origin);
    const second = npxFromReadme('packages/emulator/README.md', 'persist', 'gspec-emulator');
    origin = await second.ready;
    expect(second.output().out).toContain('State restored from emulator-state.db');
    const read = await fetch(`${origin}/calendar/v3/calendars/primary/events/${event.id}`, { headers: auth });
    expect(await read.json()).toMatchObject({ id: event.id, etag: event.etag, summary: 'Kept' });
    await stopServer(second, origin);
  });

  it("the emulator's strict mode with the README's users file", async () => {
    writeReadmeFile('packages/emulator/README.md', 'strict-users', 'users.json');
    const emulator = npxFromReadme('packages/emulator/README.md', 'strict', 'gspec-emulator');
    const origin = await emulator.ready;
    const list = (token: string) =>
      fetch(`${origin}/calendar/v3/users/me/calendarList`, { headers: { authorization: `Bearer ${token}` } });
    expect([(await list('token-ana')).status, (await list('nobody')).status]).toEqual([200, 401]);
    const write = await fetch(`${origin}/calendar/v3/calendars`, {
      method: 'POST',
      headers: { authorization: 'Bearer token-ana-read', 'content-type': 'application/json' },
      body: JSON.stringify({ summary: 'Team' }),
    });
    expect(write.status).toBe(403);
    await stopServer(emulator, origin);
  });

  it("the emulator's sign-in: the README's credentials commands, then googleapis and our client on google-auth-library through @gspec/emulator/google-auth", async () => {
    const commands = readmeBlock(path.join(repoRoot, 'packages/emulator/README.md'), 'credentials')
      .replaceAll('\\\n', ' ')
      .split('\n')
      .map((line) => line.trim().split(/\s+/));
    expect(commands.map((words) => words.slice(1, 3).join(' '))).toEqual([
      'gspec-emulator credentials',
      'gspec-emulator credentials',
      'gspec-emulator --seed',
    ]);
    for (const words of commands.slice(0, 2)) await run('npx', ['--no-install', ...words.slice(1)], project);
    const emulator = npx('gspec-emulator', [...(commands[2] as string[]).slice(2), '--port', '0']);
    const origin = await emulator.ready;
    expect(emulator.output().out).toContain('(1 service account, 1 OAuth client, 1 refresh token)');
    const { stdout } = await run(
      'env',
      [
        'GOOGLE_APPLICATION_CREDENTIALS=key.json',
        'METADATA_SERVER_DETECTION=none',
        'node',
        'dist/src/readme-google-auth.js',
        origin,
      ],
      project,
    );
    // Ana's events, read by googleapis and by our client, each with a token the emulator issued
    // to the service account acting as her.
    expect(
      stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).toEqual([{ googleapis: expect.any(Number) }, { ours: expect.any(Number) }]);
    // In strict mode only a token from the token endpoint gets in: the program really signed in.
    const anyToken = await fetch(`${origin}/calendar/v3/users/me/calendarList`, {
      headers: { authorization: 'Bearer ana@example.com' },
    });
    expect(anyToken.status).toBe(401);
    await stopServer(emulator, origin);
  });

  it('@gspec/specs: every document validates as OpenAPI 3.1', async () => {
    const { stdout } = await run('node', ['dist/src/specs.js'], project);
    const results = JSON.parse(stdout) as Record<string, { valid: boolean; version: string }>;
    expect(Object.keys(results)).toEqual(
      ['calendar', 'searchads360'].flatMap((api) =>
        ['json', 'yaml', 'dereferencedJson', 'dereferencedYaml'].map((form) => `${api}.${form}`),
      ),
    );
    for (const [name, result] of Object.entries(results)) {
      expect(result, name).toMatchObject({ valid: true, version: '3.1' });
    }
  });

  it("the emulator's vitest global setup: tests in the user's project get the emulator in-process", async () => {
    // The report in a file named here: vitest 5 (what npm gives on Node 22 and 24) writes the
    // JSON reporter's output to a report folder of its own and prints only where, 4 to stdout.
    const reportFile = path.join(temp, 'vitest-report.json');
    await run(
      'npx',
      ['--no-install', 'vitest', 'run', '--reporter=json', `--outputFile=${reportFile}`],
      project,
    );
    const report = JSON.parse(readFileSync(reportFile, 'utf8')) as {
      numPassedTests: number;
      numFailedTests: number;
    };
    // The project's two tests, and the README's.
    expect(report).toMatchObject({ numPassedTests: 3, numFailedTests: 0 });
  });
});

// Each test of this group starts commands of its own and writes no file: they run side by side.
/** Resolves to a file's text once it exists (a stopped server writes it on its way out). */
async function whenWritten(file: string): Promise<string> {
  for (;;) {
    try {
      return readFileSync(file, 'utf8');
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

// The guide docs/guides/checking-against-the-live-service.md, with the emulator standing in for
// Google (the tests have no network): each step's command as the guide gives it.
describe('checking against the live service: the guide, with the emulator as the upstream', () => {
  let through: unknown;

  it('gspec-mock --proxy checks the program against the emulator, records it, and reports no violation', async () => {
    const emulator = npx('gspec-emulator', ['--port', '0']);
    const upstream = await emulator.ready;
    const proxy = npx('gspec-mock', [
      '--proxy',
      upstream,
      '--port',
      '0',
      '--record',
      'session.har',
      '--report',
      'proxy-report.json',
      '--fail-on-violation',
    ]);
    const origin = await proxy.ready;
    through = JSON.parse((await run('node', ['dist/src/app.js', origin], project)).stdout);
    expect(through).toMatchObject({ calendar: 'Release planning', missing: '404 notFound' });
    await stopServer(proxy, origin);
    await stopServer(emulator, upstream);
    const report = JSON.parse(await whenWritten(path.join(project, 'proxy-report.json')));
    expect(report.violations).toEqual([]);
    expect(report.exchanges).toMatchObject({
      'calendars.insert': 1,
      'events.insert': 2,
      'conversion.insert': 1,
    });
    const har = JSON.parse(readFileSync(path.join(project, 'session.har'), 'utf8'));
    expect(har.log.entries.length).toBeGreaterThan(5);
    // The token (here the user's email, as the emulator takes it) is in no request's headers.
    const authorizations = har.log.entries.map(
      (entry: { request: { headers: { name: string; value: string }[] } }) =>
        entry.request.headers.find((header) => header.name === 'authorization')?.value,
    );
    expect(new Set(authorizations)).toEqual(new Set(['[redacted]']));
  });

  it('gspec-mock --replay answers the same program the same, with no upstream', async () => {
    const replay = npx('gspec-mock', ['--replay', 'session.har', '--port', '0']);
    const origin = await replay.ready;
    const again = JSON.parse((await run('node', ['dist/src/app.js', origin], project)).stdout);
    expect(again).toEqual(through);
    await stopServer(replay, origin);
  });

  it("gspec-emulator --seed-from starts with the recording's calendar and its events, the batched one included", async () => {
    const emulator = npx('gspec-emulator', ['--seed-from', 'session.har', '--port', '0']);
    const origin = await emulator.ready;
    const get = async (pathAndQuery: string) =>
      (
        await fetch(`${origin}${pathAndQuery}`, { headers: { authorization: 'Bearer ana@example.com' } })
      ).json();
    const list = await get('/calendar/v3/users/me/calendarList');
    const planning = list.items.find((entry: { summary: string }) => entry.summary === 'Release planning');
    expect(planning).toBeDefined();
    const events = await get(`/calendar/v3/calendars/${encodeURIComponent(planning.id)}/events`);
    expect(events.items.map((e: { summary: string }) => e.summary).sort()).toEqual([
      'Batched',
      'Release review',
    ]);
    await stopServer(emulator, origin);
    // The guide's other way: the seed written to a file first, to look at or edit.
    const written = await attempt(
      'npx',
      ['--no-install', 'gspec-emulator', 'seed-from', 'session.har', '--out', 'seed-from-session.json'],
      project,
    );
    expect(written.code, written.report).toBe(0);
    const seed = JSON.parse(readFileSync(path.join(project, 'seed-from-session.json'), 'utf8'));
    expect(seed.calendars.map((c: { summary: string }) => c.summary)).toContain('Release planning');
  });

  it('gspec-specs drift: nothing left against a Discovery document of the facts; a new method is reported', async () => {
    const { discoveryFromFacts } = await import('../../../specs/test/support/facts-discovery.ts');
    const document = discoveryFromFacts('calendar') as {
      resources: Record<string, { methods: Record<string, unknown> }>;
    };
    writeFileSync(path.join(project, 'calendar-rest.json'), JSON.stringify(document));
    const same = await attempt(
      'npx',
      ['--no-install', 'gspec-specs', 'drift', '--discovery', 'calendar-rest.json'],
      project,
    );
    expect(same.code, same.report).toBe(0);
    const events = document.resources.events as { methods: Record<string, unknown> };
    events.methods.summarize = {
      ...(events.methods.get as object),
      id: 'calendar.events.summarize',
      path: 'calendars/{calendarId}/summary',
    };
    writeFileSync(path.join(project, 'calendar-rest.json'), JSON.stringify(document));
    const changed = await attempt(
      'npx',
      ['--no-install', 'gspec-specs', 'drift', '--discovery', 'calendar-rest.json'],
      project,
    );
    expect(changed.code, changed.report).toBe(1);
    expect(changed.stdout).toMatch(/operation added[\s\S]*events\.summarize/);
  });
});

describe.concurrent('the commands', () => {
  it.each([
    ['gspec-mock', '@gspec/mock', '--faults'],
    ['gspec-emulator', '@gspec/emulator', '--seed'],
  ])(
    '%s (also as npx %s) answers --help and refuses a mistake or a missing file with one line and status 1',
    async (bin, name, option) => {
      for (const command of [bin, name]) {
        const help = await run('npx', ['--no-install', command, '--help'], project);
        expect(help.stdout, command).toMatch(new RegExp(`^usage: ${bin} \\[options\\]`));
        expect(help.stdout, command).toContain(`${option} FILE`);
      }
      const wrong = npx(bin, ['--no-such-option']);
      expect(await wrong.exited).toBe(1);
      expect(ownErrors(wrong)).toBe(`${bin}: unknown option --no-such-option (see ${bin} --help)\n`);
      const missing = npx(bin, ['--port', '0', option, 'no-such-file.json']);
      expect(await missing.exited).toBe(1);
      expect(ownErrors(missing)).toMatch(new RegExp(`^${bin}: [^\\n]*no-such-file\\.json[^\\n]*\\n$`));
    },
  );
});
