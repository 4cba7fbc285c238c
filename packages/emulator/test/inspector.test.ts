/**
 * The inspector's endpoints without a browser: the admin credential (the sign-in's cookie, the
 * header), the journal's bound and its redaction of credentials.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../src/core/server.ts';
import { createEmulator } from '../src/emulator.ts';

const ADMIN = 'inspect-me-with-this-credential';
let emulator: Emulator;
let origin: string;

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
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Strict/);
    expect(setCookie).toMatch(/Path=\/__emulator(;|$)/);
    const cookie = setCookie.split(';')[0] as string;
    expect(await session(cookie)).toEqual({ required: true, configured: true, signedIn: true });
    expect((await fetch(`${origin}/__emulator/journal`, { headers: { cookie } })).status).toBe(200);
    expect(
      (await fetch(`${origin}/__emulator/journal`, { headers: { 'x-emulator-admin-token': ADMIN } })).status,
    ).toBe(200);
    // Signing out clears the cookie.
    const out = await fetch(`${origin}/__emulator/ui/session`, { method: 'DELETE', headers: { cookie } });
    expect(out.headers.get('set-cookie')).toMatch(/^gspec-admin=;.*Max-Age=0/);
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
});
