import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Row, report, savedLineRows } from '../test-summary.ts';

describe('test-summary over several Node lines', () => {
  it('adds up every saved line, each row named after its line', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'gspec-lines-'));
    const host: Row[] = [
      ['@gspec/mock#test', 120, 0, 2, ''],
      ['@gspec/mock#lint', 1, 0, 0, ''],
    ];
    const node24: Row[] = [
      ['@gspec/mock#test', 119, 1, 2, 'exit 1'],
      ['@gspec/mock#lint', 1, 0, 0, ''],
    ];
    writeFileSync(path.join(dir, 'node-v20.20.2.json'), JSON.stringify(host));
    writeFileSync(path.join(dir, 'node-v24.21.0.json'), JSON.stringify(node24));
    const rows = savedLineRows(dir);
    expect(rows.map((r) => r[0])).toEqual([
      'node-v20.20.2 @gspec/mock#test',
      'node-v20.20.2 @gspec/mock#lint',
      'node-v24.21.0 @gspec/mock#test',
      'node-v24.21.0 @gspec/mock#lint',
    ]);
    const printed: string[] = [];
    expect(report(rows, (line) => printed.push(line))).toBe(1);
    expect(printed.at(-1)).toBe('241 passed, 1 failed, 4 skipped');
    expect(printed.find((line) => line.startsWith('node-v24.21.0 @gspec/mock#test'))).toMatch(
      /119\s+1\s+2\s+exit 1$/,
    );
  });

  it('refuses to add up nothing', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'gspec-lines-'));
    expect(() => savedLineRows(dir)).toThrow('no saved Node line');
  });

  it('passes when nothing failed', () => {
    expect(report([['a#test', 3, 0, 0, '']], () => undefined)).toBe(0);
  });
});
