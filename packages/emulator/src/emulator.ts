/** The emulator of every API in the registry (src/apis/index.ts). */
import { API_MODULES } from './apis/index.js';
import { createEmulatorOf, type Emulator, type EmulatorOptions } from './core/server.js';

export function createEmulator(options: EmulatorOptions = {}): Emulator {
  return createEmulatorOf(API_MODULES, options);
}
