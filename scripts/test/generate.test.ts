import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkReport, findDrift, type GeneratedFile, generateApi } from '../generate.ts';
import { listApis, repoRoot } from '../lib/apis.ts';

const script = path.join(repoRoot, 'scripts', 'generate.ts');
const tsx = path.join(repoRoot, 'node_modules', '.bin', 'tsx');
const apiNames = listApis().map((api) => api.name);
// One generation for the whole file (it is the expensive step); the check mode's logic is
// tested on it in-process, and the CLI is run once, as a user runs it.
let files: GeneratedFile[];

beforeAll(async () => {
  files = (await Promise.all(listApis().map(generateApi))).flat();
});

const copies: string[] = [];
afterAll(() => {
  for (const root of copies) rmSync(root, { recursive: true, force: true });
});

/** A copy of the committed generated files, to edit without touching the repository. */
function copyOfGenerated(): string {
  const root = mkdtempSync(path.join(tmpdir(), 'gspec-drift-'));
  copies.push(root);
  for (const { file } of files) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    cpSync(path.join(repoRoot, file), path.join(root, file));
  }
  return root;
}

describe('the generator', () => {
  it('writes the types, the operation table and the method types of every API into its client package, and its types and request types into the emulator', () => {
    expect(files.map((f) => f.file).sort()).toEqual(
      [
        'packages/calendar/src/generated/api.ts',
        'packages/calendar/src/generated/methods.ts',
        'packages/calendar/src/generated/schema.ts',
        'packages/calendar/src/generated/types.ts',
        'packages/searchads360/src/generated/api.ts',
        'packages/searchads360/src/generated/methods.ts',
        'packages/searchads360/src/generated/schema.ts',
        'packages/searchads360/src/generated/types.ts',
        'packages/emulator/src/apis/calendar/generated/requests.ts',
        'packages/emulator/src/apis/calendar/generated/types.ts',
        'packages/emulator/src/apis/searchads360/generated/requests.ts',
        'packages/emulator/src/apis/searchads360/generated/types.ts',
      ].sort(),
    );
  });

  it("types each emulator request as the validator delivers it: spec names, converted query values, the body's optionality", () => {
    const requests = content('packages/emulator/src/apis/calendar/generated/requests.ts');
    const declared = (name: string) =>
      requests.split(`export type ${name} = {\n`)[1]?.split('\n};\n')[0] ?? '';
    const list = declared('EventsListRequest');
    expect(list).toContain('    calendarId: string;');
    expect(list).toContain('    maxResults?: number;');
    expect(list).toContain('    showDeleted?: boolean;');
    expect(list).toMatch(/ {4}eventTypes\?: \("birthday" \| [^)]+\)\[\];/);
    // Headers keep their HTTP names (the client's arguments are camelCase).
    expect(list).toContain('    "If-None-Match"?: string;');
    expect(list).toContain('  body: undefined;');
    expect(declared('EventsInsertRequest')).toContain('  body: EventsInsertBody;');
    expect(requests).toContain('export interface EventsInsertBody extends EventInput {');
    expect(declared('EventsPatchRequest')).toContain('  body: EventPatchInput;');
    expect(requests).toContain('  "events.insert": EventsInsertRequest;');
    expect(content('packages/emulator/src/apis/calendar/generated/types.ts')).toBe(
      content('packages/calendar/src/generated/types.ts'),
    );
  });

  it('names every schema twice in types.ts: as returned, and as a request body takes it', () => {
    const types = files.find((f) => f.file.endsWith('calendar/src/generated/types.ts'))?.content ?? '';
    const declared = (name: string) =>
      types.split(`export interface ${name} {\n`)[1]?.split('\n}\n')[0] ?? '';
    expect(declared('Event')).toMatch(/Read-only: the service sets it\.\n {3}\*\/\n {2}etag\?: string;/);
    expect(declared('EventInput')).toContain('  summary?: string;');
    expect(declared('EventInput')).not.toMatch(/^ {2}(etag|created|htmlLink|kind|updated)\?:/m);
    // An input refers to the inputs of other schemas; a schema with nothing read-only is its own input.
    expect(declared('EventInput')).toContain('  attendees?: EventAttendeeInput[];');
    expect(types).toContain('export type EventDateTimeInput = EventDateTime;');
    const schema = files.find((f) => f.file.endsWith('calendar/src/generated/schema.ts'))?.content ?? '';
    expect(schema).not.toMatch(/^export type Event = /m);
  });

  it('starts every generated file with a do-not-edit header naming its spec', () => {
    for (const { file, content } of files) {
      expect(content.split('\n').slice(0, 4).join('\n'), file).toMatch(
        /Generated from specs\/\w+\/openapi\.yaml \(\w+@v\d\) by scripts\/generate\.ts\.\n \* Do not edit this file by hand/,
      );
    }
  });

  it('lists every operation of the spec in the operation table, each as an export of its own', () => {
    const calendar = files.find((f) => f.file.endsWith('calendar/src/generated/api.ts'))?.content ?? '';
    const ids = [...calendar.matchAll(/^ {2}"([a-zA-Z]+\.[a-zA-Z]+)": ([a-zA-Z]+),$/gm)].map((m) => [
      m[1],
      m[2],
    ]);
    expect(ids).toHaveLength(37);
    expect(ids).toContainEqual(['events.quickAdd', 'eventsQuickAdd']);
    expect(calendar).toContain(
      'export const eventsQuickAdd = ["events.quickAdd","POST","/calendars/{calendarId}/events/quickAdd"] as const;',
    );
  });

  it('makes no method and no path type of the batch endpoint (x-batch), which is not under the base URL', () => {
    const calendar = (name: string) =>
      files.find((f) => f.file.endsWith(`calendar/src/generated/${name}`))?.content;
    for (const name of ['api.ts', 'methods.ts', 'schema.ts']) {
      expect(calendar(name), name).toBeDefined();
      expect(calendar(name), name).not.toContain('batch.execute');
      expect(calendar(name), name).not.toContain('/batch/calendar/v3');
    }
  });
});

const content = (file: string) => files.find((f) => f.file === file)?.content ?? '';

/** The JSDoc and type of one resource method in a generated methods.ts. */
function methodOf(file: string, resource: string, name: string): string {
  const block = content(file).split(`\n  ${resource}: {\n`)[1]?.split('\n  };')[0] ?? '';
  const at = block.indexOf(`\n    ${name}: `);
  const end = block.indexOf('\n', at + 1);
  return block.slice(block.lastIndexOf('/**', at), end < 0 ? block.length : end);
}

/** The members of an interface of a generated file (`extends` names what it extends). */
function argsOf(file: string, name: string, extends_?: string): string {
  const opening = `export interface ${name}${extends_ ? ` extends ${extends_}` : ''} {\n`;
  expect(content(file)).toContain(opening);
  return content(file).split(opening)[1]?.split('\n}\n')[0] ?? '';
}

describe('the method layer', () => {
  const calendar = 'packages/calendar/src/generated/methods.ts';
  const searchAds = 'packages/searchads360/src/generated/methods.ts';

  it.each([
    [
      'a list with x-sync',
      calendar,
      'events',
      'list',
      'ConditionalMethod<EventsListArgs, Events> & Walkable<EventsListArgs, Events, Event, Omit<EventsListArgs, "syncToken" | "pageToken" | "fields" | "ifNoneMatch">, false>',
    ],
    [
      'a list with x-pagination only',
      calendar,
      'events',
      'instances',
      'ConditionalMethod<EventsInstancesArgs, Events> & Walkable<EventsInstancesArgs, Events, Event, never, false>',
    ],
    ['a read that can answer 304', calendar, 'events', 'get', 'ConditionalMethod<EventsGetArgs, Event>'],
    ['a write', calendar, 'events', 'insert', 'MaskedMethod<EventsInsertArgs, Event>'],
    [
      'an operation whose argument may be left out',
      calendar,
      'colors',
      'get',
      'MaskedMethodOptionalArgs<ColorsGetArgs, Colors>',
    ],
    [
      'a file download (no fields mask)',
      searchAds,
      'reports',
      'getIdMappingFile',
      'Method<ReportsGetIdMappingFileArgs, string>',
    ],
    [
      'a Search Ads 360 batch',
      searchAds,
      'conversion',
      'insert',
      'MaskedMethodOptionalArgs<ConversionInsertArgs, ConversionList>',
    ],
  ])('types %s from its operationId', (_title, file, resource, name, type) => {
    expect(methodOf(file, resource, name)).toContain(`${name}: ${type};`);
  });

  it.each([
    [searchAds, 'conversion', 'get'],
    [searchAds, 'conversion', 'getByCustomerId'],
  ])('marks %s %s.%s @deprecated with the x-deprecation quarter and replacement', (file, resource, name) => {
    expect(methodOf(file, resource, name)).toMatch(
      /@deprecated Since 2025-Q3\. Use the conversion resource of the Search Ads 360 Reporting API: /,
    );
  });

  it('marks no current operation deprecated, and the deprecated parameters', () => {
    const resources = (file: string) => content(file).split('export interface ResourceMethods {')[1] ?? '';
    expect(resources(calendar)).not.toContain('@deprecated');
    expect(resources(searchAds).match(/@deprecated/g)).toHaveLength(2);
    expect(argsOf(calendar, 'EventsInsertArgs', 'EventsInsertBody')).toMatch(
      /@deprecated\n {3}\*\/\n {2}sendNotifications\?: boolean;/,
    );
  });

  it('gives the list methods of a client of every operation their walks as properties', () => {
    expect(argsOf(calendar, 'Resources')).toContain(
      '  events: ResourceMethods["events"] & {\n    instances: Paged<EventsInstancesArgs, Events, Event>;\n    list: Paged<EventsListArgs, Events, Event> & Syncing<Omit<EventsListArgs, "syncToken" | "pageToken" | "fields" | "ifNoneMatch">, Event>;\n  };',
    );
    expect(argsOf(calendar, 'Resources')).toContain('  colors: ResourceMethods["colors"];');
  });

  it('merges path, query, header and body parameters into one named argument interface', () => {
    // The argument takes the event as read back (decision 0060); the body type still requires start and end.
    const update = argsOf(calendar, 'EventsUpdateArgs', 'EventInput');
    expect(update).toMatch(/^ {2}calendarId: string;$/m);
    expect(update).toMatch(/^ {2}eventId: string;$/m);
    expect(update).toMatch(/^ {2}ifMatch\?: string;$/m);
    expect(content(calendar)).toContain(
      '  "events.update": { args: EventsUpdateArgs; body: EventsUpdateBody; answer: Event };',
    );
  });

  it('carries x-pagination, x-sync, the body and text answers into the operation table, in the form the runtime reads', () => {
    const api = content('packages/calendar/src/generated/api.ts');
    // A list that syncs: the parameters the service refuses with a sync token.
    expect(api).toContain(
      'export const eventsList = ["events.list","GET","/calendars/{calendarId}/events",0,["iCalUID","orderBy",',
    );
    // A list that does not sync; a body with its query parameters other than the standard ones.
    expect(api).toContain(
      'export const eventsInstances = ["events.instances","GET","/calendars/{calendarId}/events/{eventId}/instances",0,1] as const;',
    );
    expect(api).toContain(
      'export const aclInsert = ["acl.insert","POST","/calendars/{calendarId}/acl",["sendNotifications"]] as const;',
    );
    expect(content('packages/searchads360/src/generated/api.ts')).toContain(
      '"/agency/{agencyId}/advertiser/{advertiserId}/idmapping",0,0,1] as const;',
    );
  });

  it('gives an operation that requires more than its schema a body type of its own', () => {
    expect(argsOf(calendar, 'EventsInsertBody', 'EventInput')).toMatch(
      /^ {2}start: EventDateTime;\n[\s\S]*^ {2}end: EventDateTime;$/m,
    );
    expect(content(calendar)).toContain(
      '  "calendarList.update": { args: CalendarListUpdateArgs; body: CalendarListEntryInput;',
    );
  });

  it('makes the fields an allOf member requires required in the request type of the raw client', () => {
    expect(content('packages/calendar/src/generated/schema.ts')).toContain(
      '"application/json": WithRequired<components["schemas"]["Event"], "start" | "end">;',
    );
  });
});

/** A one-operation spec, in a folder of its own, as an ApiEntry the generator takes. */
function tinySpec(edit: (op: Record<string, unknown>, spec: Record<string, unknown>) => void) {
  const dir = mkdtempSync(path.join(tmpdir(), 'gspec-tiny-'));
  copies.push(dir);
  const page = {
    type: 'object',
    properties: { items: { type: 'array', items: { type: 'string' } }, nextPageToken: { type: 'string' } },
  };
  const op: Record<string, unknown> = {
    operationId: 'things.list',
    summary: 'List things',
    parameters: [
      { name: 'pageToken', in: 'query', schema: { type: 'string' } },
      { name: 'fields', in: 'query', schema: { type: 'string' } },
    ],
    'x-pagination': {
      pageTokenParameter: 'pageToken',
      nextPageTokenField: 'nextPageToken',
      itemsField: 'items',
    },
    responses: { '200': { description: 'ok', content: { 'application/json': { schema: page } } } },
  };
  const spec: Record<string, unknown> = {
    openapi: '3.1.0',
    info: { title: 'Tiny', version: 'v1' },
    servers: [{ url: 'https://example.test/tiny/v1' }],
    paths: { '/things': { get: op } },
  };
  edit(op, spec);
  writeFileSync(path.join(dir, 'openapi.json'), JSON.stringify(spec));
  return { name: 'tiny@v1', id: 'tiny', version: 'v1', root: path.join(dir, 'openapi.json'), clientDir: dir };
}

describe('specs the operation table cannot describe', () => {
  it('generates the table of a spec that keeps its conventions', async () => {
    const generated = await generateApi(tinySpec(() => {}));
    expect(generated.find((f) => f.file.endsWith('api.ts'))?.content).toContain(
      'export const thingsList = ["things.list","GET","/things",0,1] as const;',
    );
  });

  it.each<[string, (op: Record<string, unknown>, spec: Record<string, unknown>) => void, string]>([
    [
      'a header parameter other than If-Match and If-None-Match',
      (op) =>
        (op.parameters as unknown[]).push({ name: 'X-Goog-Thing', in: 'header', schema: { type: 'string' } }),
      'tiny@v1: things.list: header parameter "X-Goog-Thing" is not one the runtime sends (If-Match, If-None-Match)',
    ],
    [
      'x-pagination with another page token name',
      (op) => {
        op['x-pagination'] = {
          pageTokenParameter: 'cursor',
          nextPageTokenField: 'nextPageToken',
          itemsField: 'items',
        };
      },
      'tiny@v1: things.list: x-pagination must name pageTokenParameter "pageToken", as the runtime\'s walks read it; it names "cursor"',
    ],
    [
      'x-pagination with another items field',
      (op) => {
        op['x-pagination'] = {
          pageTokenParameter: 'pageToken',
          nextPageTokenField: 'nextPageToken',
          itemsField: 'entries',
        };
      },
      'x-pagination must name itemsField "items"',
    ],
    [
      'x-sync with another next sync token field',
      (op) => {
        (op.parameters as unknown[]).push({ name: 'syncToken', in: 'query', schema: { type: 'string' } });
        op['x-sync'] = { syncTokenParameter: 'syncToken', nextSyncTokenField: 'next' };
      },
      'x-sync must name nextSyncTokenField "nextSyncToken"',
    ],
    [
      'x-pagination without a pageToken query parameter',
      (op) => {
        op.parameters = [];
      },
      'tiny@v1: things.list: x-pagination needs the query parameter pageToken',
    ],
    [
      'a body field named as a standard query parameter',
      (op, spec) => {
        delete op['x-pagination'];
        (spec.paths as Record<string, unknown>)['/things'] = {
          post: {
            ...op,
            requestBody: {
              content: {
                'application/json': {
                  schema: { type: 'object', properties: { quotaUser: { type: 'string' } } },
                },
              },
            },
          },
        };
      },
      'body field(s) quotaUser have the name of a parameter',
    ],
    [
      'a query parameter with the name the runtime gives a header',
      (op) => (op.parameters as unknown[]).push({ name: 'ifMatch', in: 'query', schema: { type: 'string' } }),
      'tiny@v1: GET /things: the query parameter "ifMatch" has the name the runtime gives the If-Match header',
    ],
    [
      'an operation whose export would take a name the package uses',
      (op) => {
        op.operationId = 'googleAuth';
        delete op['x-pagination'];
      },
      'tiny@v1: googleAuth: its export would be named googleAuth, which is not free',
    ],
  ])('refuses %s, naming the operation and the convention', async (_title, edit, want) => {
    await expect(generateApi(tinySpec(edit))).rejects.toThrow(want);
  });
});

describe('the check mode', () => {
  it('passes on the committed generated files: this run produced their bytes', () => {
    expect(findDrift(files)).toEqual([]);
    expect(checkReport(files, apiNames)).toEqual({
      code: 0,
      stdout: `generated files are up to date (12 files, ${apiNames.join(', ')})`,
      stderr: '',
    });
  });

  it.each([
    [
      'edited by hand',
      (text: string) => text.replace('export interface paths {', 'export interface paths {\n    // tweak'),
    ],
    ['deleted', undefined],
    [
      'a methods.ts edited by hand',
      (text: string) =>
        text.replace('export interface Resources {', 'export interface Resources {\n  // tweak'),
      'methods.ts',
    ],
  ])('fails, naming the file, when a generated file is %s', (_how, edit, name = 'schema.ts') => {
    const root = copyOfGenerated();
    const target = path.join(root, `packages/calendar/src/generated/${name}`);
    if (edit) writeFileSync(target, edit(readFileSync(target, 'utf8')));
    else rmSync(target);
    const report = checkReport(files, apiNames, root);
    expect(report.code).toBe(1);
    expect(report.stderr).toContain(`packages/calendar/src/generated/${name}`);
    expect(report.stderr).toContain('npm run generate');
    expect(report.stderr).not.toContain('packages/searchads360');
  });

  it('runs as `generate.ts --check`: exit 1 and the drifted file named, every other file regenerated to the same bytes in a process of its own', () => {
    const root = copyOfGenerated();
    const target = path.join(root, 'packages/searchads360/src/generated/api.ts');
    writeFileSync(target, `${readFileSync(target, 'utf8')}// tweak\n`);
    // A hang guard: a synchronous child cannot be interrupted by the test's own time limit.
    const result = spawnSync(tsx, [script, '--check', '--root', root], {
      encoding: 'utf8',
      cwd: repoRoot,
      timeout: 240_000,
    });
    expect(result.status, result.stderr).toBe(1);
    expect(result.stderr).toContain(
      'Generated files differ from what the specs produce:\n  packages/searchads360/src/generated/api.ts\n',
    );
    expect(result.stderr.match(/src\/generated\//g)).toHaveLength(1);
  });
});
