import { defineConfig } from 'vitest/config';

// As the emulator's README shows: its global setup starts the emulator in this process.
export default defineConfig({
  test: { include: ['test/**/*.test.ts'], globalSetup: ['./test/emulator-setup.ts'] },
});
