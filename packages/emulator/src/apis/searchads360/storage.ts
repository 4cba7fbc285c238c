/**
 * Search Ads 360's tables in the emulator's databases (core/slice.ts): the entities as one row
 * (agencies down to clicks, and the next dsConversionId), one row per conversion and one per
 * availability.
 *
 * A conversion or availability is never changed in place: a write stores a new object under its
 * key. So the rows to write are the objects not committed yet (kept in a WeakSet), found with
 * one pass over the references. The entities row is written when its JSON changed.
 */

import { type Rows, type StorageSlice, slot, type TableSpec } from '../../core/slice.js';
import type { JsonObject } from '../../core/spec.js';
import type { State } from '../../core/state.js';
import { type AgencyRecord, type SearchAds360State, worldOf } from './state.js';

// Tables are declared once (core/slice.ts); each database makes them in its own SQL (core/sql.ts).
const WORLD = 'searchads360_world';
const CONVERSIONS = 'searchads360_conversions';
const AVAILABILITIES = 'searchads360_availabilities';

/** Its schema: version 1, the entities' one row, and a row per conversion and per availability. */
const SCHEMA: readonly (readonly TableSpec[])[] = [
  [
    { name: WORLD, key: [] },
    { name: CONVERSIONS, key: ['advertiser_id', 'conversion_key'] },
    { name: AVAILABILITIES, key: ['advertiser_id', 'activity_id'] },
  ],
];

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
    if (all || text !== savedWorld) rows.put(WORLD, [], text);
    writingWorld = text;
    for (const [advertiserId, conversions] of Object.entries(world.conversions))
      for (const [key, conversion] of Object.entries(conversions)) {
        if (!all && saved.has(conversion)) continue;
        rows.put(CONVERSIONS, [advertiserId, key], JSON.stringify(conversion));
        writing.push(conversion);
      }
    for (const [advertiserId, availabilities] of Object.entries(world.availabilities))
      for (const [activityId, availability] of Object.entries(availabilities)) {
        if (!all && saved.has(availability)) continue;
        rows.put(AVAILABILITIES, [advertiserId, activityId], JSON.stringify(availability));
        writing.push(availability);
      }
  }

  return {
    name: 'searchads360',
    schema: SCHEMA,

    load(rows, state, parse) {
      saved = new WeakSet();
      savedWorld = undefined;
      writing = [];
      writingWorld = undefined;
      const [row] = Array.from(rows.scan(WORLD));
      // No row: Search Ads 360 was never written, its reads show the spec's examples. (A shared
      // store loads the slice again on the state in memory, which may hold a world.)
      if (!row) {
        delete state.searchads360;
        return;
      }
      const { agencies, nextDsConversionId } = parse<WorldRow>(row[0], WORLD, '1');
      // In the order of a world the emulator makes (emptyWorld), so a dump reads the same.
      const world: SearchAds360State = { agencies, conversions: {}, availabilities: {}, nextDsConversionId };
      for (const [advertiserId = '', key = '', body] of rows.scan(CONVERSIONS))
        slot(world.conversions, advertiserId)[key] = parse(body, CONVERSIONS, `${advertiserId} ${key}`);
      for (const [advertiserId = '', activityId = '', body] of rows.scan(AVAILABILITIES))
        slot(world.availabilities, advertiserId)[activityId] = parse(
          body,
          AVAILABILITIES,
          `${advertiserId} ${activityId}`,
        );
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
