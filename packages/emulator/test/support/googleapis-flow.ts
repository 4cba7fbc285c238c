/**
 * Google's own Node client (`googleapis`), built exactly as for the live services except for
 * `rootUrl`, against a fresh emulator: every one of the 44 operations of the two specs (37 of
 * Calendar v3, 7 of Search Ads 360 v2) is called the way an application calls it, with the
 * application's own data rather than the spec's examples, and has to succeed.
 *
 * Calendar: Riley runs a climbing club from a secondary calendar. Riley reads their settings
 * and the palettes, creates the club's calendar, edits it, adds a meeting, imports the weekly
 * training series from another system, quick-adds a session, lists, checks free/busy, moves and
 * deletes events, shares the calendar with Sam (who adds it to his own list), clears the
 * primary calendar and finally deletes the club's calendar. Four watch channels deliver to a
 * receiver on 127.0.0.1 and are stopped at the end.
 *
 * Search Ads 360: a shop uploads a sign-up (an ACTION counted with `quantityMillis`; Google's
 * reference says `countMillis` needs a call to support first, so it is left out) and an order
 * (a TRANSACTION with revenue and currency) for agency, advertiser, engine account and customer
 * ids nobody seeded (default mode creates them on first use, decision 0035), reads them back,
 * refunds part of the order, reports the availability of its Floodlight data and reads the
 * ID mapping file and the saved columns.
 *
 * It is a function of the emulator it runs against (`googleapisFlow(emu)`), so that it runs as
 * test/googleapis-every-operation.test.ts against the emulator alone and as
 * test/googleapis-through-proxy.test.ts through the mock's validating proxy.
 *
 * One test per operation, in the order of the flow; they share the flow's state. Each test
 * checks that the answer it got came from the operation it is named after (by the method and
 * path the client actually used). The last test compares the operations that succeeded with
 * the specs' own list, so an operation left out of the flow, or a call that failed, fails it.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { listOperations, loadBundledSpecs } from '@gspec/scripts/operations';
import { google } from 'googleapis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Harness } from './harness.ts';

/** Defines the flow's tests against `emu`; call it once per test file, at its top level. */
export function googleapisFlow(emu: Harness): void {
  // ---------------------------------------------------------------------------------------------
  // The operations of the bundled specs, and which of them a request the client sent was.

  const specDir = path.dirname(createRequire(import.meta.url).resolve('@gspec/specs/apis.json'));

  interface KnownOperation {
    id: string;
    method: string;
    pattern: RegExp;
    /** How many path parameters its template has: the most literal template wins a tie. */
    parameters: number;
  }

  const known: KnownOperation[] = loadBundledSpecs(specDir).flatMap((api) =>
    // Without the batch endpoint: it carries other operations and is no method of googleapis.
    listOperations(api.doc).map((op) => {
      const template = `${api.basePath}${op.path}`;
      const source = template
        .split(/\{[^}]+\}/)
        .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('[^/]+');
      return {
        id: op.operationId,
        method: op.method.toUpperCase(),
        pattern: new RegExp(`^${source}$`),
        parameters: (template.match(/\{/g) ?? []).length,
      };
    }),
  );

  /** What every googleapis method resolves to, as far as these tests read it. */
  interface Answer {
    status: number;
    config: { method?: string; url?: string | URL };
  }

  /** The operation of the specs that the request behind `answer` was, by its method and path. */
  function operationOf(answer: Answer): string | undefined {
    const url = new URL(String(answer.config.url));
    const method = (answer.config.method ?? 'GET').toUpperCase();
    const matches = known
      .filter((op) => op.method === method && op.pattern.test(url.pathname))
      .sort((a, b) => a.parameters - b.parameters);
    return matches[0]?.id;
  }

  /** What googleapis rejects with when the server answers an error. */
  interface GoogleError {
    status?: number;
    message?: string;
    response?: {
      data?: {
        error?: { message?: string; errors?: { location?: string; reason?: string; message?: string }[] };
      };
    };
  }

  /**
   * An error of googleapis retold with everything the server said (each item's location, reason
   * and message), so that a failing test shows the emulator's own explanation.
   */
  function retold(error: unknown): unknown {
    const e = error as GoogleError;
    const envelope = e?.response?.data?.error;
    if (e?.status === undefined || !envelope) return error;
    const items = (envelope.errors ?? []).map(
      (item) => `\n  - ${item.location ?? '(no location)'} ${item.reason ?? ''}: ${item.message ?? ''}`,
    );
    return new Error(`HTTP ${e.status}: ${envelope.message ?? e.message}${items.join('')}`);
  }

  /** The operations that were called and answered with success, in the order of the flow. */
  const succeeded: string[] = [];

  /** One step of a flow: the operation it calls, what it does, and the call with its checks. */
  type Step = [operationId: string, does: string, run: () => Promise<Answer>];

  /** Runs a step: its call must succeed and must be the operation the step is named after. */
  async function runStep(operationId: string, run: () => Promise<Answer>): Promise<void> {
    let answer: Answer;
    try {
      answer = await run();
    } catch (error) {
      throw retold(error);
    }
    expect(answer.status).toBeGreaterThanOrEqual(200);
    expect(answer.status).toBeLessThan(300);
    expect(operationOf(answer), 'the operation the client called').toBe(operationId);
    succeeded.push(operationId);
  }

  /** A googleapis OAuth2 client holding `token`; any token is a user of the emulator. */
  function authAs(token: string) {
    const auth = new google.auth.OAuth2();
    auth.setCredentials({ access_token: token });
    return auth;
  }

  /** How a call that should be refused was answered: its status and message, or that it was not refused. */
  async function refusalOf(call: Promise<unknown>): Promise<string> {
    return call.then(
      () => 'not refused',
      (error: GoogleError) => `${error.status} ${error.message}`,
    );
  }

  // ---------------------------------------------------------------------------------------------
  // A receiver for the watch channels' notifications, on this machine.

  interface Notice {
    channel: string;
    state: string;
    token?: string;
  }

  const notices: Notice[] = [];
  const waiting: { channel: string; state: string; resolve: (notice: Notice) => void }[] = [];

  /** The first notice of `channel` in `state`, once it has come (vitest's own timeout bounds the wait). */
  function noticeOf(channel: string, state: string): Promise<Notice> {
    const already = notices.find((n) => n.channel === channel && n.state === state);
    if (already) return Promise.resolve(already);
    return new Promise((resolve) => waiting.push({ channel, state, resolve }));
  }

  function startReceiver(): Promise<Server> {
    const server = createServer((request, response) => {
      const token = request.headers['x-goog-channel-token'];
      const notice: Notice = {
        channel: String(request.headers['x-goog-channel-id']),
        state: String(request.headers['x-goog-resource-state']),
        ...(typeof token === 'string' ? { token } : {}),
      };
      notices.push(notice);
      for (const waiter of waiting.splice(0)) {
        if (waiter.channel === notice.channel && waiter.state === notice.state) waiter.resolve(notice);
        else waiting.push(waiter);
      }
      response.end();
    });
    return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
  }

  // ---------------------------------------------------------------------------------------------
  // Calendar v3

  describe('Calendar v3 through googleapis: a club calendar from start to end', () => {
    const RILEY = 'riley@example.com';
    const SAM = 'sam@example.com';
    const ZONE = 'Europe/Zurich';
    const MAY = { timeMin: '2026-05-01T00:00:00Z', timeMax: '2026-06-01T00:00:00Z' };

    let receiver: Server;
    let hook: string;
    beforeAll(async () => {
      receiver = await startReceiver();
      hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/calendar-notifications`;
    });
    afterAll(async () => {
      // Let deliveries under way finish before the receiver goes.
      await emu.emulator.notifier.idle();
      receiver.closeAllConnections();
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
    });

    // Riley's and Sam's clients, as an application builds them, with only rootUrl changed.
    const riley = () => google.calendar({ version: 'v3', auth: authAs(RILEY), rootUrl: `${emu.origin}/` });
    const sam = () => google.calendar({ version: 'v3', auth: authAs(SAM), rootUrl: `${emu.origin}/` });

    // What the flow learns on the way.
    let timeZoneSetting = '';
    let calendarColorIds: string[] = [];
    let clubId = '';
    let meetingId = '';
    let seriesId = '';
    let routeSettingId = '';
    /** The channels opened, by what they watch, with the user who opened them (only they may stop them). */
    const channels = new Map<string, { id: string; resourceId: string; user: 'riley' | 'sam' }>();
    /** The id of the channel on `watched`; a step whose watch failed has none to wait on. */
    const channelId = (watched: string): string => {
      const channel = channels.get(watched);
      if (!channel) throw new Error(`no channel watches ${watched}: its watch step failed`);
      return channel.id;
    };

    const meetingTimes = {
      start: { dateTime: '2026-05-07T18:30:00+02:00', timeZone: ZONE },
      end: { dateTime: '2026-05-07T19:30:00+02:00', timeZone: ZONE },
    };

    const steps: Step[] = [
      [
        'settings.list',
        "reads Riley's settings",
        async () => {
          const answer = await riley().settings.list();
          const timezone = answer.data.items?.find((item) => item.id === 'timezone');
          expect(timezone?.value).toBeTypeOf('string');
          timeZoneSetting = timezone?.value as string;
          return answer;
        },
      ],
      [
        'settings.get',
        "reads Riley's time zone setting",
        async () => {
          const answer = await riley().settings.get({ setting: 'timezone' });
          expect(answer.data).toMatchObject({ id: 'timezone', value: timeZoneSetting });
          return answer;
        },
      ],
      [
        'settings.watch',
        "watches Riley's settings and hears the channel's sync message",
        async () => {
          const id = randomUUID();
          const answer = await riley().settings.watch({
            requestBody: { id, type: 'web_hook', address: hook, token: 'settings-of-riley' },
          });
          expect(answer.data.id).toBe(id);
          channels.set('settings', { id, resourceId: answer.data.resourceId as string, user: 'riley' });
          expect((await noticeOf(id, 'sync')).token).toBe('settings-of-riley');
          return answer;
        },
      ],
      [
        'colors.get',
        'reads the palettes to pick a calendar color from',
        async () => {
          const answer = await riley().colors.get();
          calendarColorIds = Object.keys(answer.data.calendar ?? {});
          expect(calendarColorIds.length).toBeGreaterThan(3);
          expect(Object.keys(answer.data.event ?? {}).length).toBeGreaterThan(0);
          return answer;
        },
      ],
      [
        'calendars.insert',
        "creates the club's secondary calendar",
        async () => {
          const answer = await riley().calendars.insert({
            requestBody: { summary: 'Climbing club', timeZone: ZONE },
          });
          expect(answer.data.summary).toBe('Climbing club');
          expect(answer.data.id).toBeTypeOf('string');
          clubId = answer.data.id as string;
          return answer;
        },
      ],
      [
        'calendars.get',
        'reads the new calendar back',
        async () => {
          const answer = await riley().calendars.get({ calendarId: clubId });
          expect(answer.data).toMatchObject({ id: clubId, summary: 'Climbing club', timeZone: ZONE });
          return answer;
        },
      ],
      [
        'calendars.patch',
        'adds a description',
        async () => {
          const answer = await riley().calendars.patch({
            calendarId: clubId,
            requestBody: { description: 'Trainings, meetings and route setting' },
          });
          expect(answer.data).toMatchObject({
            summary: 'Climbing club',
            description: 'Trainings, meetings and route setting',
          });
          return answer;
        },
      ],
      [
        'calendars.update',
        'rewrites the calendar with a new name and a location',
        async () => {
          const answer = await riley().calendars.update({
            calendarId: clubId,
            requestBody: {
              summary: 'Zurich climbing club',
              description: 'Trainings, meetings and route setting',
              location: 'Zurich',
              timeZone: ZONE,
            },
          });
          expect(answer.data).toMatchObject({ summary: 'Zurich climbing club', location: 'Zurich' });
          return answer;
        },
      ],
      [
        'calendarList.list',
        "finds the club's calendar on Riley's list, as its owner",
        async () => {
          const answer = await riley().calendarList.list();
          const entry = answer.data.items?.find((item) => item.id === clubId);
          expect(entry).toMatchObject({ summary: 'Zurich climbing club', accessRole: 'owner' });
          expect(answer.data.items?.some((item) => item.id === RILEY && item.primary)).toBe(true);
          return answer;
        },
      ],
      [
        'calendarList.get',
        "reads Riley's entry for the club's calendar",
        async () => {
          const answer = await riley().calendarList.get({ calendarId: clubId });
          expect(answer.data).toMatchObject({ id: clubId, accessRole: 'owner' });
          return answer;
        },
      ],
      [
        'calendarList.patch',
        'gives the calendar a color of the palette on Riley’s list',
        async () => {
          const colorId = calendarColorIds[3] as string;
          const answer = await riley().calendarList.patch({ calendarId: clubId, requestBody: { colorId } });
          expect(answer.data).toMatchObject({ id: clubId, colorId });
          return answer;
        },
      ],
      [
        'events.watch',
        "watches the club calendar's events",
        async () => {
          const id = randomUUID();
          const answer = await riley().events.watch({
            calendarId: clubId,
            requestBody: { id, type: 'web_hook', address: hook, token: 'club-events' },
          });
          expect(answer.data).toMatchObject({ id, token: 'club-events' });
          channels.set('events', { id, resourceId: answer.data.resourceId as string, user: 'riley' });
          await noticeOf(id, 'sync');
          return answer;
        },
      ],
      [
        'events.insert',
        'adds a committee meeting, and the events channel tells of it',
        async () => {
          const answer = await riley().events.insert({
            calendarId: clubId,
            requestBody: { summary: 'Committee meeting', ...meetingTimes },
          });
          expect(answer.data.summary).toBe('Committee meeting');
          meetingId = answer.data.id as string;
          await noticeOf(channelId('events'), 'exists');
          return answer;
        },
      ],
      [
        'events.get',
        'reads the meeting back',
        async () => {
          const answer = await riley().events.get({ calendarId: clubId, eventId: meetingId });
          expect(answer.data).toMatchObject({
            id: meetingId,
            summary: 'Committee meeting',
            status: 'confirmed',
          });
          expect(Date.parse(answer.data.start?.dateTime as string)).toBe(Date.parse('2026-05-07T16:30:00Z'));
          return answer;
        },
      ],
      [
        'events.patch',
        'adds the room to the meeting',
        async () => {
          const answer = await riley().events.patch({
            calendarId: clubId,
            eventId: meetingId,
            requestBody: { location: 'Clubhouse, upstairs room' },
          });
          expect(answer.data).toMatchObject({
            summary: 'Committee meeting',
            location: 'Clubhouse, upstairs room',
          });
          return answer;
        },
      ],
      [
        'events.update',
        'rewrites the meeting with an agenda',
        async () => {
          const answer = await riley().events.update({
            calendarId: clubId,
            eventId: meetingId,
            requestBody: {
              summary: 'Committee meeting: budget 2027',
              description: 'Agenda: budget, new holds, summer camp',
              location: 'Clubhouse, upstairs room',
              ...meetingTimes,
            },
          });
          expect(answer.data).toMatchObject({
            summary: 'Committee meeting: budget 2027',
            description: 'Agenda: budget, new holds, summer camp',
          });
          return answer;
        },
      ],
      [
        'events.import',
        'imports the weekly training series from the old club software',
        async () => {
          const answer = await riley().events.import({
            calendarId: clubId,
            requestBody: {
              iCalUID: 'tuesday-training-2026@old-club-software.example',
              summary: 'Tuesday training',
              location: 'Boulder hall',
              start: { dateTime: '2026-05-05T19:00:00', timeZone: ZONE },
              end: { dateTime: '2026-05-05T21:00:00', timeZone: ZONE },
              recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'],
            },
          });
          expect(answer.data).toMatchObject({
            iCalUID: 'tuesday-training-2026@old-club-software.example',
            recurrence: ['RRULE:FREQ=WEEKLY;COUNT=4'],
          });
          seriesId = answer.data.id as string;
          return answer;
        },
      ],
      [
        'events.instances',
        'expands the training series into its four sessions',
        async () => {
          const answer = await riley().events.instances({ calendarId: clubId, eventId: seriesId });
          const items = answer.data.items ?? [];
          expect(items.map((item) => item.recurringEventId)).toEqual([
            seriesId,
            seriesId,
            seriesId,
            seriesId,
          ]);
          expect(items.map((item) => Date.parse(item.start?.dateTime as string))).toEqual(
            ['2026-05-05', '2026-05-12', '2026-05-19', '2026-05-26'].map((day) =>
              Date.parse(`${day}T17:00:00Z`),
            ),
          );
          return answer;
        },
      ],
      [
        'events.quickAdd',
        'adds a route-setting session from a line of text',
        async () => {
          const answer = await riley().events.quickAdd({
            calendarId: clubId,
            text: 'Route setting 2026-05-09 10:00-13:00 at Boulder hall',
          });
          expect(answer.data.location).toBe('Boulder hall');
          expect(answer.data.summary).toContain('Route setting');
          routeSettingId = answer.data.id as string;
          return answer;
        },
      ],
      [
        'events.list',
        "lists May's events one by one in time order",
        async () => {
          const answer = await riley().events.list({
            calendarId: clubId,
            ...MAY,
            singleEvents: true,
            orderBy: 'startTime',
          });
          // The training sessions are the series' instances; the other two are the events themselves.
          const training = (item: { recurringEventId?: string | null }) => item.recurringEventId === seriesId;
          expect(answer.data.items?.map((item) => (training(item) ? 'training' : item.id))).toEqual([
            'training',
            meetingId,
            routeSettingId,
            'training',
            'training',
            'training',
          ]);
          return answer;
        },
      ],
      [
        'freebusy.query',
        "finds the club calendar's busy times in May",
        async () => {
          const answer = await riley().freebusy.query({
            requestBody: { ...MAY, items: [{ id: clubId }] },
          });
          const busy = answer.data.calendars?.[clubId]?.busy ?? [];
          expect(busy).toHaveLength(6);
          expect(
            busy.some(
              (b) =>
                Date.parse(b.start as string) === Date.parse('2026-05-07T16:30:00Z') &&
                Date.parse(b.end as string) === Date.parse('2026-05-07T17:30:00Z'),
            ),
          ).toBe(true);
          return answer;
        },
      ],
      [
        'events.move',
        "moves the route-setting session to Riley's own calendar",
        async () => {
          const answer = await riley().events.move({
            calendarId: clubId,
            eventId: routeSettingId,
            destination: 'primary',
          });
          expect(answer.data).toMatchObject({ id: routeSettingId, location: 'Boulder hall' });
          expect(answer.data.organizer?.email).toBe(RILEY);
          return answer;
        },
      ],
      [
        'events.delete',
        'deletes the committee meeting',
        async () => {
          const answer = await riley().events.delete({ calendarId: clubId, eventId: meetingId });
          const left = await riley().events.list({ calendarId: clubId, ...MAY, singleEvents: true });
          expect(left.data.items?.map((item) => item.recurringEventId)).toEqual([
            seriesId,
            seriesId,
            seriesId,
            seriesId,
          ]);
          return answer;
        },
      ],
      [
        'acl.watch',
        "watches the club calendar's sharing rules",
        async () => {
          const id = randomUUID();
          const answer = await riley().acl.watch({
            calendarId: clubId,
            requestBody: { id, type: 'web_hook', address: hook, token: 'club-sharing' },
          });
          expect(answer.data.id).toBe(id);
          channels.set('acl', { id, resourceId: answer.data.resourceId as string, user: 'riley' });
          await noticeOf(id, 'sync');
          return answer;
        },
      ],
      [
        'acl.insert',
        'shares the club calendar with Sam, and the sharing channel tells of it',
        async () => {
          const answer = await riley().acl.insert({
            calendarId: clubId,
            requestBody: { role: 'reader', scope: { type: 'user', value: SAM } },
          });
          expect(answer.data).toMatchObject({ role: 'reader', scope: { type: 'user', value: SAM } });
          await noticeOf(channelId('acl'), 'exists');
          return answer;
        },
      ],
      [
        'acl.list',
        'lists who may see the club calendar',
        async () => {
          const answer = await riley().acl.list({ calendarId: clubId });
          const rules = Object.fromEntries(
            (answer.data.items ?? []).map((rule) => [rule.scope?.value, rule.role]),
          );
          expect(rules).toMatchObject({ [RILEY]: 'owner', [SAM]: 'reader' });
          return answer;
        },
      ],
      [
        'acl.get',
        "reads Sam's rule",
        async () => {
          const answer = await riley().acl.get({ calendarId: clubId, ruleId: `user:${SAM}` });
          expect(answer.data).toMatchObject({ id: `user:${SAM}`, role: 'reader' });
          return answer;
        },
      ],
      [
        'acl.patch',
        'lets Sam edit events',
        async () => {
          const answer = await riley().acl.patch({
            calendarId: clubId,
            ruleId: `user:${SAM}`,
            requestBody: { role: 'writer' },
          });
          expect(answer.data).toMatchObject({ id: `user:${SAM}`, role: 'writer' });
          return answer;
        },
      ],
      [
        'acl.update',
        "rewrites Sam's rule back to reading only",
        async () => {
          const answer = await riley().acl.update({
            calendarId: clubId,
            ruleId: `user:${SAM}`,
            requestBody: { role: 'reader', scope: { type: 'user', value: SAM } },
          });
          expect(answer.data).toMatchObject({ id: `user:${SAM}`, role: 'reader' });
          return answer;
        },
      ],
      [
        'calendarList.watch',
        "watches Sam's calendar list",
        async () => {
          const id = randomUUID();
          const answer = await sam().calendarList.watch({
            requestBody: { id, type: 'web_hook', address: hook, token: 'list-of-sam' },
          });
          expect(answer.data.id).toBe(id);
          channels.set('calendarList', { id, resourceId: answer.data.resourceId as string, user: 'sam' });
          await noticeOf(id, 'sync');
          return answer;
        },
      ],
      [
        'calendarList.insert',
        'has Sam add the shared calendar to his list, and his list channel tells of it',
        async () => {
          const answer = await sam().calendarList.insert({ requestBody: { id: clubId } });
          expect(answer.data).toMatchObject({ id: clubId, accessRole: 'reader' });
          await noticeOf(channelId('calendarList'), 'exists');
          return answer;
        },
      ],
      [
        'calendarList.update',
        "rewrites Sam's entry with his own name for it and a reminder",
        async () => {
          const answer = await sam().calendarList.update({
            calendarId: clubId,
            requestBody: {
              summaryOverride: "Riley's climbing club",
              colorId: calendarColorIds[5] as string,
              selected: true,
              defaultReminders: [{ method: 'popup', minutes: 60 }],
            },
          });
          expect(answer.data).toMatchObject({
            id: clubId,
            summaryOverride: "Riley's climbing club",
            colorId: calendarColorIds[5],
          });
          return answer;
        },
      ],
      [
        'calendarList.delete',
        'has Sam take the calendar off his list',
        async () => {
          const answer = await sam().calendarList.delete({ calendarId: clubId });
          const list = await sam().calendarList.list();
          expect(list.data.items?.map((item) => item.id)).not.toContain(clubId);
          return answer;
        },
      ],
      [
        'acl.delete',
        'stops sharing the calendar with Sam',
        async () => {
          const answer = await riley().acl.delete({ calendarId: clubId, ruleId: `user:${SAM}` });
          const rules = await riley().acl.list({ calendarId: clubId });
          expect(rules.data.items?.map((rule) => rule.id)).toEqual([`user:${RILEY}`]);
          return answer;
        },
      ],
      [
        'channels.stop',
        'stops the four channels, each by the user who opened it',
        async () => {
          const answers = [];
          for (const channel of channels.values()) {
            const client = channel.user === 'sam' ? sam() : riley();
            answers.push(
              await client.channels.stop({ requestBody: { id: channel.id, resourceId: channel.resourceId } }),
            );
          }
          // Every channel the flow opens was there to stop.
          expect([...channels.keys()]).toEqual(['settings', 'events', 'acl', 'calendarList']);
          expect(answers.map((answer) => answer.status)).toEqual([204, 204, 204, 204]);
          return answers[0] as Answer;
        },
      ],
      [
        'calendars.clear',
        "empties Riley's primary calendar",
        async () => {
          const answer = await riley().calendars.clear({ calendarId: 'primary' });
          const left = await riley().events.list({ calendarId: 'primary' });
          expect(left.data.items ?? []).toEqual([]);
          return answer;
        },
      ],
      [
        'calendars.delete',
        "deletes the club's calendar",
        async () => {
          const answer = await riley().calendars.delete({ calendarId: clubId });
          // Gone: a get is 404 (asked once, without googleapis' retries of a 5xx).
          expect(await refusalOf(riley().calendars.get({ calendarId: clubId }, { retry: false }))).toMatch(
            /^404 /,
          );
          return answer;
        },
      ],
    ];

    it.each(steps)('%s: %s', async (operationId, _does, run) => runStep(operationId, run));

    it('has one step for each Calendar operation', () => {
      const ids = steps.map(([id]) => id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids).toHaveLength(37);
    });
  });

  // ---------------------------------------------------------------------------------------------
  // Search Ads 360 v2

  describe('Search Ads 360 v2 through googleapis: a shop uploads its conversions', () => {
    // Ids of the shop's own accounts: no seed and no example of the spec names them.
    const AGENCY = '20700000000004417';
    const ADVERTISER = '21700000000090210';
    const ENGINE_ACCOUNT = '700000000318842';
    const CUSTOMER = '5829104736';
    const CAMPAIGN = '71700000002260041';
    const AD_GROUP = '58700000095112237';
    const GCLID = 'EAIaIQobChMIshop-own-click-0001';
    const JUNE = { startDate: 20260601, endDate: 20260630, startRow: 0, rowCount: 100 };

    const ads = () =>
      google.doubleclicksearch({
        version: 'v2',
        auth: authAs('ads@shop.example'),
        rootUrl: `${emu.origin}/`,
      });

    const attribution = {
      agencyId: AGENCY,
      advertiserId: ADVERTISER,
      engineAccountId: ENGINE_ACCOUNT,
      customerId: CUSTOMER,
      campaignId: CAMPAIGN,
      adGroupId: AD_GROUP,
    };
    /** A newsletter sign-up: an ACTION, counted by quantityMillis (no countMillis, see above). */
    const signup = {
      ...attribution,
      conversionId: 'signup-88120',
      conversionTimestamp: String(Date.parse('2026-06-03T09:15:00Z')),
      segmentationType: 'FLOODLIGHT',
      segmentationName: 'Newsletter signup',
      type: 'ACTION',
      quantityMillis: '1000',
    };
    /** An order of two items: a TRANSACTION with its revenue and currency. */
    const order = {
      ...attribution,
      clickId: GCLID,
      conversionId: 'order-55731',
      conversionTimestamp: String(Date.parse('2026-06-04T17:42:10Z')),
      segmentationType: 'FLOODLIGHT',
      segmentationName: 'Purchase',
      type: 'TRANSACTION',
      revenueMicros: '129900000',
      currencyCode: 'EUR',
      quantityMillis: '2000',
      floodlightOrderId: 'order-55731',
    };

    /** The conversionIds the insert answered as stored. */
    let stored: string[] = [];

    const steps: Step[] = [
      [
        'conversion.insert',
        'uploads a sign-up (ACTION) and an order (TRANSACTION) in one batch',
        async () => {
          const answer = await ads().conversion.insert({ requestBody: { conversion: [signup, order] } });
          stored = (answer.data.conversion ?? []).map((c) => c.conversionId as string);
          const [action, transaction] = answer.data.conversion ?? [];
          expect(action).toMatchObject({
            conversionId: 'signup-88120',
            type: 'ACTION',
            quantityMillis: '1000',
            segmentationName: 'Newsletter signup',
            state: 'ACTIVE',
          });
          expect(transaction).toMatchObject({
            conversionId: 'order-55731',
            type: 'TRANSACTION',
            revenueMicros: '129900000',
            currencyCode: 'EUR',
            state: 'ACTIVE',
          });
          expect(action?.dsConversionId).toMatch(/^\d+$/);
          expect(transaction?.dsConversionId).toMatch(/^\d+$/);
          return answer;
        },
      ],
      [
        'conversion.get',
        "reads June's conversions of the engine account back",
        async () => {
          const answer = await ads().conversion.get({
            agencyId: AGENCY,
            advertiserId: ADVERTISER,
            engineAccountId: ENGINE_ACCOUNT,
            ...JUNE,
          });
          const ids = (answer.data.conversion ?? []).map((c) => c.conversionId);
          expect(ids).toEqual(expect.arrayContaining(stored));
          return answer;
        },
      ],
      [
        'conversion.getByCustomerId',
        "reads June's conversions back by the Google Ads customer id",
        async () => {
          const answer = await ads().conversion.getByCustomerId({ customerId: CUSTOMER, ...JUNE });
          const ids = (answer.data.conversion ?? []).map((c) => c.conversionId);
          expect(ids).toEqual(expect.arrayContaining(stored));
          return answer;
        },
      ],
      [
        'conversion.update',
        'refunds one of the two items of the order',
        async () => {
          const answer = await ads().conversion.update({
            requestBody: { conversion: [{ ...order, revenueMicros: '64950000', quantityMillis: '1000' }] },
          });
          expect(answer.data.conversion?.[0]).toMatchObject({
            conversionId: 'order-55731',
            revenueMicros: '64950000',
            quantityMillis: '1000',
            currencyCode: 'EUR',
          });
          return answer;
        },
      ],
      [
        'conversion.updateAvailability',
        'reports that the purchases are uploaded up to the end of June 4',
        async () => {
          const answer = await ads().conversion.updateAvailability({
            requestBody: {
              availabilities: [
                {
                  agencyId: AGENCY,
                  advertiserId: ADVERTISER,
                  segmentationType: 'FLOODLIGHT',
                  segmentationName: 'Purchase',
                  availabilityTimestamp: String(Date.parse('2026-06-05T00:00:00Z')),
                },
              ],
            },
          });
          expect(answer.data.availabilities?.[0]).toMatchObject({
            agencyId: AGENCY,
            advertiserId: ADVERTISER,
            segmentationName: 'Purchase',
          });
          return answer;
        },
      ],
      [
        'reports.getIdMappingFile',
        "downloads the advertiser's ID mapping file",
        async () => {
          const answer = await ads().reports.getIdMappingFile(
            { agencyId: AGENCY, advertiserId: ADVERTISER },
            { responseType: 'text' },
          );
          const rows = String(answer.data).trim().split(/\r?\n/);
          expect(rows[0]).toMatch(/,/);
          // The engine account the upload created is mapped to the customer id it was sent with.
          if (stored.length > 0)
            expect(rows.some((row) => row.includes(ENGINE_ACCOUNT) && row.includes(CUSTOMER))).toBe(true);
          return answer;
        },
      ],
      [
        'savedColumns.list',
        "lists the advertiser's saved columns",
        async () => {
          const answer = await ads().savedColumns.list({ agencyId: AGENCY, advertiserId: ADVERTISER });
          expect(answer.data.kind).toBe('doubleclicksearch#savedColumnList');
          return answer;
        },
      ],
    ];

    it.each(steps)('%s: %s', async (operationId, _does, run) => runStep(operationId, run));

    it('has one step for each Search Ads 360 operation', () => {
      const ids = steps.map(([id]) => id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids).toHaveLength(7);
    });
  });

  // ---------------------------------------------------------------------------------------------

  describe('coverage', () => {
    it('called every operation of both specs, and each call succeeded', () => {
      const all = known.map((op) => op.id);
      expect(all).toHaveLength(44);
      const missing = all.filter((id) => !succeeded.includes(id));
      expect(missing, 'operations not called or not successful').toEqual([]);
      expect([...succeeded].sort()).toEqual([...all].sort());
    });
  });
}
