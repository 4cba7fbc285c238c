/**
 * `gspec-emulator seed-from FILE.har [--out FILE]`: writes the seed a recording makes (what
 * its answers show; core/recording.ts), without starting the emulator. The seed is checked
 * first by writing it into an emulator in memory, so what is written is a seed `--seed`
 * takes. It goes to stdout, or to a new file with `--out` (one that exists is left alone);
 * what was taken and left out is told on stderr. A mistake is one line on stderr, status 1.
 */
import { writeFileSync } from 'node:fs';
import { commandHelp, HarError, readCommandLine } from '@gspec/server-kit';
import { RecordingError, reportLines } from './core/recording.js';
import { SeedError } from './core/seed.js';
import { checkSeed, readRecordingSeed } from './emulator.js';

const COMMAND = 'gspec-emulator seed-from';

const OPTIONS = {
  out: {
    type: 'string',
    value: 'FILE',
    description: 'Write the seed to FILE, a new file (one that exists is left alone). Default: stdout.',
  },
} as const;

const HELP = commandHelp(
  `${COMMAND} FILE.har`,
  'Writes the seed a recording makes: the calendars, list entries, events, sharing rules, settings, conversions and availabilities its answers show (a HAR file, as gspec-mock --proxy URL --record FILE writes).',
  OPTIONS,
  [
    'What it took and what it skipped, by kind, is told on stderr.',
    'Then: gspec-emulator --seed FILE (or start from the recording directly: gspec-emulator --seed-from FILE.har).',
  ],
);

function fail(message: string): never {
  process.stderr.write(`${COMMAND}: ${message}\n`);
  process.exit(1);
}

/** The recording named on the command line, and the options without it. */
function splitArguments(args: readonly string[]): { files: string[]; options: string[] } {
  const files: string[] = [];
  const options: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--out') {
      options.push(arg, ...args.slice(i + 1, i + 2));
      i++;
    } else if (arg.startsWith('-') && arg !== '-') options.push(arg);
    else files.push(arg);
  }
  return { files, options };
}

async function main(args: readonly string[]): Promise<void> {
  const { files, options } = splitArguments(args);
  const values = readCommandLine(COMMAND, OPTIONS, HELP, options);
  if (!values) return;
  if (files.length !== 1)
    fail(
      files.length === 0
        ? `name the recording: ${COMMAND} FILE.har [--out FILE] (see ${COMMAND} --help)`
        : `one recording at a time, not ${files.length} (${files.join(', ')})`,
    );
  const file = files[0] as string;
  if (values.out === '') fail(`--out needs a file name (see ${COMMAND} --help)`);
  const { seed, report } = readRecordingSeed(file);
  await checkSeed(seed, file);
  const text = `${JSON.stringify(seed, null, 2)}\n`;
  if (values.out !== undefined) {
    try {
      // `wx`: a new file or none, so that no file is ever replaced.
      writeFileSync(values.out, text, { flag: 'wx' });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      fail(
        code === 'EEXIST'
          ? `${values.out} exists already; choose another file (seed-from never replaces one)`
          : `${values.out}: cannot be written (${(error as Error).message})`,
      );
    }
  } else process.stdout.write(text);
  const [took, skipped] = reportLines(report);
  process.stderr.write(
    `${COMMAND}: wrote ${values.out ?? 'the seed (stdout)'} from ${file}\n  ${took}\n  ${skipped}\n`,
  );
}

/** Runs the subcommand with its arguments (those after `seed-from`); exits 1 on a mistake. */
export async function runSeedFrom(args: readonly string[]): Promise<void> {
  try {
    await main(args);
  } catch (error) {
    if (error instanceof HarError || error instanceof RecordingError) fail(error.message);
    if (error instanceof SeedError) fail(`the seed it makes is refused: ${error.message}`);
    fail((error as Error).stack ?? String(error));
  }
}
