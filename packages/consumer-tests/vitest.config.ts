import { defineConfig, mergeConfig } from 'vitest/config';
import { sharedTestConfig } from '../../vitest.shared.ts';

// project/ is the user's project the test copies out and runs; its tests run there, not here.
export default mergeConfig(
  sharedTestConfig,
  defineConfig({ test: { exclude: ['project/**', 'node_modules/**'] } }),
);
