/**
 * Debian's Chromium for the browser tests (the portal's, the emulator inspector's): where it
 * is (`CHROMIUM_PATH`, else /usr/bin/chromium), whether the tests run (required under
 * CI=true, whose .ci/run installs it; skipped with a warning elsewhere), and how it is started
 * headless on a machine with no sandbox, no GPU and no network but the loopback.
 */
import { existsSync } from 'node:fs';

export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Whether Chromium is there; under CI=true its absence is an error, not a skip. */
export function haveChromium(): boolean {
  if (existsSync(chromiumPath)) return true;
  if (process.env.CI === 'true')
    throw new Error(
      `Chromium is required under CI=true and was not found at ${chromiumPath} (install Debian's chromium, or set CHROMIUM_PATH)`,
    );
  console.warn(
    `browser tests skipped: no Chromium at ${chromiumPath} (apt-get install chromium, or set CHROMIUM_PATH)`,
  );
  return false;
}

/**
 * Starts it with playwright-core's `chromium` (passed in: this package does not depend on it),
 * with `extraArgs` after the usual flags (`--host-resolver-rules=...` for a test's own names).
 */
export function launchChromium<B>(
  chromium: {
    launch(options: { executablePath: string; args: string[] }): Promise<B>;
  },
  extraArgs: readonly string[] = [],
): Promise<B> {
  return chromium.launch({
    executablePath: chromiumPath,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      ...extraArgs,
    ],
  });
}
