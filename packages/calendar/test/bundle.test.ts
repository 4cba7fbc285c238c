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
 * What a program loads at start when its bundler splits code (Vite, Rollup, webpack; esbuild
 * with `splitting`): the glue of the `auth` option and the walks of `pages`, `items` and
 * `sync` are chunks of `import()`, loaded only by a program that uses them.
 */
describe('the code split bundle of a program', () => {
  // A text of google-auth.js, and one of paging.js.
  const glue = 'gave no headers to send';
  const walks = 'the service sent the page token';

  it.each([
    ['an access token and one page', `const calendar = createCalendar({ accessToken: 't' }); ${listEvents}`],
    [
      'an auth client and every page',
      "const calendar = createCalendar({ auth: { getRequestHeaders: async () => ({}) } }); for await (const page of calendar.events.list.pages({ calendarId: 'primary' })) console.log(page);",
    ],
  ])('%s: the glue and the walks are chunks of their own, not in the entry', async (_title, code) => {
    const { outputFiles } = await build({
      stdin: {
        contents: `import { createCalendar } from '@gspec/calendar'; ${code}`,
        resolveDir: path.join(import.meta.dirname, '..'),
        loader: 'ts',
      },
      bundle: true,
      splitting: true,
      write: false,
      outdir: 'out',
      format: 'esm',
      platform: 'browser',
      logLevel: 'silent',
    });
    const entry = outputFiles.find((file) => file.path.endsWith('stdin.js'));
    const chunks = outputFiles.filter((file) => file !== entry).map((file) => file.text);
    expect(entry?.text).not.toContain(glue);
    expect(entry?.text).not.toContain(walks);
    expect(chunks.filter((text) => text.includes(glue) || text.includes(walks))).toHaveLength(2);
  });
});
