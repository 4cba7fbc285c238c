/** Loading the specs: a broken spec folder stops the mock with a message naming the fault. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadApis, MockSetupError, resolveSpecDir } from '../src/index.ts';
import { specFolder } from './support/fixtures.ts';
import { specDir } from './support/spec.ts';

const calendar = JSON.parse(readFileSync(path.join(specDir, 'calendar.json'), 'utf8'));
const index = [
  { name: 'calendar@v3', title: 'Google Calendar API', basePath: '/calendar/v3', file: 'calendar.json' },
];

const withOperation = (operation: object) => ({ ...calendar, paths: { '/x': { get: operation } } });

describe('loadApis refuses', () => {
  it.each<[string, unknown, unknown, string | RegExp]>([
    [
      'a folder without apis.json',
      undefined,
      calendar,
      /apis\.json does not exist; run `npm run build` first/,
    ],
    ['an apis.json that is not JSON', '[{', calendar, /apis\.json:1:3: /],
    ['an apis.json that lists no API', [], calendar, /apis\.json: expected a non-empty array of APIs/],
    [
      'an API without a base path',
      [{ ...index[0], basePath: undefined }],
      calendar,
      /apis\.json: \[0\]\.basePath: expected a non-empty string/,
    ],
    [
      'a base path with a trailing slash',
      [{ ...index[0], basePath: '/calendar/v3/' }],
      calendar,
      /\[0\]\.basePath: expected a path such as "\/calendar\/v3"/,
    ],
    [
      'two APIs on one base path',
      [index[0], { ...index[0], name: 'again' }],
      calendar,
      /two APIs have the base path \/calendar\/v3/,
    ],
    ['a spec file that is missing', index, undefined, /calendar\.json does not exist; .*apis\.json lists it/],
    ['a spec that is not JSON', index, '{"openapi": ', /calendar\.json:1:13: /],
    [
      'a spec that is not OpenAPI 3',
      index,
      { swagger: '2.0', paths: {} },
      /calendar\.json: openapi: expected an OpenAPI 3\.0 or 3\.1 version/,
    ],
    [
      'a spec without paths',
      index,
      { ...calendar, paths: {} },
      /calendar\.json: paths: expected an object with at least one path/,
    ],
    [
      'an operation without an operationId',
      index,
      withOperation({ responses: { 200: { description: 'ok' } } }),
      /calendar\.json: paths\["\/x"\]\.get\.operationId: missing/,
    ],
    [
      'two operations with one operationId',
      index,
      {
        ...calendar,
        paths: {
          ...calendar.paths,
          '/x': { get: { operationId: 'events.list', responses: { 200: { description: 'ok' } } } },
        },
      },
      /paths\["\/x"\]\.get\.operationId: "events\.list" is also the id of paths\["\/calendars\/\{calendarId\}\/events"\]\.get/,
    ],
    [
      'an operation with no success answer',
      index,
      withOperation({ operationId: 'x.get', responses: { 404: { description: 'no' } } }),
      /paths\["\/x"\]\.get\.responses: no success \(2xx\) response/,
    ],
    [
      'a spec with a dangling $ref',
      index,
      withOperation({
        operationId: 'x.get',
        responses: {
          200: { description: 'ok', content: { 'application/json': { schema: { $ref: '#/nope' } } } },
        },
      }),
      /calendar\.json: Prism cannot read this spec: .*#\/nope/,
    ],
  ])('%s', async (_title, apis, spec, message) => {
    const attempt = loadApis(specFolder(apis, spec));
    await expect(attempt).rejects.toThrow(MockSetupError);
    await expect(attempt).rejects.toThrow(message);
  });
});

describe('loadApis', () => {
  it('serves a spec folder given in place of the bundled one', async () => {
    const apis = await loadApis(specFolder(index, calendar));
    expect(apis.map((api) => [api.basePath, api.operations.length])).toEqual([['/calendar/v3', 37]]);
  });

  it('leaves out the callbacks of watch operations, so Prism never calls out', async () => {
    const apis = await loadApis();
    const watch = apis.flatMap((api) => api.operations).find((op) => op.iid === 'events.watch');
    expect(watch).toBeDefined();
    expect(watch?.callbacks).toBeUndefined();
  });
});

describe('resolveSpecDir', () => {
  it.each<[string, string | undefined, Record<string, string>, string]>([
    ['the --specs option first', '/from/option', { GSPEC_MOCK_SPECS: '/from/env' }, '/from/option'],
    ['then GSPEC_MOCK_SPECS', undefined, { GSPEC_MOCK_SPECS: '/from/env' }, '/from/env'],
    ['else the bundled specs', undefined, {}, specDir],
  ])('takes %s', (_title, option, env, want) => {
    expect(resolveSpecDir(option, env)).toBe(want);
  });
});
