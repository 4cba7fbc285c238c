/**
 * The state-store interface (src/core/state-store.ts) as a program meets it through
 * `emulator.stateStore`: memory, a SQLite file and a shared PostgreSQL database (when the
 * machine has PostgreSQL) keep the same promises. `open(initialize)` makes the starting state
 * of a new store once, and a store that holds one is `restored` with `initialize` not run.
 * `run(work)` commits in-process work, so another emulator on the same file or database reads
 * it. A write over HTTP is answered once held, and read back.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Emulator, EmulatorOptions } from '../src/core/server.ts';
import { createEmulator } from '../src/emulator.ts';
import { timedEvent } from './support/harness.ts';
import { havePostgres, usePostgres } from './support/postgres.ts';

const folder = mkdtempSync(path.join(tmpdir(), 'gspec-state-store-'));
const database = havePostgres() ? usePostgres('state_store') : undefined;
let made = 0;

/** Each kind of store, with the options of a new one and of a second emulator on the same state (none in memory). */
type Kind = [string, () => Promise<{ options: EmulatorOptions; again?: EmulatorOptions }>];

const KINDS: Kind[] = [
  ['memory', async () => ({ options: {} })],
  [
    'a SQLite file',
    async () => {
      const file = path.join(folder, `state-${++made}.db`);
      return { options: { persist: file }, again: { persist: file } };
    },
  ],
  ...(database
    ? ([
        [
          'a shared PostgreSQL database',
          async () => {
            const url = await database.another(`kind_${++made}`);
            return { options: { store: url }, again: { store: url } };
          },
        ],
      ] satisfies Kind[])
    : []),
];

const open: Emulator[] = [];
afterAll(async () => {
  for (const emulator of open.splice(0)) await emulator.close();
});

function start(options: EmulatorOptions): Emulator {
  const emulator = createEmulator(options);
  open.push(emulator);
  return emulator;
}

describe.each(KINDS)('the state kept in %s', (kind, make) => {
  it('opens once with the starting state, runs in-process work and commits it; another emulator on it is restored', async () => {
    const { options, again } = await make();
    const first = start(options);
    let initialized = 0;
    await first.stateStore.open(() => {
      initialized++;
      first.invoke('ana@example.com', 'calendars.insert', { body: { summary: 'Started' } });
    });
    await first.stateStore.open(() => {
      initialized++;
    });
    expect(initialized).toBe(1);
    expect(first.stateStore.restored).toBe(false);
    expect(first.stateStore.where).toBe(
      kind === 'memory' ? 'memory' : (first.persistence?.file ?? first.shared?.where),
    );
    const outcome = await first.stateStore.run(
      () =>
        first.invoke('ana@example.com', 'events.insert', {
          path: { calendarId: 'primary' },
          body: timedEvent('Kept'),
        }).body,
    );
    expect(outcome).toMatchObject({ ran: true, value: { summary: 'Kept' } });
    expect(outcome.ran && outcome.failure).toBeFalsy();
    if (!again) return;
    await first.close();
    const second = start(again);
    await second.stateStore.open(() => {
      initialized++;
    });
    expect(initialized).toBe(1);
    expect(second.stateStore.restored).toBe(true);
    const summaries = second.invoke('ana@example.com', 'events.list', { path: { calendarId: 'primary' } })
      .body as {
      items: { summary: string }[];
    };
    expect(summaries.items.map((event) => event.summary)).toEqual(['Kept']);
    const lists = second.invoke('ana@example.com', 'calendarList.list').body as {
      items: { summary: string }[];
    };
    expect(lists.items.map((entry) => entry.summary)).toContain('Started');
  });

  it('answers a request over HTTP once its change is held, and a write made then is read back', async () => {
    const { options } = await make();
    const emulator = start(options);
    const origin = await emulator.listen(0);
    const headers = { authorization: 'Bearer ana@example.com', 'content-type': 'application/json' };
    const madeEvent = await fetch(`${origin}/calendar/v3/calendars/primary/events`, {
      method: 'POST',
      headers,
      body: JSON.stringify(timedEvent('Over HTTP')),
    });
    expect(madeEvent.status).toBe(200);
    const { id } = (await madeEvent.json()) as { id: string };
    const read = await fetch(`${origin}/calendar/v3/calendars/primary/events/${id}`, { headers });
    expect(((await read.json()) as { summary: string }).summary).toBe('Over HTTP');
  });
});
