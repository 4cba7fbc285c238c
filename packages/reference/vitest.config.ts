import { defineConfig, mergeConfig } from 'vitest/config';
import { sharedTestConfig } from '../../vitest.shared.ts';

// The browser tests marked concurrent (each in pages of its own, on one Chromium) run up to four
// at a time: most of a page's time is waiting (for the network to go idle, for a route to
// render), which overlaps; the navigation tests, which click on a clock, run alone.
export default mergeConfig(sharedTestConfig, defineConfig({ test: { maxConcurrency: 4 } }));
