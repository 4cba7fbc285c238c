/** Throw-away folders of specs and fault files for the tests. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A spec folder with `apis.json` and `calendar.json` as given (a string is written as is). */
export function specFolder(apis: unknown, spec: unknown): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'gspec-specs-'));
  const write = (name: string, value: unknown) =>
    writeFileSync(path.join(dir, name), typeof value === 'string' ? value : JSON.stringify(value));
  if (apis !== undefined) write('apis.json', apis);
  if (spec !== undefined) write('calendar.json', spec);
  return dir;
}

/** A fault file with `value` as its content (a string is written as is); returns its path. */
export function faultFile(value: unknown): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'gspec-faults-')), 'faults.json');
  writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value));
  return file;
}
