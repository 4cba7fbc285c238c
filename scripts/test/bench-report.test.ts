import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { barChart, median, percentile, writeBenchSection } from '../lib/bench-report.ts';

describe('writeBenchSection', () => {
  it('adds a section, then replaces only that section on the next run', () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'gspec-bench-')), 'benchmarks.md');
    writeBenchSection('clients', 'first', { file, now: new Date('2026-11-01') });
    writeBenchSection('mock', 'mock figures', { file, now: new Date('2026-11-01') });
    writeBenchSection('clients', 'second', { file, now: new Date('2026-11-02') });
    const text = readFileSync(file, 'utf8');
    expect(text.startsWith('# Benchmarks')).toBe(true);
    expect(text).toContain('second');
    expect(text).not.toContain('first');
    expect(text).toContain('mock figures');
    expect(text.indexOf('<!-- bench:clients -->')).toBeLessThan(text.indexOf('<!-- bench:mock -->'));
    expect(text).toMatch(/_Measured 2026-11-02 on \d+ × /);
  });

  it('refuses a section name that would break the markers', () => {
    expect(() => writeBenchSection('Client Bench', 'x')).toThrow(/lower-case letters/);
  });

  it('draws a bar chart scaled to the largest value', () => {
    expect(
      barChart(
        [
          ['ours', 10],
          ['theirs', 40],
        ],
        ' KB',
        4,
      ),
    ).toBe('ours   █ 10 KB\ntheirs ████ 40 KB');
  });
});

describe('median and percentile', () => {
  it.each([
    [[3, 1, 2], 2],
    [[4, 1, 3, 2], 2.5],
    [[7], 7],
  ])('the median of %j is %d', (values, expected) => {
    expect(median(values)).toBe(expected);
  });

  it.each([
    [50, 5],
    [99, 10],
    [100, 10],
    [10, 1],
    [1, 1],
  ])('the %d-th percentile of 1..10 by nearest rank is %d', (p, expected) => {
    expect(percentile([10, 9, 8, 7, 6, 5, 4, 3, 2, 1], p)).toBe(expected);
  });

  it('leaves the values in their order', () => {
    const values = [3, 1, 2];
    median(values);
    percentile(values, 50);
    expect(values).toEqual([3, 1, 2]);
  });
});
