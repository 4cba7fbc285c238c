/**
 * What a program that uses this package bundles: esbuild builds small programs for the
 * browser from the built package (dist) and the test reads esbuild's metafile.
 */
import path from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const listEvents =
  "const page = await calendar.events.list({ calendarId: 'primary' }); console.log(page.items);";

async function bundleForBrowser(program: string) {
  const { metafile } = await build({
    stdin: { contents: program, resolveDir: path.join(import.meta.dirname, '..'), loader: 'ts' },
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    // Kept out rather than failed on, so that the test can see them.
    external: ['node:*'],
    metafile: true,
    logLevel: 'silent',
  });
  const output = Object.values(metafile.outputs)[0];
  return {
    // The files that put code into the bundle; esbuild reads more, and shakes them out.
    inputs: Object.entries(output?.inputs ?? {})
      .filter(([, input]) => input.bytesInOutput > 0)
      .map(([file]) => file),
    nodeImports: (output?.imports ?? []).map((i) => i.path).filter((p) => p.startsWith('node:')),
  };
}

describe('the browser bundle of a program', () => {
  it.each<[string, { program: string; openapiFetch: boolean; nodeImports: string[]; batch?: boolean }]>([
    [
      'createCalendar: resource methods, no openapi-fetch, no batch code, no node: module',
      {
        program: `import { createCalendar } from '@gspec/calendar'; const calendar = createCalendar({ accessToken: 't' }); ${listEvents}`,
        openapiFetch: false,
        nodeImports: [],
        batch: false,
      },
    ],
    [
      'createCalendarBatch: the batch code and its wire format, no openapi-fetch, no node: module',
      {
        program: `import { createCalendarBatch } from '@gspec/calendar'; const batch = createCalendarBatch({ accessToken: 't' }); await batch((b) => [b.colors.get()]);`,
        openapiFetch: false,
        nodeImports: [],
        batch: true,
      },
    ],
    [
      'createCalendarClient: openapi-fetch for the raw methods, no node: module',
      {
        program: `import { createCalendarClient } from '@gspec/calendar'; const calendar = createCalendarClient({ accessToken: 't' }); ${listEvents}`,
        openapiFetch: true,
        nodeImports: [],
      },
    ],
    [
      'the error helpers and modifyEvent of the default entry: no node: module',
      {
        program: `import { createCalendar, isNotFound, modifyEvent } from '@gspec/calendar'; const calendar = createCalendar(); console.log(isNotFound, modifyEvent); ${listEvents}`,
        openapiFetch: false,
        nodeImports: [],
      },
    ],
    [
      'nodeFetch of @gspec/calendar/node: node:http, for Node only',
      {
        program: `import { createCalendar } from '@gspec/calendar'; import { nodeFetch } from '@gspec/calendar/node'; const calendar = createCalendar({ fetch: nodeFetch }); ${listEvents}`,
        openapiFetch: false,
        nodeImports: ['node:http'],
      },
    ],
  ])('%s', async (_title, { program, openapiFetch, nodeImports, batch }) => {
    const bundle = await bundleForBrowser(program);
    expect(bundle.inputs.some((input) => input.includes('node_modules/openapi-fetch/'))).toBe(openapiFetch);
    expect(bundle.nodeImports).toEqual(nodeImports);
    if (batch !== undefined) {
      const batchModules = bundle.inputs.filter((input) =>
        /runtime\/dist\/(batch|multipart)\.js$/.test(input),
      );
      expect(batchModules.length > 0).toBe(batch);
    }
  });
});

/**
 * What a program bound to the operations it names bundles (`createCalendarWith`), as one file:
 * only those operations, and the page walks and the google-auth-library glue only when it
 * imports them (`items`, `googleAuth`). A client of every operation (`createCalendar`) binds
 * them all, with the walks and the glue, which a bundler cannot take out of an object.
 */
describe('the one-file bundle of a program', () => {
  // A text of each part: the google-auth-library glue, the page walks, the batch, and an
  // operation the programs below do not name.
  const parts = {
    glue: 'gave no headers to send',
    walks: 'the service sent the page token',
    batch: 'is not a call made by the batch',
    otherOperation: '/calendars/{calendarId}/events/quickAdd',
  };
  type Part = keyof typeof parts;

  it.each<[string, { code: string; has: Part[] }]>([
    [
      'createCalendarWith and an access token: events.list alone',
      {
        code: `import { createCalendarWith, eventsList } from '@gspec/calendar'; const calendar = createCalendarWith({ accessToken: 't' }, eventsList); ${listEvents}`,
        has: [],
      },
    ],
    [
      'createCalendarWith, items and googleAuth: the walks and the glue too',
      {
        code: "import { createCalendarWith, eventsList, googleAuth, items } from '@gspec/calendar'; const calendar = createCalendarWith({ auth: googleAuth({ getRequestHeaders: async () => ({}) }) }, eventsList); for await (const event of items(calendar.events.list, { calendarId: 'primary' })) console.log(event);",
        has: ['glue', 'walks'],
      },
    ],
    [
      'createCalendarWith and createCalendarBatch: the batch too, which binds every operation and takes a library client',
      {
        code: "import { createCalendarBatch, createCalendarWith, eventsList } from '@gspec/calendar'; const calendar = createCalendarWith({ accessToken: 't' }, eventsList); const batch = createCalendarBatch({ accessToken: 't' }); console.log(calendar, await batch((b) => [b.colors.get()]));",
        has: ['batch', 'glue', 'otherOperation'],
      },
    ],
    [
      'createCalendar: every operation, the walks and the glue, no batch',
      {
        code: `import { createCalendar } from '@gspec/calendar'; const calendar = createCalendar({ accessToken: 't' }); ${listEvents}`,
        has: ['glue', 'walks', 'otherOperation'],
      },
    ],
  ])('%s', async (_title, { code, has }) => {
    const { outputFiles } = await build({
      stdin: { contents: code, resolveDir: path.join(import.meta.dirname, '..'), loader: 'ts' },
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'browser',
      logLevel: 'silent',
    });
    const text = outputFiles[0]?.text ?? '';
    const found = (Object.keys(parts) as Part[]).filter((part) => text.includes(parts[part]));
    expect(found.sort()).toEqual([...has].sort());
  });
});
