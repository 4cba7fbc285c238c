/**
 * Reading an emulator's database the way a restart would find it, while the emulator that
 * keeps it still runs (it holds the file to itself): the file and its write-ahead log are
 * copied, as a process killed at this moment would leave them, and the copy is loaded.
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readDefaults } from '../../src/apis/calendar/defaults.ts';
import { emptyCalendarPart } from '../../src/apis/calendar/records.ts';
import { calendarStorage } from '../../src/apis/calendar/storage.ts';
import { Store } from '../../src/apis/calendar/store.ts';
import { searchAds360Storage } from '../../src/apis/searchads360/storage.ts';
import { emptyCoreState, type State } from '../../src/core/state.ts';
import { Persistence } from '../../src/core/storage.ts';
import { Store as CoreStore } from '../../src/core/store.ts';
import { spec } from './harness.ts';

/** Opens `file` as the emulator does, with a store of its own. */
export function openDatabase(file: string): { store: CoreStore; persistence: Persistence } {
  const core = new CoreStore(() => ({ ...emptyCoreState(), calendar: emptyCalendarPart() }));
  const store = new Store(core, readDefaults(spec));
  const persistence = new Persistence(core, [calendarStorage(store), searchAds360Storage()], { file });
  return { store: core, persistence };
}

/** The state in `file` (and its log) as of now; undefined when it holds none. */
export function onDisk(file: string): State | undefined {
  const dir = mkdtempSync(path.join(tmpdir(), 'gspec-emulator-copy-'));
  try {
    const copy = path.join(dir, 'copy.db');
    copyFileSync(file, copy);
    if (existsSync(`${file}-wal`)) copyFileSync(`${file}-wal`, `${copy}-wal`);
    const { store, persistence } = openDatabase(copy);
    const restored = persistence.restored;
    persistence.close();
    return restored ? store.state : undefined;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
