/**
 * `--persist FILE` on a file the emulator cannot take as its own (core/storage.ts): a SQLite
 * database of another program, an emulator database that lost its `emulator_meta` 'state' row
 * while its tables still hold rows, a row that is not JSON or not a valid state. Each stops the
 * start (PersistError in-process, status 1 from the CLI) with a message naming the file and
 * what is wrong, and the file keeps every byte: nothing is created, deleted or marked in it.
 * A new file (missing, empty, an empty SQLite database) and a database of an earlier emulator
 * (no application id) are still opened.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stopAll } from '@gspec/scripts/child-process';
import Database from 'libsql';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { calendarState } from '../src/apis/calendar/records.ts';
import { PersistError } from '../src/core/storage.ts';
import { createEmulator } from '../src/emulator.ts';
import { startCli } from './support/cli-process.ts';
import { onDisk } from './support/database.ts';
import { spec, timedEvent } from './support/harness.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'gspec-emulator-refusal-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const newFile = () => path.join(dir, `state-${++files}.db`);

/** The emulator's mark in a database file's header (SQLite's application_id): "gsem". */
const EMULATOR_ID = 0x6773656d;

const hash = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

/** Runs statements on `file` as another program would; each is SQL and its parameters. */
function edit(file: string, ...statements: [string, ...(string | number)[]][]) {
  const db = new Database(file);
  try {
    for (const [sql, ...params] of statements) db.prepare(sql).run(...params);
  } finally {
    db.close();
  }
}

function query(file: string, sql: string): unknown[] {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare(sql).raw().all() as unknown[];
  } finally {
    db.close();
  }
}

const applicationId = (file: string) => (query(file, 'PRAGMA application_id')[0] as [number])[0];
const eventRows = (file: string) => (query(file, 'SELECT count(*) FROM calendar_events')[0] as [number])[0];

/** An emulator database as the emulator leaves it: ana, her primary calendar and three events. */
async function emulatorDatabase(file: string): Promise<string[]> {
  const emulator = createEmulator({ specs: { calendar: spec }, persist: file });
  const ids = [1, 2, 3].map(
    (i) =>
      emulator.invoke('ana@example.com', 'events.insert', {
        path: { calendarId: 'primary' },
        body: timedEvent(`kept ${i}`, 8 + i),
      }).body?.id as string,
  );
  await emulator.close();
  return ids;
}

/** A SQLite database of another program: its own tables and rows. */
function foreignDatabase(file: string, applicationId = 0) {
  edit(
    file,
    ['CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL)'],
    ['CREATE TABLE tags (note INTEGER, tag TEXT)'],
    ['INSERT INTO notes (text) VALUES (?), (?)', 'milk', 'bread'],
    ['INSERT INTO tags VALUES (1, ?)', 'shopping'],
    [`PRAGMA application_id = ${applicationId}`],
  );
}

interface Refusal {
  name: string;
  /** Makes the file; resolves to what the refusal must say after the file's name. */
  make(file: string): Promise<string>;
  /** What else must still hold in the file after the refusal. */
  kept?(file: string): void;
}

const REFUSALS: Refusal[] = [
  {
    name: 'a SQLite database of another program, with its own tables',
    async make(file) {
      foreignDatabase(file);
      return 'not an emulator database: it holds tables notes, tags and no emulator_schema table';
    },
    kept: (file) => expect(query(file, 'SELECT text FROM notes ORDER BY id')).toEqual([['milk'], ['bread']]),
  },
  {
    name: 'a SQLite database marked by another application (application_id)',
    async make(file) {
      foreignDatabase(file, 0x47504b47);
      return 'not an emulator database: its application_id is 0x47504b47 (the emulator marks its databases 0x6773656d)';
    },
  },
  {
    name: "a database marked as the emulator's that has none of its tables",
    async make(file) {
      foreignDatabase(file, EMULATOR_ID);
      return 'marked as an emulator database (application_id 0x6773656d) but it holds tables notes, tags and no emulator_schema table';
    },
  },
  {
    name: "an emulator database whose emulator_meta 'state' row is gone while its events are there",
    async make(file) {
      await emulatorDatabase(file);
      edit(file, ["DELETE FROM emulator_meta WHERE key = 'state'"]);
      return "emulator_meta has no 'state' row, yet its tables hold rows (calendar_users 1, calendar_calendars 1, calendar_list 1, calendar_acl 1, calendar_events 3): a database the emulator wrote has both";
    },
    kept: (file) => expect(eventRows(file)).toBe(3),
  },
  {
    name: 'an event row that is not JSON',
    async make(file) {
      const [id] = await emulatorDatabase(file);
      edit(file, ['UPDATE calendar_events SET body = ? WHERE event_id = ?', '{"id": ', id as string]);
      return `calendar_events ana@example.com ${id}: not JSON (`;
    },
  },
  {
    name: 'an event row that is not a valid event',
    async make(file) {
      const [, id] = await emulatorDatabase(file);
      edit(file, [
        "UPDATE calendar_events SET body = json_set(body, '$.resource.start.dateTime', 'soon') WHERE event_id = ?",
        id as string,
      ]);
      return `calendar_events ana@example.com ${id}: not a valid state (/calendar/events/ana@example.com/${id}/resource/start/dateTime: must match format "date-time"`;
    },
    kept: (file) => expect(eventRows(file)).toBe(3),
  },
  {
    name: 'a calendar row whose owner is no user (a check beyond the schema)',
    async make(file) {
      await emulatorDatabase(file);
      edit(file, ["UPDATE calendar_calendars SET body = json_set(body, '$.owner', 'nobody@example.com')"]);
      return 'calendar_calendars ana@example.com: not a valid state (/calendar/calendars/ana@example.com/owner: no user nobody@example.com)';
    },
  },
  {
    name: "an emulator_meta 'state' row of another format version",
    async make(file) {
      await emulatorDatabase(file);
      edit(file, ["UPDATE emulator_meta SET value = json_set(value, '$.version', 3) WHERE key = 'state'"]);
      return "emulator_meta 'state': not a valid state (/version: must be equal to constant)";
    },
  },
  {
    name: "an emulator_meta 'state' row without the state's counters",
    async make(file) {
      await emulatorDatabase(file);
      edit(file, ["UPDATE emulator_meta SET value = '{\"version\": 1}' WHERE key = 'state'"]);
      return "emulator_meta 'state': not a valid state (lacks epoch, revision, lastTime, nextSeq)";
    },
  },
];

describe('persist: a file the emulator cannot take as its own is refused and left as it is', () => {
  it.each(REFUSALS)('$name', async ({ make, kept }) => {
    const file = newFile();
    const expected = `${file}: ${await make(file)}`;
    const before = hash(file);
    let thrown: unknown;
    try {
      createEmulator({ specs: { calendar: spec }, persist: file });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(PersistError);
    expect((thrown as Error).message).toContain(expected);
    expect(hash(file)).toBe(before);
    kept?.(file);
  });
});

describe('gspec-emulator --persist on a file it cannot take as its own', () => {
  afterEach(() => stopAll('SIGKILL'));
  const cases = REFUSALS.filter(({ name }) =>
    [
      'a SQLite database of another program, with its own tables',
      "an emulator database whose emulator_meta 'state' row is gone while its events are there",
      'an event row that is not a valid event',
    ].includes(name),
  );

  it.each(cases)('exits 1 naming the file: $name', async ({ make, kept }) => {
    const file = newFile();
    const expected = `${file}: ${await make(file)}`;
    const before = hash(file);
    const run = startCli(['--persist', file]);
    // An emulator that took the file would listen: that ends the wait too, as a failure.
    const outcome = await Promise.race([
      run.exited.then((code) => ({ exited: code })),
      run.ready.then(
        (origin) => ({ listening: origin }),
        () => new Promise<never>(() => undefined),
      ),
    ]);
    expect(outcome).toEqual({ exited: 1 });
    expect(run.output().err).toContain(`gspec-emulator: invalid --persist file: ${expected}`);
    expect(run.output().err).toContain('(left as it is)');
    expect(hash(file)).toBe(before);
    kept?.(file);
  });
});

describe('persist: new files and databases of earlier emulators are still opened', () => {
  it.each([
    ['a missing file', (_file: string) => undefined],
    ['an empty file', (file: string) => writeFileSync(file, '')],
    [
      'an empty SQLite database',
      (file: string) => edit(file, ['CREATE TABLE scratch (x)'], ['DROP TABLE scratch']),
    ],
  ])('%s is made an emulator database, marked as one', async (_name, make) => {
    const file = newFile();
    make(file);
    const emulator = createEmulator({ specs: { calendar: spec }, persist: file });
    expect(emulator.persistence?.restored).toBe(false);
    emulator.invoke('ana@example.com', 'events.insert', {
      path: { calendarId: 'primary' },
      body: timedEvent('first'),
    });
    await emulator.close();
    expect(applicationId(file)).toBe(EMULATOR_ID);
    expect(eventRows(file)).toBe(1);
  });

  it('a database of an earlier emulator (no application_id) goes on, and is marked from then on', async () => {
    const file = newFile();
    const ids = await emulatorDatabase(file);
    edit(file, ['PRAGMA application_id = 0']);
    const saved = onDisk(file);
    const emulator = createEmulator({ specs: { calendar: spec }, persist: file });
    expect(emulator.persistence?.restored).toBe(true);
    expect(emulator.store.state.revision).toBe(saved?.revision);
    expect(Object.keys(calendarState(emulator.store.state).calendar.events['ana@example.com'] ?? {})).toEqual(
      ids,
    );
    await emulator.close();
    expect(applicationId(file)).toBe(EMULATOR_ID);
  });

  it('an emulator database made but never written (no state row, no rows) starts new', async () => {
    const file = newFile();
    // The state is committed at the first write or at close: a process killed before leaves this.
    edit(
      file,
      ['CREATE TABLE emulator_schema (slice TEXT PRIMARY KEY, version INTEGER NOT NULL) STRICT'],
      ['CREATE TABLE emulator_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT'],
      ["INSERT INTO emulator_schema VALUES ('emulator', 1)"],
    );
    const emulator = createEmulator({ specs: { calendar: spec }, persist: file });
    expect(emulator.persistence?.restored).toBe(false);
    await emulator.close();
    expect(onDisk(file)?.users).toEqual({});
  });
});
