/**
 * Search Ads 360's tables in the emulator's database (core/storage.ts): the entities as one row
 * (agencies down to clicks, and the next dsConversionId), one row per conversion and one per
 * availability.
 *
 * A conversion or availability is never changed in place: a write stores a new object under its
 * key. So the rows to write are the objects not committed yet (kept in a WeakSet), found with
 * one pass over the references. The entities row is written when its JSON changed.
 */

import type { JsonObject } from '../../core/spec.js';
import type { State } from '../../core/state.js';
import { type Rows, type StorageSlice, slot } from '../../core/storage.js';
import { type AgencyRecord, type SearchAds360State, worldOf } from './state.js';

const MIGRATIONS = [
  `CREATE TABLE searchads360_world (id INTEGER PRIMARY KEY CHECK (id = 1), body TEXT NOT NULL) STRICT;
   CREATE TABLE searchads360_conversions (advertiser_id TEXT NOT NULL, conversion_key TEXT NOT NULL,
     body TEXT NOT NULL, PRIMARY KEY (advertiser_id, conversion_key)) STRICT;
   CREATE TABLE searchads360_availabilities (advertiser_id TEXT NOT NULL, activity_id TEXT NOT NULL,
     body TEXT NOT NULL, PRIMARY KEY (advertiser_id, activity_id)) STRICT;`,
];

// The same tables in PostgreSQL (core/postgres.ts); bodies stay text (jsonb reorders keys).
const ROWID = 'rowid bigint GENERATED ALWAYS AS IDENTITY';
const POSTGRES_MIGRATIONS = [
  `CREATE TABLE searchads360_world (id integer PRIMARY KEY CHECK (id = 1), body text NOT NULL);
   CREATE TABLE searchads360_conversions (advertiser_id text NOT NULL, conversion_key text NOT NULL,
     body text NOT NULL, ${ROWID}, PRIMARY KEY (advertiser_id, conversion_key));
   CREATE TABLE searchads360_availabilities (advertiser_id text NOT NULL, activity_id text NOT NULL,
     body text NOT NULL, ${ROWID}, PRIMARY KEY (advertiser_id, activity_id));`,
];

const PUT_WORLD =
  'INSERT INTO searchads360_world (id, body) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET body = excluded.body';
const PUT_CONVERSION =
  'INSERT INTO searchads360_conversions (advertiser_id, conversion_key, body) VALUES (?, ?, ?) ON CONFLICT (advertiser_id, conversion_key) DO UPDATE SET body = excluded.body';
const PUT_AVAILABILITY =
  'INSERT INTO searchads360_availabilities (advertiser_id, activity_id, body) VALUES (?, ?, ?) ON CONFLICT (advertiser_id, activity_id) DO UPDATE SET body = excluded.body';

interface WorldRow {
  agencies: Record<string, AgencyRecord>;
  nextDsConversionId: string;
}

const worldText = (world: SearchAds360State) =>
  JSON.stringify({
    agencies: world.agencies,
    nextDsConversionId: world.nextDsConversionId,
  } satisfies WorldRow);

export function searchAds360Storage(): StorageSlice {
  /** Conversions and availabilities in the database as they are. */
  let saved = new WeakSet<JsonObject>();
  let savedWorld: string | undefined;
  /** What the transaction being committed writes. */
  let writing: JsonObject[] = [];
  let writingWorld: string | undefined;

  function write(rows: Rows, world: SearchAds360State, all: boolean) {
    const text = worldText(world);
    if (all || text !== savedWorld) rows.run(PUT_WORLD, text);
    writingWorld = text;
    for (const [advertiserId, conversions] of Object.entries(world.conversions))
      for (const [key, conversion] of Object.entries(conversions)) {
        if (!all && saved.has(conversion)) continue;
        rows.run(PUT_CONVERSION, advertiserId, key, JSON.stringify(conversion));
        writing.push(conversion);
      }
    for (const [advertiserId, availabilities] of Object.entries(world.availabilities))
      for (const [activityId, availability] of Object.entries(availabilities)) {
        if (!all && saved.has(availability)) continue;
        rows.run(PUT_AVAILABILITY, advertiserId, activityId, JSON.stringify(availability));
        writing.push(availability);
      }
  }

  return {
    name: 'searchads360',
    migrations: MIGRATIONS,
    postgresMigrations: POSTGRES_MIGRATIONS,
    tables: ['searchads360_world', 'searchads360_conversions', 'searchads360_availabilities'],

    load(rows, state, parse) {
      saved = new WeakSet();
      savedWorld = undefined;
      writing = [];
      writingWorld = undefined;
      const [row] = Array.from(rows.iterate('SELECT body FROM searchads360_world'));
      // No row: Search Ads 360 was never written, its reads show the spec's examples. (A shared
      // store loads the slice again on the state in memory, which may hold a world.)
      if (!row) {
        delete state.searchads360;
        return;
      }
      const { agencies, nextDsConversionId } = parse<WorldRow>(row[0], 'searchads360_world', '1');
      // In the order of a world the emulator makes (emptyWorld), so a dump reads the same.
      const world: SearchAds360State = { agencies, conversions: {}, availabilities: {}, nextDsConversionId };
      for (const [advertiserId, key, body] of rows.iterate(
        'SELECT advertiser_id, conversion_key, body FROM searchads360_conversions ORDER BY rowid',
      )) {
        const conversions = slot(world.conversions, String(advertiserId));
        conversions[String(key)] = parse(body, 'searchads360_conversions', `${advertiserId} ${key}`);
      }
      for (const [advertiserId, activityId, body] of rows.iterate(
        'SELECT advertiser_id, activity_id, body FROM searchads360_availabilities ORDER BY rowid',
      )) {
        const availabilities = slot(world.availabilities, String(advertiserId));
        availabilities[String(activityId)] = parse(
          body,
          'searchads360_availabilities',
          `${advertiserId} ${activityId}`,
        );
      }
      state.searchads360 = world;
      writingWorld = worldText(world);
      for (const conversions of Object.values(world.conversions)) writing.push(...Object.values(conversions));
      for (const availabilities of Object.values(world.availabilities))
        writing.push(...Object.values(availabilities));
    },

    writeAll(rows, state: State) {
      saved = new WeakSet();
      savedWorld = undefined;
      writing = [];
      writingWorld = undefined;
      const world = worldOf(state);
      if (world) write(rows, world, true);
    },

    writeChanges(rows, state: State) {
      writing = [];
      writingWorld = savedWorld;
      const world = worldOf(state);
      if (world) write(rows, world, false);
    },

    committed() {
      for (const value of writing) saved.add(value);
      savedWorld = writingWorld;
      writing = [];
    },
  };
}
