/**
 * A vitest global setup that runs the emulator for a whole test run, in the test process:
 * no port to wait for, no process to kill. Point `globalSetup` at this file in your
 * vitest.config.ts; tests read the root URL with `inject('emulatorRootUrl')`.
 * (Type-checked and run by this package's tests: test/examples.test.ts.)
 */
import { createEmulator } from '@gspec/emulator';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where Google's client or ours finds the emulator: `rootUrl` / the base of `baseUrl`. */
    emulatorRootUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const emulator = createEmulator({
    // Two known users; with `strict: true` any other token would be refused.
    users: { 'token-ana': 'ana@example.com', 'token-bo': 'bo@example.com' },
    strict: true,
  });
  const origin = await emulator.listen(0);
  project.provide('emulatorRootUrl', `${origin}/`);
  return () => emulator.close();
}
