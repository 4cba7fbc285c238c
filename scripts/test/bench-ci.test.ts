import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUDGETS, ciRunSection, readRun } from '../bench-ci.ts';
import type { SavedLine } from '../test-summary.ts';

function clone(lines: Record<string, SavedLine>): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gspec-bench-ci-'));
  mkdirSync(path.join(dir, 'reports', 'lines'), { recursive: true });
  for (const [name, line] of Object.entries(lines))
    writeFileSync(path.join(dir, 'reports', 'lines', `${name}.json`), JSON.stringify(line));
  return dir;
}

const full: SavedLine = {
  rows: [['@gspec/mock#test', 120, 0, 0, '']],
  wallSeconds: 540,
  tasks: [
    { name: '@gspec/mock#lint', seconds: 4 },
    { name: '@gspec/emulator#test', seconds: 402.5 },
  ],
  files: [{ name: 'packages/emulator/test/conformance.test.ts', seconds: 80 }],
};
const other: SavedLine = {
  rows: [['@gspec/consumer-tests#test:node-line', 25, 0, 0, '']],
  wallSeconds: 150,
  tasks: [{ name: '@gspec/consumer-tests#test:node-line', seconds: 140 }],
  files: [],
};

describe('the CI benchmark', () => {
  it("reads each line a clone's .ci/run saved, and the closing line it printed", () => {
    const dir = clone({ 'node-v24.21.0': full, 'node-v22.23.3': other });
    const run = readRun(dir, 'idle', 812, 'noise\n145 passed, 0 failed, 3 skipped\nafter\n', 0);
    expect(run.lines.map(([name]) => name)).toEqual(['node-v22.23.3', 'node-v24.21.0']);
    expect(run.closing).toBe('145 passed, 0 failed, 3 skipped');
    expect(readRun(dir, 'idle', 1, 'cut off', null).closing).toBe('no closing line');
  });

  it('says whether each run kept its budget, and tells the whole suite from the other lines', () => {
    const dir = clone({ 'node-v24.21.0': full, 'node-v22.23.3': other });
    const markdown = ciRunSection([
      readRun(dir, 'idle', BUDGETS.idle - 1, '1 passed, 0 failed', 0),
      readRun(dir, 'hogs', BUDGETS.hogs + 1, '1 passed, 0 failed', 0),
    ]);
    expect(markdown).toContain('| idle machine | 14 min 59 s | 15 min 00 s | yes | 0 |');
    expect(markdown).toContain('| two CPU hogs | 35 min 01 s | 35 min 00 s | **no** | 0 |');
    expect(markdown).toContain('| idle | node-v24.21.0 | whole suite | 9 min 00 s | 120 | 1 |');
    expect(markdown).toContain('| idle | node-v22.23.3 | --node-line | 2 min 30 s | 25 | 0 |');
    expect(markdown).toContain('| @gspec/emulator#test | 502.2 | 402.5 |');
    expect(markdown).not.toContain('@gspec/mock#lint');
  });
});
