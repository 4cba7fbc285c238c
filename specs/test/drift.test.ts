/**
 * `gspec-specs drift` (src/cli.ts, src/drift.ts): our specs against Discovery documents built
 * from the reference facts (test/support/facts-discovery.ts), never Google's own and never the
 * network. What it must find, what it must leave alone, the deliberate differences of
 * drift-allowed.json, and the command from its built file.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type AllowedEntry, applyAllowed, checkAllowed, placeMatches, readAllowed } from '../src/allowed.ts';
import { checkDiscovery, discoveryModel, InputError, parseDiscovery, readSource } from '../src/discovery.ts';
import { compareApis, type Difference } from '../src/drift.ts';
import { openApiModel } from '../src/openapi.ts';
import { discoveryFromFacts, type FactsApi } from './support/facts-discovery.ts';

// biome-ignore lint/suspicious/noExplicitAny: Discovery documents are walked and changed freely here.
type Json = Record<string, any>;

const specsDir = path.resolve(import.meta.dirname, '..');
const repoRoot = path.resolve(specsDir, '..');
const cli = path.join(specsDir, 'dist', 'cli.js');
const allowedPath = path.join(specsDir, 'drift-allowed.json');
const allowed = readAllowed(allowedPath);
const ourSpec = (api: FactsApi) =>
  openApiModel(JSON.parse(readFileSync(path.join(specsDir, 'dist', `${api}.json`), 'utf8')));

/** The differences left once drift-allowed.json is applied, as `kind at (aspect)` lines. */
function drift(
  api: FactsApi,
  doc: Json,
  checkStale: (entry: AllowedEntry) => boolean = (e) => e.only !== 'google',
) {
  checkDiscovery(doc, api);
  const differences = compareApis(discoveryModel(doc), ourSpec(api));
  const sorted = applyAllowed(differences, allowed[api] ?? [], checkStale);
  const line = (d: { kind: string; at: string; aspect?: string }) =>
    `${d.kind} ${d.at}${d.aspect ? ` (${d.aspect})` : ''}`;
  return { differences, reported: sorted.reported.map(line), stale: sorted.stale.map(line), sorted };
}

const clone = (doc: Json): Json => structuredClone(doc);
const calendarFacts = (): Json => discoveryFromFacts('calendar');
const searchAdsFacts = (): Json => discoveryFromFacts('searchads360');

describe('drift against Discovery documents built from the facts', () => {
  it.each(['calendar', 'searchads360'] as const)(
    'finds nothing in %s beyond the recorded differences',
    (api) => {
      const result = drift(api, discoveryFromFacts(api));
      expect(result.reported).toEqual([]);
      expect(result.stale).toEqual([]);
      expect(result.differences.length).toBeGreaterThan(0);
    },
  );

  it("matches the entries of differences only Google's own document shows, once it shows them", () => {
    // What Google's document has and the facts left out, in shapes written here.
    const calendar = calendarFacts();
    const googleOnly = (allowed.calendar ?? []).filter((e) => e.only === 'google');
    const scopes = googleOnly
      .filter((e) => e.kind === 'scope added')
      .flatMap((e) =>
        e.at.filter((at) => at.startsWith('/scopes/')).map((at) => at.slice('/scopes/'.length)),
      );
    for (const scope of scopes) {
      calendar.auth.oauth2.scopes[scope] = { description: 'A finer scope.' };
      calendar.resources.events.methods.list.scopes.push(scope);
    }
    calendar.parameters = {
      fields: { location: 'query', type: 'string' },
      prettyPrint: { location: 'query', type: 'boolean', default: 'true' },
      quotaUser: { location: 'query', type: 'string' },
    };
    const all = () => true;
    expect(drift('calendar', calendar, all)).toMatchObject({ reported: [], stale: [] });

    const searchAds = searchAdsFacts();
    for (const method of ['generate', 'get', 'getFile', 'request'])
      searchAds.resources.reports.methods[method] = {
        id: `doubleclicksearch.reports.${method}`,
        httpMethod: method === 'get' || method === 'getFile' ? 'GET' : 'POST',
        path: `reports/${method}`,
        scopes: ['https://www.googleapis.com/auth/doubleclicksearch'],
      };
    searchAds.schemas.Report = { id: 'Report', type: 'object', properties: { id: { type: 'string' } } };
    searchAds.schemas.ReportRequest = { id: 'ReportRequest', type: 'object', properties: {} };
    searchAds.parameters = {
      alt: { location: 'query', type: 'string', enum: ['json', 'media', 'proto'], default: 'json' },
      quotaUser: { location: 'query', type: 'string' },
    };
    expect(drift('searchads360', searchAds, all)).toMatchObject({ reported: [], stale: [] });
  });

  it("reads Google's way of writing paths: the service path in each method, {+name} placeholders", () => {
    const doc = searchAdsFacts();
    doc.servicePath = '';
    for (const resource of Object.values<Json>(doc.resources))
      for (const method of Object.values<Json>(resource.methods))
        method.path = `doubleclicksearch/v2/${method.path.replace('{customerId}', '{+customerId}')}`;
    expect(drift('searchads360', doc).reported).toEqual([]);
  });
});

/** A mutation of a Discovery document and the one difference it must bring. */
interface Mutation {
  api: FactsApi;
  change: (doc: Json) => void;
  want: string[];
}

const events = (doc: Json) => doc.resources.events.methods;
const CAL = 'https://www.googleapis.com/auth/calendar';

const mutations: [string, Mutation][] = [
  [
    'a new operation',
    {
      api: 'calendar',
      change: (doc) => {
        events(doc).archive = {
          id: 'calendar.events.archive',
          httpMethod: 'POST',
          path: 'calendars/{calendarId}/events/{eventId}/archive',
          parameters: { calendarId: { location: 'path', required: true, type: 'string' } },
          scopes: [CAL],
        };
      },
      want: ['operation added /operations/events.archive'],
    },
  ],
  [
    'an operation gone from the document',
    {
      api: 'calendar',
      change: (doc) => delete doc.resources.colors,
      want: ['operation removed /operations/colors.get'],
    },
  ],
  [
    'a changed method',
    {
      api: 'calendar',
      change: (doc) => {
        events(doc).move.httpMethod = 'PUT';
      },
      want: ['operation changed /operations/events.move (method)'],
    },
  ],
  [
    'a changed path',
    {
      api: 'calendar',
      change: (doc) => {
        events(doc).quickAdd.path = 'calendars/{calendarId}/events/quick';
      },
      want: ['operation changed /operations/events.quickAdd (path)'],
    },
  ],
  [
    'a new parameter',
    {
      api: 'calendar',
      change: (doc) => {
        events(doc).get.parameters.locale = { location: 'query', type: 'string' };
      },
      want: ['parameter added /operations/events.get/parameters/locale'],
    },
  ],
  [
    'a removed parameter',
    {
      api: 'calendar',
      change: (doc) => delete events(doc).list.parameters.q,
      want: ['parameter removed /operations/events.list/parameters/q'],
    },
  ],
  [
    'a changed parameter enum',
    {
      api: 'calendar',
      change: (doc) => {
        events(doc).list.parameters.orderBy.enum.push('created');
      },
      want: ['parameter changed /operations/events.list/parameters/orderBy (enum)'],
    },
  ],
  [
    'a changed parameter type',
    {
      api: 'calendar',
      change: (doc) => {
        events(doc).list.parameters.maxResults.type = 'string';
      },
      want: ['parameter changed /operations/events.list/parameters/maxResults (type)'],
    },
  ],
  [
    'a parameter that became required',
    {
      api: 'calendar',
      change: (doc) => {
        events(doc).list.parameters.timeZone.required = true;
      },
      want: ['parameter changed /operations/events.list/parameters/timeZone (required)'],
    },
  ],
  [
    'a parameter that may be repeated no more',
    {
      api: 'calendar',
      change: (doc) => {
        delete events(doc).list.parameters.privateExtendedProperty.repeated;
      },
      want: ['parameter changed /operations/events.list/parameters/privateExtendedProperty (repeated)'],
    },
  ],
  [
    'a parameter format Google states and we do not follow',
    {
      api: 'searchads360',
      change: (doc) => {
        doc.resources.conversion.methods.get.parameters.startRow.format = 'uint32';
      },
      want: ['parameter changed /operations/conversion.get/parameters/startRow (format)'],
    },
  ],
  [
    'a parameter default Google states and we do not follow',
    {
      api: 'calendar',
      change: (doc) => {
        events(doc).list.parameters.singleEvents.default = 'true';
      },
      want: ['parameter changed /operations/events.list/parameters/singleEvents (default)'],
    },
  ],
  [
    'a changed property enum',
    {
      api: 'searchads360',
      change: (doc) => {
        doc.schemas.Conversion.properties.adUserDataConsent.enum.push('PARTIAL');
      },
      want: ['property changed /schemas/Conversion/properties/adUserDataConsent (enum)'],
    },
  ],
  [
    'a changed property type',
    {
      api: 'calendar',
      change: (doc) => {
        doc.schemas.Event.properties.sequence.type = 'string';
      },
      want: ['property changed /schemas/Event/properties/sequence (type)'],
    },
  ],
  [
    'a changed property format',
    {
      api: 'searchads360',
      change: (doc) => {
        doc.schemas.CustomMetric.properties.value.format = 'float';
      },
      want: ['property changed /schemas/CustomMetric/properties/value (format)'],
    },
  ],
  [
    'a property Google marks read-only and we do not',
    {
      api: 'calendar',
      change: (doc) => {
        doc.schemas.Event.properties.summary.readOnly = true;
      },
      want: ['property changed /schemas/Event/properties/summary (readOnly)'],
    },
  ],
  [
    'a new property',
    {
      api: 'calendar',
      change: (doc) => {
        doc.schemas.Event.properties.workspaceLabel = { type: 'string' };
      },
      want: ['property added /schemas/Event/properties/workspaceLabel'],
    },
  ],
  [
    'a new property inside a nested object',
    {
      api: 'calendar',
      change: (doc) => {
        doc.schemas.Event.properties.creator.properties.photo = { type: 'string' };
      },
      want: ['property added /schemas/Event/properties/creator/properties/photo'],
    },
  ],
  [
    'a property gone from the document',
    {
      api: 'searchads360',
      change: (doc) => delete doc.schemas.Conversion.properties.storeId,
      want: ['property removed /schemas/Conversion/properties/storeId'],
    },
  ],
  [
    'changed array items',
    {
      api: 'calendar',
      change: (doc) => {
        doc.schemas.Event.properties.recurrence.items = { type: 'integer' };
      },
      want: ['property changed /schemas/Event/properties/recurrence/items (type)'],
    },
  ],
  [
    'changed map values',
    {
      api: 'calendar',
      change: (doc) => {
        doc.schemas.Colors.properties.event.additionalProperties = { $ref: 'EventReminder' };
      },
      want: ['property changed /schemas/Colors/properties/event/additionalProperties ($ref)'],
    },
  ],
  [
    'a new schema',
    {
      api: 'calendar',
      change: (doc) => {
        doc.schemas.EventLabel = { id: 'EventLabel', type: 'object', properties: {} };
      },
      want: ['schema added /schemas/EventLabel'],
    },
  ],
  [
    'a schema gone from the document',
    {
      api: 'calendar',
      change: (doc) => delete doc.schemas.FreeBusyGroup,
      want: ['schema removed /schemas/FreeBusyGroup'],
    },
  ],
  [
    'a changed request schema',
    {
      api: 'calendar',
      change: (doc) => {
        doc.resources.freebusy.methods.query.request.$ref = 'Channel';
      },
      want: ['request schema changed /operations/freebusy.query/request (schema)'],
    },
  ],
  [
    'a changed answer schema',
    {
      api: 'calendar',
      change: (doc) => {
        doc.resources.colors.methods.get.response.$ref = 'Setting';
      },
      want: ['response schema changed /operations/colors.get/response (schema)'],
    },
  ],
  [
    'a removed scope of an operation',
    {
      api: 'calendar',
      change: (doc) => {
        const get = doc.resources.colors.methods.get;
        get.scopes = get.scopes.filter((s: string) => s !== `${CAL}.readonly`);
      },
      want: [`scope removed /operations/colors.get/scopes/${CAL}.readonly`],
    },
  ],
  [
    'a removed scope of the document',
    {
      api: 'searchads360',
      change: (doc) => {
        doc.auth.oauth2.scopes = {};
      },
      want: ['scope removed /scopes/https://www.googleapis.com/auth/doubleclicksearch'],
    },
  ],
  [
    'a new scope',
    {
      api: 'calendar',
      change: (doc) => {
        doc.auth.oauth2.scopes[`${CAL}.tasks`] = {};
      },
      want: [`scope added /scopes/${CAL}.tasks`],
    },
  ],
];

describe('each kind of change is reported', () => {
  it.each(mutations)('%s', (_title, { api, change, want }) => {
    const doc = clone(discoveryFromFacts(api));
    change(doc);
    expect(drift(api, doc).reported).toEqual(want);
  });

  it('reports a body field Google now requires for a method, where we do not', () => {
    // Discovery says it on the field: annotations.required names the methods.
    const doc = clone(calendarFacts());
    doc.schemas.FreeBusyRequest.properties.timeZone.annotations = { required: ['calendar.freebusy.query'] };
    expect(drift('calendar', doc).reported).toEqual([
      'request schema changed /operations/freebusy.query/request (required)',
    ]);
  });

  it('names each difference with what Google says and what we say', () => {
    const doc = clone(calendarFacts());
    events(doc).list.parameters.orderBy.enum.push('created');
    const [difference] = drift('calendar', doc).sorted.reported as [Difference];
    expect(difference).toEqual({
      kind: 'parameter changed',
      at: '/operations/events.list/parameters/orderBy',
      aspect: 'enum',
      expected: ['created', 'startTime', 'updated'],
      ours: ['startTime', 'updated'],
    });
  });
});

describe('what churns is never compared', () => {
  it.each([
    ['the revision and etag', (doc: Json) => Object.assign(doc, { revision: '20991231', etag: '"xyz"' })],
    [
      'titles, links, icons and the batch path',
      (doc: Json) =>
        Object.assign(doc, {
          title: 'Another title',
          documentationLink: 'https://example.com/docs',
          icons: { x16: 'https://example.com/16.png' },
          batchPath: 'batch/elsewhere',
          ownerName: 'Someone',
        }),
    ],
    [
      'every description',
      (doc: Json) => {
        const schema = (node: Json | undefined) => {
          if (!node) return;
          node.description = 'Written anew.';
          for (const child of Object.values<Json>(node.properties ?? {})) schema(child);
          schema(node.items);
          schema(node.additionalProperties);
        };
        doc.description = 'Written anew.';
        for (const resource of Object.values<Json>(doc.resources)) {
          resource.description = 'Written anew.';
          for (const method of Object.values<Json>(resource.methods)) {
            method.description = 'Written anew.';
            for (const parameter of Object.values<Json>(method.parameters ?? {}))
              parameter.description = 'Written anew.';
          }
        }
        for (const node of Object.values<Json>(doc.schemas)) schema(node);
        for (const scope of Object.values<Json>(doc.auth.oauth2.scopes)) scope.description = 'Written anew.';
      },
    ],
    [
      'the order of methods, parameters, properties and scopes',
      (doc: Json) => {
        const reverse = (node: Json) => Object.fromEntries(Object.entries(node).reverse());
        for (const resource of Object.values<Json>(doc.resources)) {
          resource.methods = reverse(resource.methods);
          for (const method of Object.values<Json>(resource.methods)) {
            method.parameters = reverse(method.parameters);
            method.scopes?.reverse();
            method.parameterOrder?.reverse();
          }
        }
        for (const schema of Object.values<Json>(doc.schemas))
          if (schema.properties) schema.properties = reverse(schema.properties);
        doc.auth.oauth2.scopes = reverse(doc.auth.oauth2.scopes);
      },
    ],
  ])('%s', (_title, change) => {
    for (const api of ['calendar', 'searchads360'] as const) {
      const before = drift(api, discoveryFromFacts(api)).differences;
      const doc = clone(discoveryFromFacts(api));
      change(doc);
      expect(drift(api, doc).differences).toEqual(before);
    }
  });
});

describe('drift-allowed.json', () => {
  const entries = Object.entries(allowed).flatMap(([api, list]) => list.map((entry) => ({ api, entry })));

  it('has entries for both APIs only', () => {
    expect(Object.keys(allowed).sort()).toEqual(['calendar', 'searchads360']);
  });

  it.each(
    entries.map(
      ({ api, entry }) =>
        [`${api}: ${entry.kind}${entry.aspect ? ` (${entry.aspect})` : ''} ${entry.at[0]}`, entry] as const,
    ),
  )('%s cites a decision record that exists', (_title, entry) => {
    expect(existsSync(path.join(repoRoot, entry.decision)), entry.decision).toBe(true);
    expect(entry.reason.trim().length).toBeGreaterThan(20);
  });

  it('names each place once per kind and aspect', () => {
    const seen = entries.flatMap(({ api, entry }) =>
      entry.at.map((at) => `${api} ${entry.kind} ${entry.aspect ?? '*'} ${at}`),
    );
    expect(seen.length).toBe(new Set(seen).size);
  });

  it.each([
    [
      {
        calendar: [
          { kind: 'operation renamed', at: '/x', decision: 'docs/decisions/0001-a.md', reason: 'r' },
        ],
      },
      'calendar[0].kind',
    ],
    [
      { calendar: [{ kind: 'scope added', at: 'x', decision: 'docs/decisions/0001-a.md', reason: 'r' }] },
      'calendar[0].at',
    ],
    [
      { calendar: [{ kind: 'scope added', at: '/x', decision: '0001.md', reason: 'r' }] },
      'calendar[0].decision',
    ],
    [
      { calendar: [{ kind: 'scope added', at: '/x', decision: 'docs/decisions/0001-a.md', reason: ' ' }] },
      'calendar[0].reason',
    ],
    [
      {
        calendar: [
          { kind: 'scope added', at: '/x', decision: 'docs/decisions/0001-a.md', reason: 'r', only: 'live' },
        ],
      },
      'calendar[0].only',
    ],
    [{ calendar: {} }, '"calendar"'],
  ])('refuses a malformed file, naming the entry (%#)', (file, where) => {
    expect(() => checkAllowed(file, 'drift-allowed.json')).toThrow(
      new RegExp(`^drift-allowed\\.json: ${where.replace(/[[\].]/g, '\\$&')} `),
    );
  });

  it('reads * in a place as any text without a slash', () => {
    expect(
      placeMatches('/operations/*/scopes/https://x/y', '/operations/events.list/scopes/https://x/y'),
    ).toBe(true);
    expect(placeMatches('/schemas/Report*', '/schemas/ReportRequest')).toBe(true);
    expect(placeMatches('/schemas/Report*', '/schemas/Report/properties/id')).toBe(false);
    expect(placeMatches('/schemas/Report', '/schemas/ReportRequest')).toBe(false);
  });

  it('reports an entry that no longer matches a difference as stale', () => {
    const entry: AllowedEntry = {
      kind: 'property changed',
      at: ['/schemas/Event/properties/status', '/schemas/Event/properties/summary'],
      aspect: 'enum',
      decision: 'docs/decisions/0039-constraints-only-where-the-live-service-has-them.md',
      reason: 'test',
    };
    const difference: Difference = {
      kind: 'property changed',
      at: '/schemas/Event/properties/status',
      aspect: 'enum',
      expected: null,
      ours: ['confirmed'],
    };
    const sorted = applyAllowed([difference], [entry]);
    expect(sorted.reported).toEqual([]);
    expect(sorted.stale).toEqual([
      {
        kind: 'property changed',
        at: '/schemas/Event/properties/summary',
        aspect: 'enum',
        decision: entry.decision,
      },
    ]);
  });

  it('ships in the package next to the command', () => {
    const pack = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: specsDir,
      encoding: 'utf8',
    });
    expect(pack.status, pack.stderr).toBe(0);
    const files =
      (JSON.parse(pack.stdout) as { files: { path: string }[] }[])[0]?.files.map((f) => f.path) ?? [];
    expect(files).toEqual(
      expect.arrayContaining(['dist/drift-allowed.json', 'dist/cli.js', 'dist/drift.js']),
    );
    // The build's copy is the file itself.
    expect(readFileSync(path.join(specsDir, 'dist', 'drift-allowed.json'), 'utf8')).toBe(
      readFileSync(allowedPath, 'utf8'),
    );
    const manifest = JSON.parse(readFileSync(path.join(specsDir, 'package.json'), 'utf8'));
    expect(manifest.bin).toEqual({ 'gspec-specs': './dist/cli.js' });
  });
});

describe('reading a Discovery document', () => {
  it.each([
    ['[1, 2]', 'is not a Discovery document: is an array, not an object'],
    [
      '{"openapi": "3.1.0"}',
      'is not a Discovery document: has neither "kind": "discovery#restDescription" nor "discoveryVersion": "v1"',
    ],
    [
      '{"kind": "discovery#restDescription", "name": "calendar", "version": "v3"}',
      'has no resources and no methods',
    ],
    [
      '{"kind": "discovery#restDescription", "name": "calendar", "version": "v3", "resources": {"events": {"methods": {"list": {"id": "calendar.events.list", "path": "x"}}}}}',
      '/resources/events/methods/list/httpMethod is missing or not a string',
    ],
    [
      '{"kind": "discovery#restDescription", "name": "calendar", "version": "v3", "resources": {"events": {"methods": {"list": {"id": "a", "httpMethod": "GET", "path": "x", "parameters": {"q": {"location": "body"}}}}}}}',
      '/resources/events/methods/list/parameters/q/location is "body", not "path" or "query"',
    ],
    [
      '{"kind": "discovery#restDescription", "version": "v3", "methods": {}}',
      '/name is missing or not a string',
    ],
  ])('says what is wrong and where: %s', (text, message) => {
    expect(() => parseDiscovery(text, 'doc.json')).toThrow(InputError);
    expect(() => parseDiscovery(text, 'doc.json')).toThrow(message);
  });

  it('says a file is not JSON', () => {
    expect(() => parseDiscovery('{"kind": ', 'doc.json')).toThrow(/^doc\.json is not JSON: /);
  });

  const fakeFetch = (answer: () => Promise<Response>) => (() => answer()) as unknown as typeof fetch;

  it.each([
    [
      'a URL that does not answer in time',
      fakeFetch(() => Promise.reject(new DOMException('timed out', 'TimeoutError'))),
      'no answer from https://example.test/rest within 0.5 s',
    ],
    [
      'a URL that answers 404',
      fakeFetch(async () => new Response('nothing here', { status: 404, statusText: 'Not Found' })),
      'https://example.test/rest answered 404 Not Found',
    ],
    [
      'a host that cannot be reached',
      fakeFetch(() =>
        Promise.reject(Object.assign(new TypeError('fetch failed'), { cause: { code: 'ENOTFOUND' } })),
      ),
      'cannot fetch https://example.test/rest: ENOTFOUND',
    ],
  ])('fails clearly on %s', async (_title, fetch, message) => {
    await expect(readSource('https://example.test/rest', { fetch, timeoutMs: 500 })).rejects.toThrow(
      new InputError(message),
    );
  });

  it('reads the text of a URL that answers', async () => {
    const fetch = fakeFetch(async () => new Response('{"ok": true}', { status: 200 }));
    await expect(readSource('https://example.test/rest', { fetch })).resolves.toBe('{"ok": true}');
  });
});

describe('the command, from its built file', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'gspec-drift-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, content: unknown) => {
    const file = path.join(dir, name);
    writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
    return file;
  };
  const run = (...args: string[]) => {
    const result = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', timeout: 60_000 });
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  };
  const noStackTrace = (text: string) => expect(text).not.toMatch(/^\s+at /m);

  it.each(['calendar', 'searchads360'] as const)('exits 0 when %s has no unrecorded difference', (api) => {
    const result = run('drift', '--discovery', write(`${api}.json`, discoveryFromFacts(api)));
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toMatch(
      /no differences left \(\d+ deliberate differences recorded in drift-allowed\.json\)/,
    );
  });

  it('exits 1 and lists the differences by kind', () => {
    const doc = clone(calendarFacts());
    events(doc).list.parameters.orderBy.enum.push('created');
    doc.schemas.Event.properties.workspaceLabel = { type: 'string' };
    const result = run('drift', '--discovery', write('changed.json', doc), '--api', 'calendar');
    expect(result.status).toBe(1);
    expect(result.stdout).toContain('2 differences');
    expect(result.stdout).toContain(
      'parameter changed (1)\n  /operations/events.list/parameters/orderBy  enum: expected [created, startTime, updated], ours [startTime, updated]',
    );
    expect(result.stdout).toContain(
      'property added (1)\n  /schemas/Event/properties/workspaceLabel  expected string, ours (none)',
    );
  });

  it('prints a machine-readable list with --json', () => {
    const doc = clone(searchAdsFacts());
    doc.auth.oauth2.scopes = {};
    const result = run('drift', '--json', '--discovery', write('no-scope.json', doc));
    expect(result.status).toBe(1);
    const parsed = JSON.parse(result.stdout);
    expect(parsed).toMatchObject({
      api: 'searchads360',
      discovery: { name: 'doubleclicksearch', version: 'v2', revision: '20000101' },
      differences: [
        {
          kind: 'scope removed',
          at: '/scopes/https://www.googleapis.com/auth/doubleclicksearch',
          expected: null,
          ours: 'https://www.googleapis.com/auth/doubleclicksearch',
        },
      ],
    });
    expect(parsed.allowed).toBeGreaterThan(0);
  });

  it("warns about an entry Google's document no longer shows", () => {
    // Built from the facts, the calendar document lacks the finer scopes drift-allowed.json expects of Google's.
    const result = run('drift', '--discovery', write('calendar-stale.json', calendarFacts()));
    expect(result.status).toBe(0);
    expect(result.stderr).toContain(
      'gspec-specs drift: warning: stale entry in drift-allowed.json: scope added at /scopes/https://www.googleapis.com/auth/calendar.acls, backed by docs/decisions/0010-calendar-follows-the-live-service.md',
    );
  });

  it.each([
    [
      ['drift', '--discovery', '/no/such/file.json'],
      'gspec-specs drift: cannot read /no/such/file.json: no such file',
    ],
    [['drift', '--discovery', 'NOT_JSON'], 'is not JSON: '],
    [['drift', '--discovery', 'OPENAPI'], 'is not a Discovery document: has neither "kind"'],
    [
      ['drift', '--discovery', 'CALENDAR', '--api', 'searchads360'],
      'describes calendar v3, not doubleclicksearch v2 as --api searchads360 says',
    ],
    [
      ['drift', '--discovery', 'GMAIL'],
      'describes gmail v1; this package has specs of calendar v3 (calendar) and doubleclicksearch v2 (searchads360) only',
    ],
    [
      ['drift', '--discovery', 'CALENDAR', '--api', 'gmail'],
      '--api "gmail" is not one of calendar, searchads360',
    ],
    [['drift'], '--discovery FILE|URL is required'],
    [['drift', '--discovery'], '--discovery needs a value'],
    [
      ['drift', '--discovery', 'CALENDAR', '--verbose'],
      'unknown option --verbose (see gspec-specs drift --help)',
    ],
    [
      ['drift', '--discovery', 'CALENDAR', '--timout', '5'],
      'unknown option --timout; did you mean --timeout? (see gspec-specs drift --help)',
    ],
    [['drift', '--discover', 'CALENDAR'], 'unknown option --discover; did you mean --discovery?'],
    [['drfit'], 'gspec-specs: unknown command "drfit"; the only command is drift; did you mean drift?'],
    [
      ['drift', '--discovery', 'CALENDAR', '--timeout', 'soon'],
      '--timeout "soon" is not a number of seconds above 0',
    ],
    [['lint'], 'gspec-specs: unknown command "lint"; the only command is drift'],
  ])('exits 2 on bad input: %j', (args, message) => {
    const files: Record<string, string> = {
      NOT_JSON: write('not.json', '{"kind": "discovery#'),
      OPENAPI: write('openapi.json', { openapi: '3.1.0', paths: {} }),
      CALENDAR: write('calendar-input.json', calendarFacts()),
      GMAIL: write('gmail.json', { ...calendarFacts(), name: 'gmail', version: 'v1' }),
    };
    const result = run(...args.map((a) => files[a] ?? a));
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    noStackTrace(result.stderr);
  });

  it('prints its help', () => {
    const result = run('drift', '--help');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('usage: gspec-specs drift --discovery FILE|URL');
  });
});
