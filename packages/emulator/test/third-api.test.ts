/**
 * The module interface is enough for a third API (README, Architecture): a small notes API
 * given only as an `ApiModule` and its spec is served beside the two real ones, with its own
 * store, its part of the state (dumped, checked and loaded), its part of the seed file, its
 * first-use start for a user, its table in the `--persist` database, and its page in the web
 * inspector (a tab, its script and style, drawing its view, in Chromium); the core and the
 * inspector's UI are not touched. The notes API is this test's own, not a Google API.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { haveChromium, launchChromium } from '@gspec/scripts/chromium';
import { chromium } from 'playwright-core';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { API_MODULES } from '../src/apis/index.ts';
import type { AnyApiModule, ApiModule } from '../src/core/api-module.ts';
import { refusal, refuse } from '../src/core/errors.ts';

// A third API declares its refusals as the two do, each with its evidence (decision 0054).
const TEXT_REQUIRED = refusal({
  id: 'notes.textRequired',
  scope: 'notes',
  operations: ['notes.insert'],
  status: 400,
  reason: 'required',
  location: 'text',
  when: 'a note without text',
  evidence: ['decision:0054'],
});
const NOTE_NOT_FOUND = refusal({
  id: 'notes.noteNotFound',
  scope: 'notes',
  operations: ['notes.get'],
  status: 404,
  reason: 'notFound',
  when: 'a note id the caller has no note of',
  evidence: ['decision:0054'],
});

import { own } from '../src/core/own.ts';
import { applySeed, createSeedParser, SeedError } from '../src/core/seed.ts';
import { createEmulatorOf, type Emulator } from '../src/core/server.ts';
import { readApiSpec } from '../src/core/spec.ts';
import { nextRevision, type State } from '../src/core/state.ts';
import type { Store as CoreStore } from '../src/core/store.ts';

interface Note {
  id: string;
  owner: string;
  text: string;
  revision: number;
}

/** The notes store: the core's, with the notes part read through one view. */
class NotesStore {
  constructor(readonly core: CoreStore) {}
  get notes(): Record<string, Note> {
    return notesOf(this.core.state);
  }
}

/** The notes part of a state: made by `empty`, or checked by the state schema on load. */
const notesOf = (state: State) => state.notes as Record<string, Note>;

const NOTE = {
  type: 'object',
  required: ['text'],
  additionalProperties: false,
  properties: { text: { type: 'string', minLength: 1 } },
};

const spec = readApiSpec(
  {
    openapi: '3.1.0',
    info: { title: 'Notes', version: '1' },
    servers: [{ url: 'https://notes.example.com/notes/v1' }],
    components: {
      schemas: {
        NoteInput: NOTE,
        Note: {
          type: 'object',
          required: ['id', 'text', 'owner'],
          properties: { id: { type: 'string' }, text: { type: 'string' }, owner: { type: 'string' } },
        },
      },
    },
    paths: {
      '/notes': {
        post: {
          operationId: 'notes.insert',
          'x-quota-cost': 1,
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/NoteInput' } } },
          },
          responses: { '200': { description: 'the note' } },
        },
      },
      '/notes/{id}': {
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        get: {
          operationId: 'notes.get',
          'x-quota-cost': 1,
          responses: { '200': { description: 'the note' } },
        },
      },
    },
  },
  'notes.json',
);

const answer = ({ id, owner, text }: Note) => ({ id, owner, text });

const dir = mkdtempSync(path.join(tmpdir(), 'gspec-emulator-third-api-'));
/** The notes API's page in the inspector: a module that draws its notes with the inspector's kit. */
const pageScript = path.join(dir, 'notes-page.js');
writeFileSync(
  pageScript,
  `import { getJson, h, main } from '../../ui/kit.js';
export async function render() {
  const { notes } = await getJson('/apis/notes/notes');
  main.replaceChildren(
    h('h2', {}, 'Notes'),
    h('ul', { id: 'notes-list' }, ...notes.map((note) =>
      h('li', { 'data-id': note.id }, h('span', { class: 'note-text' }, note.text), ' by ', note.owner))),
  );
}
`,
);

const notesApi: ApiModule<NotesStore> = {
  name: 'notes',
  title: 'Notes API',
  handlers: {
    'notes.insert'(context) {
      const { text } = context.request.body ?? {};
      if (typeof text !== 'string') throw refuse(TEXT_REQUIRED, 'text is required', { location: 'text' });
      const id = `n${Object.keys(context.store.notes).length + 1}`;
      const note = { id, owner: context.user.email, text, revision: nextRevision(context.store.core.state) };
      context.store.notes[id] = note;
      return { body: answer(note) };
    },
    'notes.get'(context) {
      const note = own(context.store.notes, context.request.path.id ?? '');
      if (!note || note.owner !== context.user.email) throw refuse(NOTE_NOT_FOUND, 'Not Found');
      return { body: answer(note) };
    },
  },
  createStore: (core) => new NotesStore(core),
  // Every new user starts with a welcome note.
  startUser(store, user) {
    const id = `welcome-${user.email}`;
    store.notes[id] = { id, owner: user.email, text: 'Welcome', revision: nextRevision(store.core.state) };
  },
  storage() {
    return {
      name: 'notes',
      schema: [[{ name: 'notes_notes', key: ['id'] }]],
      load(rows, state, parse) {
        const notes: Record<string, Note> = {};
        for (const [id = '', body] of rows.scan('notes_notes')) notes[id] = parse(body, 'notes_notes', id);
        state.notes = notes;
      },
      writeAll(rows, state) {
        for (const note of Object.values(notesOf(state)))
          rows.put('notes_notes', [note.id], JSON.stringify(note));
      },
      writeChanges(rows, state, since) {
        for (const note of Object.values(notesOf(state)))
          if (note.revision > since) rows.put('notes_notes', [note.id], JSON.stringify(note));
      },
      committed: () => undefined,
    };
  },
  state: {
    schema: {
      type: 'object',
      additionalProperties: {
        type: 'object',
        required: ['id', 'owner', 'text', 'revision'],
        additionalProperties: false,
        properties: {
          id: { type: 'string' },
          owner: { type: 'string' },
          text: { type: 'string' },
          revision: { type: 'integer', minimum: 0 },
        },
      },
    },
    empty: () => ({}),
    check(state, fail) {
      for (const [key, note] of Object.entries(notesOf(state))) {
        if (note.id !== key) fail(`/notes/${key}/id: must be the key, ${key}`);
        if (!state.users[note.owner]) fail(`/notes/${key}/owner: no user ${note.owner}`);
      }
    },
  },
  seed: {
    properties: { notes: { type: 'array', items: { type: 'object', required: ['owner', 'text'] } } },
    apply({ invoke }, seed, at) {
      const notes = (seed.notes ?? []) as { owner: string; text: string }[];
      notes.forEach((note, i) => {
        at(`notes[${i}]`);
        invoke(note.owner, 'notes.insert', { body: { text: note.text } });
      });
    },
  },
  rateLimitStatus: 429,
  // Its view of the state for the inspector, and its page there: the page's script is a file of
  // its own (written below), as a third API's outside this package would give it.
  inspect: {
    notes: ({ store }) => ({
      notes: Object.values(store.notes)
        .map(answer)
        .sort((a, b) => a.id.localeCompare(b.id)),
    }),
  },
  page: { label: 'Notes', style: '.note-text { font-style: italic; }', script: pathToFileURL(pageScript) },
};

const MODULES: readonly AnyApiModule[] = [...API_MODULES, notesApi];
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const running: Emulator[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((emulator) => emulator.close()));
});

async function start(persist?: string) {
  const emulator = createEmulatorOf(MODULES, { specs: { notes: spec }, ...(persist ? { persist } : {}) });
  running.push(emulator);
  const origin = await emulator.listen(0);
  const call = async (method: string, route: string, body?: unknown, token = 'ana@example.com') => {
    const response = await fetch(`${origin}${route}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: response.status === 204 ? undefined : await response.json() };
  };
  return { emulator, origin, call };
}

describe('a third API, given as a module', () => {
  it('is served at its base path beside the others, with its handlers, validation and store', async () => {
    const { call } = await start();
    const made = await call('POST', '/notes/v1/notes', { text: 'buy milk' });
    expect(made).toEqual({ status: 200, body: { id: 'n2', owner: 'ana@example.com', text: 'buy milk' } });
    expect(await call('GET', '/notes/v1/notes/n2')).toEqual(made);
    // The user's start: the notes API's welcome note, and Calendar's primary calendar.
    expect((await call('GET', '/notes/v1/notes/welcome-ana@example.com')).body.text).toBe('Welcome');
    expect((await call('GET', '/calendar/v3/calendars/primary')).body.id).toBe('ana@example.com');
    // The spec's schema is enforced before the handler.
    const refused = await call('POST', '/notes/v1/notes', { text: '' });
    expect(refused.status).toBe(400);
    expect((await call('GET', '/notes/v1/notes/n2', undefined, 'bo@example.com')).status).toBe(404);
    const health = await call('GET', '/__emulator/health');
    expect(health.body.apis.notes).toEqual({ basePath: '/notes/v1', operations: 2, notImplemented: [] });
  });

  it('its part of the state is dumped, checked and loaded with the rest', async () => {
    const { call } = await start();
    await call('POST', '/notes/v1/notes', { text: 'keep me' });
    const dump = (await call('GET', '/__emulator/state')).body;
    expect(dump.notes.n2).toMatchObject({ id: 'n2', text: 'keep me' });
    expect(dump.calendar.calendars['ana@example.com']).toBeDefined();
    expect((await call('POST', '/__emulator/reset')).status).toBe(204);
    expect((await call('GET', '/__emulator/state')).body.notes).toEqual({});
    expect((await call('PUT', '/__emulator/state', dump)).status).toBe(204);
    expect((await call('GET', '/notes/v1/notes/n2')).body.text).toBe('keep me');
    // Its schema and its own check refuse a bad part, naming the place.
    const broken = structuredClone(dump);
    broken.notes.n2.id = 'other';
    const refused = await call('PUT', '/__emulator/state', broken);
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toBe('invalid state: /notes/n2/id: must be the key, n2');
    const { notes, ...withoutNotes } = dump;
    expect(notes).toBeDefined();
    expect((await call('PUT', '/__emulator/state', withoutNotes)).body.error.message).toContain(
      "must have required property 'notes'",
    );
  });

  it('its part of the seed file is checked with the rest and written through its operations', async () => {
    const parser = createSeedParser(MODULES, { notes: spec });
    const seed = parser.parse({
      users: [{ email: 'cy@example.com', tokens: ['cy-token'] }],
      notes: [{ owner: 'cy@example.com', text: 'seeded' }],
      calendars: [{ owner: 'cy@example.com', summary: 'Work' }],
    });
    const { emulator, call } = await start();
    applySeed(emulator, seed);
    expect((await call('GET', '/notes/v1/notes/n2', undefined, 'cy@example.com')).body.text).toBe('seeded');
    expect(() => parser.parse({ notes: [{ text: 'no owner' }] }, 'seed.json')).toThrow(
      "seed.json: notes[0]: must have required property 'owner'",
    );
    const bad = parser.parse({ notes: [{ owner: 'cy@example.com', text: '' }] }, 'seed.json');
    expect(() => applySeed(emulator, bad, 'seed.json')).toThrow(SeedError);
    expect(() => applySeed(emulator, bad, 'seed.json')).toThrow(/^seed\.json: notes\[0\]: 400 /);
  });

  it('keeps its rows in its own table of the --persist database across a restart', async () => {
    const file = path.join(dir, 'notes.db');
    const first = await start(file);
    await first.call('POST', '/notes/v1/notes', { text: 'durable' });
    await first.emulator.close();
    running.splice(running.indexOf(first.emulator), 1);
    const second = await start(file);
    expect((await second.call('GET', '/notes/v1/notes/n2')).body.text).toBe('durable');
    expect(own(notesApiNotes(second.emulator), 'welcome-ana@example.com')?.text).toBe('Welcome');
  });
});

/** The notes of an emulator's state, through the API's own view. */
const notesApiNotes = (emulator: Emulator) => notesOf(emulator.store.state);

describe.skipIf(!haveChromium())('a third API, its page in the inspector', () => {
  it('gets a tab of its own, its script and style served, drawing its view, with no core or UI file changed', async () => {
    const { origin, call } = await start();
    await call('POST', '/notes/v1/notes', { text: 'water the plants' });
    const listed = await call('GET', '/__emulator/apis');
    expect(listed.body.apis).toContainEqual({
      name: 'notes',
      title: 'Notes API',
      views: ['notes'],
      page: { label: 'Notes' },
    });
    const browser = await launchChromium(chromium);
    try {
      const page = await browser.newPage();
      const errors: string[] = [];
      const elsewhere: string[] = [];
      page.on('pageerror', (error) => errors.push(String(error)));
      page.on('console', (message) => {
        if (message.type() === 'error') errors.push(message.text());
      });
      await page.route('**/*', (route) => {
        if (new URL(route.request().url()).origin === origin) return route.continue();
        elsewhere.push(route.request().url());
        return route.abort();
      });
      page.setDefaultTimeout(120_000);
      await page.goto(`${origin}/__emulator/ui/#/notes`);
      // The tab sits with the two APIs' tabs, before Notifications.
      await page.locator('nav a[data-view="notes"].active').waitFor();
      const tabs = await page.locator('nav a').evaluateAll((links) => links.map((a) => a.textContent));
      expect(tabs.indexOf('Notes')).toBeGreaterThan(tabs.indexOf('Search Ads 360'));
      expect(tabs.indexOf('Notes')).toBeLessThan(tabs.indexOf('Notifications'));
      const note = page.locator('#notes-list li[data-id="n2"]');
      await note.waitFor();
      expect(await note.textContent()).toBe('water the plants by ana@example.com');
      // The page's own style rule is in the inspector's style sheet.
      expect(await note.locator('.note-text').evaluate((e) => getComputedStyle(e).fontStyle)).toBe('italic');
      expect(errors).toEqual([]);
      expect(elsewhere).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
