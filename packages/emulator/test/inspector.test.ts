/**
 * The inspector's endpoints without a browser: its own token (the cookie the page gets, the
 * header), the journal's bound and its redaction of credentials.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../src/core/server.ts';
import { createEmulator } from '../src/emulator.ts';

let emulator: Emulator;
let origin: string;

describe('the inspector endpoints', () => {
  beforeAll(async () => {
    emulator = createEmulator({
      strict: true,
      users: { 'token-ana': 'ana@example.com' },
      inspector: { token: 'inspect-me', journal: { entries: 3, bodyCap: 40 } },
    });
    origin = await emulator.listen(0);
  });
  afterAll(() => emulator.close());

  it('needs its token in the header or as the cookie the page gets; the control plane stays open', async () => {
    expect((await fetch(`${origin}/__emulator/journal`)).status).toBe(401);
    expect((await fetch(`${origin}/__emulator/ui/`)).status).toBe(401);
    expect((await fetch(`${origin}/__emulator/stream`)).status).toBe(401);
    expect((await fetch(`${origin}/__emulator/ui/?token=wrong`, { redirect: 'manual' })).status).toBe(401);
    const opened = await fetch(`${origin}/__emulator/ui/?token=inspect-me`, { redirect: 'manual' });
    expect(opened.status).toBe(303);
    expect(opened.headers.get('location')).toBe('/__emulator/ui/');
    const cookie = (opened.headers.get('set-cookie') ?? '').split(';')[0] as string;
    expect(opened.headers.get('set-cookie')).toContain('HttpOnly');
    const page = await fetch(`${origin}/__emulator/ui/`, { headers: { cookie } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(
      (
        await fetch(`${origin}/__emulator/journal`, {
          headers: { 'x-emulator-inspector-token': 'inspect-me' },
        })
      ).status,
    ).toBe(200);
    expect((await fetch(`${origin}/__emulator/health`)).status).toBe(200);
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
    const auth = { headers: { 'x-emulator-inspector-token': 'inspect-me' } };
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
    const auth = { headers: { 'x-emulator-inspector-token': 'inspect-me' } };
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
});
