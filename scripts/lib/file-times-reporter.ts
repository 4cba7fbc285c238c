/**
 * A vitest reporter that keeps each test file's wall time, from the moment the file is taken up
 * (before its imports) to its end, hooks included: vitest's JSON report times a file from its
 * first test, so a file whose `beforeAll` packs and installs for a minute looked quick there.
 *
 * It writes next to the run's JSON report, under the same suffix: reports/vitest.json gets
 * reports/times.json, reports/vitest-emulator.json reports/times-emulator.json. scripts/test-summary.ts
 * reads them into reports/test-times.md.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Reporter, TestModule, Vitest } from 'vitest/node';

export interface FileTimes {
  files: { file: string; seconds: number }[];
}

/** reports/vitest-X.json -> reports/times-X.json; undefined when the run writes no JSON report. */
export function timesFileFor(jsonReport: string | undefined): string | undefined {
  if (!jsonReport) return undefined;
  const base = path.basename(jsonReport);
  if (!/^vitest.*\.json$/.test(base)) return undefined;
  return path.join(path.dirname(jsonReport), base.replace(/^vitest/, 'times'));
}

export default class FileTimesReporter implements Reporter {
  private root = process.cwd();
  private output: string | undefined;
  private readonly started = new Map<string, number>();
  private readonly files: FileTimes['files'] = [];

  onInit(vitest: Vitest): void {
    this.root = vitest.config.root;
    const json = vitest.config.reporters.find(
      (entry): entry is [string, { outputFile?: string }] => Array.isArray(entry) && entry[0] === 'json',
    );
    this.output = timesFileFor(json?.[1]?.outputFile);
  }

  onTestModuleQueued(module: TestModule): void {
    this.started.set(module.moduleId, performance.now());
  }

  onTestModuleEnd(module: TestModule): void {
    const start = this.started.get(module.moduleId);
    if (start === undefined) return;
    const file = path.relative(this.root, module.moduleId).split(path.sep).join('/');
    this.files.push({ file, seconds: Math.round(performance.now() - start) / 1000 });
  }

  onTestRunEnd(): void {
    if (!this.output) return;
    const target = path.resolve(this.root, this.output);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, `${JSON.stringify({ files: this.files } satisfies FileTimes, null, 2)}\n`);
  }
}
