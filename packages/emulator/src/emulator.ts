/**
 * The emulator of every API in the registry (src/apis/index.ts), and the seed files of those
 * APIs: what the CLI and the package's users call.
 */
import { API_MODULES } from './apis/index.js';
import { createSeedParser, type Seed } from './core/seed.js';
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
