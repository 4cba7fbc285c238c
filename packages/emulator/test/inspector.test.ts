/**
 * The inspector's endpoints without a browser: the admin credential (the sign-in's session
 * cookie, the header), the journal's bound and its redaction of credentials, and the live
 * stream's readers (one that stops reading is dropped, one whose session ended too).
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../src/core/server.ts';
import { createEmulator } from '../src/emulator.ts';

const ADMIN = 'inspect-me-with-this-credential';
let emulator: Emulator;
let origin: string;

/** Asks `done` every few milliseconds until it holds: a wait, not a time limit. */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 2));
}

/** A delivery report of about 16 KiB, marked `mark-<n>` so a reader can tell how far it got. */
const delivery = (n: number) => ({
  channelId: `mark-${n}`,
  address: 'https://receiver.example.com/hook',
  resourceUri: '',
  resourceId: '',
  state: 'exists',
  number: n,
  attempt: 1,
  headers: {},
  error: 'x'.repeat(16 * 1024),
  durationMs: 0,
});

/**
 * Reads the live stream over fetch, as the page does: `reached(n)` settles once the event
 * marked `mark-<n>` is read, and fails if the stream ends first.
 */
async function readingReader(headers: Record<string, string>) {
  const abort = new AbortController();
  const response = await fetch(`${origin}/__emulator/stream`, { headers, signal: abort.signal });
  expect(response.status).toBe(200);
  const body = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let seen = -1;
  let ended = false;
  let waiting: { mark: number; resolve: () => void; reject: (error: Error) => void } | undefined;
  const settle = () => {
    if (waiting && seen >= waiting.mark) waiting.resolve();
    else if (waiting && ended) waiting.reject(new Error(`the stream ended at mark ${seen}`));
    else return;
    waiting = undefined;
  };
  (async () => {
    let tail = '';
    try {
      for (let read = await body.read(); !read.done; read = await body.read()) {
        const text = tail + decoder.decode(read.value, { stream: true });
        for (const mark of text.matchAll(/"channelId":"mark-(\d+)"/g)) seen = Math.max(seen, Number(mark[1]));
        tail = text.slice(-40);
        settle();
      }
    } catch {
      // Aborted, or cut by the server: ended either way.
    }
    ended = true;
    settle();
  })();
  return {
    reached: (mark: number) =>
      new Promise<void>((resolve, reject) => {
        waiting = { mark, resolve, reject };
        settle();
      }),
    close: () => abort.abort(),
  };
}

/** Opens the live stream on a raw socket that never reads: paused from the start. */
function pausedReader(): Socket {
  const { host, port } = new URL(origin);
  const socket = connect(Number(port), '127.0.0.1');
  socket.pause();
  socket.write(
    `GET /__emulator/stream HTTP/1.1\r\nHost: ${host}\r\nX-Emulator-Admin-Token: ${ADMIN}\r\n\r\n`,
  );
  return socket;
}

describe('the inspector endpoints', () => {
  beforeAll(async () => {
    emulator = createEmulator({
      strict: true,
      users: { 'token-ana': 'ana@example.com' },
      admin: { token: ADMIN },
      inspector: { journal: { entries: 3, bodyCap: 40 } },
    });
    origin = await emulator.listen(0);
  });
  afterAll(() => emulator.close());

  it('shows its page to anyone, its data only with the admin credential: header or sign-in cookie', async () => {
    for (const path of ['/__emulator/journal', '/__emulator/stream', '/__emulator/users'])
      expect((await fetch(`${origin}${path}`)).status, path).toBe(401);
    // The page's files hold no state: they load, and the page asks for the credential.
    const page = await fetch(`${origin}/__emulator/ui/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    const session = (cookie?: string) =>
      fetch(`${origin}/__emulator/ui/session`, cookie ? { headers: { cookie } } : {}).then((r) => r.json());
    expect(await session()).toEqual({ required: true, configured: true, signedIn: false });
    const signIn = (token: unknown) =>
      fetch(`${origin}/__emulator/ui/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token }),
      });
    const wrong = await signIn('not-the-credential');
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('set-cookie')).toBeNull();
    expect((await signIn(42)).status).toBe(400);
    const signed = await signIn(ADMIN);
    expect(signed.status).toBe(204);
    const setCookie = signed.headers.get('set-cookie') ?? '';
    // The cookie names a session: 32 random bytes, never the credential.
    expect(setCookie).toMatch(/^gspec-admin=[A-Za-z0-9_-]{43};/);
    expect(setCookie).not.toContain(ADMIN);
    expect(setCookie).not.toContain(encodeURIComponent(ADMIN));
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Strict/);
    expect(setCookie).toMatch(/Path=\/__emulator(;|$)/);
    const cookie = setCookie.split(';')[0] as string;
    expect(await session(cookie)).toEqual({ required: true, configured: true, signedIn: true });
    expect((await fetch(`${origin}/__emulator/journal`, { headers: { cookie } })).status).toBe(200);
    expect(
      (await fetch(`${origin}/__emulator/journal`, { headers: { 'x-emulator-admin-token': ADMIN } })).status,
    ).toBe(200);
    // Each sign-in is a session of its own.
    const other = (await signIn(ADMIN)).headers.get('set-cookie')?.split(';')[0] as string;
    expect(other).not.toBe(cookie);
    // Signing out clears the cookie and ends the session: the old cookie, replayed, gets 401.
    const out = await fetch(`${origin}/__emulator/ui/session`, { method: 'DELETE', headers: { cookie } });
    expect(out.headers.get('set-cookie')).toMatch(/^gspec-admin=;.*Max-Age=0/);
    expect(await session(cookie)).toEqual({ required: true, configured: true, signedIn: false });
    for (const path of ['/__emulator/journal', '/__emulator/stream', '/__emulator/users'])
      expect((await fetch(`${origin}${path}`, { headers: { cookie } })).status, path).toBe(401);
    // The other session lives on.
    expect((await fetch(`${origin}/__emulator/journal`, { headers: { cookie: other } })).status).toBe(200);
    expect((await fetch(`${origin}/__emulator/health`)).status).toBe(200);
  });

  it("serves each API's page from the API's folder, lists its tab, and adds its style rules", async () => {
    const admin = { headers: { 'x-emulator-admin-token': ADMIN } };
    const { apis } = (await (await fetch(`${origin}/__emulator/apis`, admin)).json()) as {
      apis: { name: string; page: { label: string } | null }[];
    };
    expect(apis.map((api) => [api.name, api.page?.label])).toEqual([
      ['calendar', 'Calendar'],
      ['searchads360', 'Search Ads 360'],
    ]);
    const page = `${origin}/__emulator/ui/`;
    const app = new URL((/src="([^"]+)"/.exec(await (await fetch(page)).text()) ?? [])[1] ?? '', page);
    expect((await fetch(app)).status).toBe(200);
    for (const { name } of apis) {
      // Where app.js loads the page from.
      const at = new URL(`../apis/${name}/inspector-page.js`, app);
      const script = await fetch(at);
      expect(script.status, name).toBe(200);
      expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
      const text = await script.text();
      expect(text).toContain('export async function render()');
      // The import the served address resolves to the kit the page itself loaded.
      expect(text).toContain("from '../../ui/kit.js'");
      expect(new URL('../../ui/kit.js', at).href).toBe(new URL('kit.js', app).href);
    }
    for (const name of [
      'apis/nosuch/inspector-page',
      'apis/calendar/handlers',
      'apis/calendar/inspector-page.js%2F..%2Fhandlers',
      'apis/..%2Fcore/inspector-page',
      'core/store',
      'ui/..%2Fcore%2Fstore',
    ])
      expect((await fetch(`${origin}/__emulator/ui/js/${name}.js`)).status, name).toBe(404);
    const style = await (await fetch(`${origin}/__emulator/ui/style.css`)).text();
    expect(style).toContain('.week {');
    expect(style).toContain('.sa-detail {');
    expect(await (await fetch(page)).text()).not.toMatch(/data-view="(calendar|searchads360)"/);
  });

  it('keeps the last N requests, cuts bodies at the cap and never keeps a credential', async () => {
    const headers = { authorization: 'Bearer token-ana', 'content-type': 'application/json' };
    for (let i = 0; i < 4; i++)
      await fetch(`${origin}/calendar/v3/calendars`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ summary: `Calendar number ${i} with a long name to be cut` }),
      });
    await fetch(`${origin}/calendar/v3/colors?access_token=token-ana`);
    await fetch(`${origin}/calendar/v3/colors`, { headers: { authorization: 'Bearer unknown-token' } });
    const auth = { headers: { 'x-emulator-admin-token': ADMIN } };
    const journal = await (await fetch(`${origin}/__emulator/journal`, auth)).json();
    expect(
      journal.entries.map((e: { operationId: string; status: number }) => [e.operationId, e.status]),
    ).toEqual([
      ['calendars.insert', 200],
      ['colors.get', 200],
      ['colors.get', 401],
    ]);
    const [insert, byQuery, refused] = journal.entries;
    expect(insert).toMatchObject({ user: 'ana@example.com', quotaUnits: 1 });
    expect(refused.error.reason).toBe('authError');
    const entries = await Promise.all(
      [insert, byQuery, refused].map(async (e) =>
        (await fetch(`${origin}/__emulator/journal/${e.id}`, auth)).json(),
      ),
    );
    expect(entries[0].truncated).toEqual(['request', 'response']);
    expect(entries[0].requestBody).toHaveLength(40);
    expect(entries[0].requestHeaders.authorization).toBe('[redacted]');
    expect(entries[1].path).toBe('/calendar/v3/colors?access_token=%5Bredacted%5D');
    expect(JSON.stringify(entries)).not.toMatch(/token-ana|unknown-token/);
  });

  it('finds the requests that mention a text in their decoded path or bodies, never in a credential', async () => {
    const headers = { authorization: 'Bearer token-ana', 'content-type': 'application/json' };
    const base = `${origin}/calendar/v3/calendars/${encodeURIComponent('ana@example.com')}/events`;
    const created = await (
      await fetch(base, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          id: 'mention0001',
          start: { date: '2027-01-04' },
          end: { date: '2027-01-05' },
        }),
      })
    ).json();
    expect(created.id).toBe('mention0001');
    await fetch(`${base}/mention0001`, { method: 'PATCH', headers, body: JSON.stringify({ summary: 'x' }) });
    await fetch(`${origin}/calendar/v3/colors`, { headers });
    const auth = { headers: { 'x-emulator-admin-token': ADMIN } };
    const mentioning = async (text: string) =>
      (
        await (await fetch(`${origin}/__emulator/journal?mentions=${encodeURIComponent(text)}`, auth)).json()
      ).entries.map((e: { operationId: string }) => e.operationId);
    // The insert names the id in its bodies, the patch in its path.
    expect(await mentioning('mention0001')).toEqual(['events.insert', 'events.patch']);
    // A calendar id is escaped in the path and found decoded.
    expect(await mentioning('/calendars/ana@example.com/events/mention0001')).toEqual(['events.patch']);
    // The bearer token is in every request's headers, which are not searched (and are redacted).
    expect(await mentioning('token-ana')).toEqual([]);
  });

  it('drops a stream reader that does not read, once 1 MiB waits for it, and keeps one that reads', async () => {
    // The readers of earlier tests are gone.
    await until(() => emulator.journal.subscribers === 0);
    const reader = await readingReader({ 'x-emulator-admin-token': ADMIN });
    const stalled = pausedReader();
    try {
      await until(() => emulator.journal.subscribers === 2);
      // Batches of 16 events (256 KiB), each read by the reading reader before the next, until
      // the stalled one is dropped or 32 MiB went out (far more than the 1 MiB it may hold back,
      // with what the operating system's buffers take).
      let sent = 0;
      while (emulator.journal.subscribers === 2 && sent < 2048) {
        for (let i = 0; i < 16; i++) emulator.journal.recordDelivery(delivery(sent++));
        await reader.reached(sent - 1);
      }
      expect(emulator.journal.subscribers).toBe(1);
      // The reader that reads still gets every event.
      emulator.journal.recordDelivery(delivery(sent));
      await reader.reached(sent);
      // The server closed the stalled reader's connection: read at last, it ends.
      const closed = new Promise((resolve) => stalled.on('close', resolve));
      stalled.resume();
      await closed;
    } finally {
      reader.close();
      stalled.destroy();
    }
  });

  it('ends an open stream once its session has ended, at the next event', async () => {
    await until(() => emulator.journal.subscribers === 0);
    const signed = await fetch(`${origin}/__emulator/ui/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: ADMIN }),
    });
    const cookie = signed.headers.get('set-cookie')?.split(';')[0] as string;
    const reader = await readingReader({ cookie });
    try {
      await until(() => emulator.journal.subscribers === 1);
      emulator.journal.recordDelivery(delivery(0));
      await reader.reached(0);
      await fetch(`${origin}/__emulator/ui/session`, { method: 'DELETE', headers: { cookie } });
      emulator.journal.recordDelivery(delivery(1));
      expect(emulator.journal.subscribers).toBe(0);
      // The server cut the stream before the event.
      await expect(reader.reached(1)).rejects.toThrow('the stream ended at mark 0');
    } finally {
      reader.close();
    }
  });
});

describe('the journal of answers', () => {
  it('shows a JSON answer as it was sent, a page of stored events included, whatever was written since; a hook of the options gets its own headers', async () => {
    const hooked: Record<string, string>[] = [];
    const journaled = createEmulator({
      admin: { token: ADMIN },
      onResponse: (exchange) => {
        hooked.push(exchange.headers);
        exchange.headers['x-changed-by-the-hook'] = 'yes';
      },
    });
    const at = await journaled.listen(0);
    try {
      const headers = { authorization: 'Bearer ana@example.com', 'content-type': 'application/json' };
      const events = `${at}/calendar/v3/calendars/primary/events`;
      const made: { id: string; text: string }[] = [];
      for (const summary of ['one', 'two', 'three']) {
        const text = await (
          await fetch(events, {
            method: 'POST',
            headers,
            body: JSON.stringify({ summary, start: { date: '2026-03-02' }, end: { date: '2026-03-03' } }),
          })
        ).text();
        made.push({ id: JSON.parse(text).id, text });
      }
      const listed = await fetch(`${events}?maxResults=2`, { headers });
      const sent = await listed.text();
      // An event of the page changes, and another request's answer reuses the bytes' buffer.
      await fetch(`${events}/${made[0]?.id}`, {
        method: 'PATCH',
        headers,
        body: JSON.stringify({ summary: 'renamed' }),
      });
      await fetch(`${events}?maxResults=2`, { headers });
      const auth = { headers: { 'x-emulator-admin-token': ADMIN } };
      const { entries } = await (await fetch(`${at}/__emulator/journal`, auth)).json();
      const list = entries.find((e: { operationId: string }) => e.operationId === 'events.list');
      const entry = await (await fetch(`${at}/__emulator/journal/${list.id}`, auth)).json();
      expect(entry.responseBody).toBe(sent);
      // The insert that made the event renamed since: its answer as it was sent.
      const insert = entries.find((e: { operationId: string }) => e.operationId === 'events.insert');
      const inserted = await (await fetch(`${at}/__emulator/journal/${insert.id}`, auth)).json();
      expect(inserted.responseBody).toBe(made[0]?.text);
      expect(JSON.parse(inserted.responseBody).summary).toBe('one');
      expect(JSON.parse(entry.responseBody).items.map((e: { summary: string }) => e.summary)).toEqual([
        'one',
        'two',
      ]);
      expect(entry.responseHeaders['x-changed-by-the-hook']).toBeUndefined();
      expect(hooked.length).toBeGreaterThan(0);
    } finally {
      await journaled.close();
    }
  });
});
