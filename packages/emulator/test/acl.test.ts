/**
 * Sharing rules (acl.*) and the roles they give, enforced across users: who can read, who can
 * write, who sees only free/busy, and who does not see the calendar at all.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { timedEvent, useEmulator } from './support/harness.ts';

const emu = useEmulator();
beforeEach(() => emu.reset());

const enc = encodeURIComponent;
const ANA = 'ana@example.com';
const BO = 'bo@example.com';

async function secondary(summary = 'Shared') {
  const reply = await emu.call('POST', '/calendars', { body: { summary } });
  expect(reply.status).toBe(200);
  return reply.body.id as string;
}

async function share(
  calendarId: string,
  role: string,
  scope: Record<string, string> = { type: 'user', value: BO },
) {
  const reply = await emu.call('POST', `/calendars/${enc(calendarId)}/acl`, { body: { role, scope } });
  expect(reply.status).toBe(200);
  return reply.body;
}

describe('acl rules', () => {
  it.each([
    ['the primary calendar', async () => ANA],
    ['a secondary calendar', () => secondary()],
  ])("%s has its owner's own rule", async (_name, make) => {
    const id = await make();
    const list = await emu.call('GET', `/calendars/${enc(id)}/acl`);
    expect(list.status).toBe(200);
    expect(list.body.items).toEqual([
      expect.objectContaining({ id: `user:${ANA}`, role: 'owner', scope: { type: 'user', value: ANA } }),
    ]);
    const one = await emu.call('GET', `/calendars/${enc(id)}/acl/${enc(`user:${ANA}`)}`);
    expect(one.body).toEqual(list.body.items[0]);
  });

  it('insert makes the id from the scope; insert again replaces the role; get, update, patch, delete', async () => {
    const id = await secondary();
    const base = `/calendars/${enc(id)}/acl`;
    const made = await share(id, 'reader', { type: 'user', value: 'Bo@Example.com' });
    expect(made).toMatchObject({ kind: 'calendar#aclRule', id: `user:${BO}`, role: 'reader' });
    const again = await share(id, 'writer');
    expect(again.id).toBe(made.id);
    expect(again.etag).not.toBe(made.etag);
    const path = `${base}/${enc(made.id)}`;
    expect((await emu.call('GET', path)).body.role).toBe('writer');
    const updated = await emu.call('PUT', path, { body: { role: 'freeBusyReader', scope: made.scope } });
    expect(updated.body.role).toBe('freeBusyReader');
    const patched = await emu.call('PATCH', path, { body: { role: 'reader' } });
    expect(patched.body).toMatchObject({ role: 'reader', scope: { type: 'user', value: BO } });
    expect((await emu.call('DELETE', path)).status).toBe(204);
    expect((await emu.call('GET', path)).status).toBe(404);
    expect((await emu.call('DELETE', path)).status).toBe(404);
    const deleted = await emu.call('GET', base, { query: { showDeleted: true } });
    expect(deleted.body.items).toContainEqual(expect.objectContaining({ id: made.id, role: 'none' }));
  });

  it.each([
    ['domain', { type: 'domain', value: 'Example.org' }, 'domain:example.org'],
    ['default (the public)', { type: 'default' }, 'default'],
    ['group', { type: 'group', value: 'team@example.com' }, 'group:team@example.com'],
  ])('a %s scope gets its id', async (_name, scope, ruleId) => {
    expect((await share(ANA, 'freeBusyReader', scope)).id).toBe(ruleId);
  });

  it.each([
    [
      'a user scope without a value',
      'POST',
      '',
      { role: 'reader', scope: { type: 'user' } },
      400,
      'scope.value',
    ],
    [
      'a user scope that is no email',
      'POST',
      '',
      { role: 'reader', scope: { type: 'user', value: 'bo' } },
      400,
      'scope.value',
    ],
    ['a role outside the enum', 'POST', '', { role: 'admin', scope: { type: 'default' } }, 400, 'role'],
  ])('refuses %s', async (_name, method, suffix, body, status, location) => {
    await share(ANA, 'reader');
    const reply = await emu.call(method, `/calendars/primary/acl${suffix}`, { body });
    expect(reply.status).toBe(status);
    expect(reply.body.error.errors[0].location).toBe(location);
  });

  it('update changes the role of the rule the path names; a scope in the body is not read (decision 0056)', async () => {
    await share(ANA, 'reader');
    const reply = await emu.call('PUT', `/calendars/primary/acl/${enc(`user:${BO}`)}`, {
      body: { role: 'writer', scope: { type: 'default' } },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      id: `user:${BO}`,
      role: 'writer',
      scope: { type: 'user', value: BO },
    });
  });

  it.each([
    ['changed', 'PATCH', { role: 'reader' }],
    ['deleted', 'DELETE', undefined],
  ])("the owner's own rule cannot be %s (403)", async (_name, method, body) => {
    const reply = await emu.call(method, `/calendars/primary/acl/${enc(`user:${ANA}`)}`, {
      ...(body ? { body } : {}),
    });
    expect(reply.status).toBe(403);
    expect(reply.body.error.errors[0].reason).toBe('cannotChangeOwnAcl');
  });

  it('an unknown rule is 404', async () => {
    expect((await emu.call('GET', '/calendars/primary/acl/user:nobody@example.com')).status).toBe(404);
  });

  it('pages and syncs: changes and deletions (as role none) since the token', async () => {
    const id = await secondary();
    const base = `/calendars/${enc(id)}/acl`;
    for (const who of ['a', 'b', 'c'])
      await share(id, 'reader', { type: 'user', value: `${who}@example.com` });
    const seen: string[] = [];
    let pageToken: string | undefined;
    let syncToken: string | undefined;
    for (let pages = 0; pages < 5; pages++) {
      const page = await emu.call('GET', base, {
        query: { maxResults: 2, ...(pageToken ? { pageToken } : {}) },
      });
      seen.push(...page.body.items.map((rule: { id: string }) => rule.id));
      pageToken = page.body.nextPageToken;
      syncToken = page.body.nextSyncToken;
      if (!pageToken) break;
    }
    expect(seen).toEqual([
      'user:a@example.com',
      'user:ana@example.com',
      'user:b@example.com',
      'user:c@example.com',
    ]);
    await emu.call('PATCH', `${base}/user:a@example.com`, { body: { role: 'writer' } });
    await emu.call('DELETE', `${base}/user:b@example.com`);
    const changes = await emu.call('GET', base, { query: { syncToken: syncToken as string } });
    expect(changes.body.items.map((rule: { id: string; role: string }) => [rule.id, rule.role])).toEqual([
      ['user:a@example.com', 'writer'],
      ['user:b@example.com', 'none'],
    ]);
    const stale = await emu.call('GET', base, { query: { syncToken: 'nope' } });
    expect(stale.status).toBe(410);
  });
});

describe('roles enforced across users', () => {
  // What Bo may do on Ana's calendar, by the role Ana gave Bo.
  const cases = [
    // role, read events, see details, write events, calendar metadata, manage sharing
    ['owner', 200, true, 200, 200, 200],
    ['writer', 200, true, 200, 403, 403],
    ['reader', 200, true, 403, 403, 403],
    ['freeBusyReader', 200, false, 403, 403, 403],
    ['none', 404, false, 404, 404, 404],
    [undefined, 404, false, 404, 404, 404],
  ] as const;

  it.each(cases)('role %s', async (role, read, details, write, metadata, sharing) => {
    const id = await secondary('Ana team');
    const events = `/calendars/${enc(id)}/events`;
    const made = await emu.call('POST', events, {
      body: timedEvent('Secret plan', 9, { description: 'd' }),
    });
    if (role) await share(id, role);
    const as = { token: BO };

    const list = await emu.call('GET', events, as);
    expect(list.status).toBe(read);
    const got = await emu.call('GET', `${events}/${made.body.id}`, as);
    expect(got.status).toBe(read);
    if (read === 200) {
      expect(list.body.accessRole).toBe(role);
      expect(list.body.items).toHaveLength(1);
      expect(got.body.start).toEqual(made.body.start);
      if (details) expect(got.body.summary).toBe('Secret plan');
      else expect(got.body).not.toHaveProperty('summary');
    }
    expect((await emu.call('GET', `/calendars/${enc(id)}`, as)).status).toBe(read);

    const inserted = await emu.call('POST', events, { ...as, body: timedEvent('by Bo', 11) });
    expect(inserted.status).toBe(write);
    if (write === 403) {
      expect(inserted.body.error).toMatchObject({
        code: 403,
        errors: [expect.objectContaining({ reason: 'requiredAccessLevel', domain: 'calendar' })],
      });
    }
    expect(
      (await emu.call('PATCH', `${events}/${made.body.id}`, { ...as, body: { summary: 'x' } })).status,
    ).toBe(write);
    expect((await emu.call('DELETE', `${events}/${made.body.id}`, as)).status).toBe(
      write === 200 ? 204 : write,
    );
    expect((await emu.call('PATCH', `/calendars/${enc(id)}`, { ...as, body: { summary: 'x' } })).status).toBe(
      metadata,
    );
    expect((await emu.call('GET', `/calendars/${enc(id)}/acl`, as)).status).toBe(sharing);
  });

  it('a domain or public rule shares with every matching user', async () => {
    await share(ANA, 'reader', { type: 'domain', value: 'example.com' });
    expect((await emu.call('GET', `/calendars/${ANA}/events`, { token: BO })).status).toBe(200);
    expect((await emu.call('GET', `/calendars/${ANA}/events`, { token: 'li@other.org' })).status).toBe(404);
    await share(ANA, 'freeBusyReader', { type: 'default' });
    const anyone = await emu.call('GET', `/calendars/${ANA}/events`, { token: 'li@other.org' });
    expect(anyone.body.accessRole).toBe('freeBusyReader');
    // The strongest rule wins.
    expect((await emu.call('GET', `/calendars/${ANA}/events`, { token: BO })).body.accessRole).toBe('reader');
  });

  it('a reader sees only the times of a private event', async () => {
    const made = await emu.call('POST', '/calendars/primary/events', {
      body: timedEvent('Doctor', 9, { visibility: 'private' }),
    });
    await share(ANA, 'reader');
    const got = await emu.call('GET', `/calendars/${ANA}/events/${made.body.id}`, { token: BO });
    expect(got.body).not.toHaveProperty('summary');
    expect(got.body).toMatchObject({ id: made.body.id, visibility: 'private', start: made.body.start });
  });

  it("sharing puts the calendar in reach of the grantee's list; revoking takes it out", async () => {
    const id = await secondary('Ana team');
    const entryPath = `/users/me/calendarList/${enc(id)}`;
    const refused = await emu.call('POST', '/users/me/calendarList', { token: BO, body: { id } });
    expect(refused.status).toBe(404);
    await share(id, 'writer');
    const inserted = await emu.call('POST', '/users/me/calendarList', { token: BO, body: { id } });
    expect(inserted.status).toBe(200);
    expect(inserted.body).toMatchObject({ id, summary: 'Ana team', accessRole: 'writer' });
    expect(inserted.body).not.toHaveProperty('primary');
    const list = await emu.call('GET', '/users/me/calendarList', { token: BO });
    expect(list.body.items.map((e: { id: string }) => e.id)).toContain(id);
    const readers = await emu.call('GET', '/users/me/calendarList', {
      token: BO,
      query: { minAccessRole: 'owner' },
    });
    expect(readers.body.items.map((e: { id: string }) => e.id)).toEqual([BO]);

    await emu.call('PATCH', `/calendars/${enc(id)}/acl/user:${BO}`, { body: { role: 'reader' } });
    const changes = await emu.call('GET', '/users/me/calendarList', {
      token: BO,
      query: { syncToken: list.body.nextSyncToken },
    });
    expect(changes.body.items).toEqual([expect.objectContaining({ id, accessRole: 'reader' })]);

    await emu.call('DELETE', `/calendars/${enc(id)}/acl/user:${BO}`);
    expect((await emu.call('GET', entryPath, { token: BO })).status).toBe(404);
    expect((await emu.call('GET', `/calendars/${enc(id)}/events`, { token: BO })).status).toBe(404);
    const gone = await emu.call('GET', '/users/me/calendarList', {
      token: BO,
      query: { syncToken: changes.body.nextSyncToken },
    });
    expect(gone.body.items).toEqual([expect.objectContaining({ id, deleted: true })]);
  });

  it('a writer can move an event into a shared calendar; a reader cannot move out of it', async () => {
    const id = await secondary('Ana team');
    await share(id, 'writer');
    const mine = await emu.call('POST', '/calendars/primary/events', { token: BO, body: timedEvent('Bo') });
    const moved = await emu.call('POST', `/calendars/primary/events/${mine.body.id}/move`, {
      token: BO,
      query: { destination: id },
    });
    expect(moved.status).toBe(200);
    await share(id, 'reader');
    const back = await emu.call('POST', `/calendars/${enc(id)}/events/${mine.body.id}/move`, {
      token: BO,
      query: { destination: BO },
    });
    expect(back.status).toBe(403);
  });
});
