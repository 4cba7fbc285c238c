/**
 * The emulator of every API in the registry (src/apis/index.ts), and the seed files of those
 * APIs: what the CLI and the package's users call.
 */
import type { HarEntry } from '@gspec/server-kit';
import { API_MODULES } from './apis/index.js';
import { type RecordedSeed, readRecordingFile, recordingSeed } from './core/recording.js';
import { applySeed, createSeedParser, type Seed, seedUserMap } from './core/seed.js';
import { createEmulatorOf, type Emulator, type EmulatorOptions } from './core/server.js';

/** Options of earlier versions, now under `specs`. */
const MOVED_OPTIONS = { spec: 'calendar', searchAdsSpec: 'searchads360' } as const;

export function createEmulator(options: EmulatorOptions = {}): Emulator {
  for (const [old, api] of Object.entries(MOVED_OPTIONS))
    if (old in options)
      throw new TypeError(
        `createEmulator: the option ${old} is now specs.${api} ({ specs: { ${api}: spec } })`,
      );
  return createEmulatorOf(API_MODULES, options);
}

const seeds = createSeedParser(API_MODULES);

/** Checks the shape of a seed document; the error (SeedError) names the entry at fault. */
export const parseSeed = (value: unknown, source?: string): Seed => seeds.parse(value, source);

/** Reads and checks a seed file. */
export const readSeedFile = (file: string): Seed => seeds.read(file);

/**
 * The seed a recording makes (a HAR file, as `gspec-mock --proxy --record` writes one): what
 * its answers show, checked as a seed file is (SeedError), with the report of what it took and
 * left out. A HarError for a file that is no HAR, a RecordingError when nothing in it can be
 * seeded.
 */
export function readRecordingSeed(file: string): RecordedSeed {
  const recorded = readRecordingFile(file, API_MODULES);
  return { seed: seeds.parse(recorded.seed, file), report: recorded.report };
}

/** The same from HAR entries already read (`parseHar`); `source` names them in messages. */
export function recordingSeedOf(entries: readonly HarEntry[], source: string): RecordedSeed {
  const recorded = recordingSeed(entries, API_MODULES, source);
  return { seed: seeds.parse(recorded.seed, source), report: recorded.report };
}

/**
 * Writes a seed into a new in-memory emulator and drops it: a SeedError, naming the entry at
 * fault, for a seed that `--seed` would refuse.
 */
export async function checkSeed(seed: Seed, source = 'seed'): Promise<void> {
  const emulator = createEmulator({ users: seedUserMap(seed, {}, source) });
  try {
    applySeed(emulator, seed, source);
  } finally {
    await emulator.close();
  }
}
