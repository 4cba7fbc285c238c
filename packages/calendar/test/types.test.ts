/**
 * The client's types as a user's compiler and editor meet them (see
 * @gspec/scripts/type-probe): programs that must compile, programs that must not and what the
 * error says, what is struck through, what completion offers and what a hover shows.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describeEveryOperation } from '@gspec/scripts/operation-type-tests';
import { createTypeProbe, HERE } from '@gspec/scripts/type-probe';
import { loadSpec } from '@gspec/specs';
import { describe, expect, it } from 'vitest';

const probe = createTypeProbe(path.resolve(import.meta.dirname, '..'));
const program = (body: string) => `import {
  createCalendar,
  type BodyOf,
  type Event,
  type EventInput,
  type EventsInsertArgs,
  type EventsInsertBody,
} from '@gspec/calendar';
const calendar = createCalendar({ accessToken: 't' });
export async function run(): Promise<unknown> {
${body}
  return undefined;
}
`;

describe('programs that compile', () => {
  it.each([
    [
      'an insert with the fields events.insert requires',
      `await calendar.events.insert({ calendarId: 'primary', summary: 'x', start: { date: '2027-01-04' }, end: { date: '2027-01-05' } });`,
    ],
    [
      'a body typed with the documented body type of events.insert, spread into the call',
      `const body: EventsInsertBody = { summary: 'x', start: { date: '2027-01-04' }, end: { date: '2027-01-05' } };
  await calendar.events.insert({ calendarId: 'primary', ...body });`,
    ],
    [
      'BodyOf<op> as the same body type',
      `const body: BodyOf<'events.insert'> = { start: {}, end: {} };
  const named: EventsInsertBody = body;
  void named;`,
    ],
    [
      'a patch that clears a field with null',
      `await calendar.events.patch({ calendarId: 'primary', eventId: 'e', location: null, colorId: null });`,
    ],
    [
      'an enum value the spec lists',
      `await calendar.events.insert({ calendarId: 'primary', sendUpdates: 'externalOnly', start: {}, end: {}, transparency: 'transparent' });`,
    ],
    [
      'the items of a paged list, typed Event',
      `for await (const event of calendar.events.list.items({ calendarId: 'primary' })) {
    const same: Event = event;
    void same.etag;
  }`,
    ],
    [
      'the pages of a paged list whose argument may be left out, typed CalendarList',
      `for await (const page of calendar.calendarList.list.pages()) void page.items?.[0]?.accessRole;`,
    ],
    [
      'a sync whose changes are typed Event',
      `const result = await calendar.events.list.sync({ calendarId: 'primary' }, { onItems: (items: Event[]) => void items });
  void result;`,
    ],
  ])('%s', (_name, body) => {
    expect(probe.errors(program(body))).toEqual([]);
  });
});

// A resource read back and sent back as it is: read-only fields are extra there, not wrong, and
// the fields a replace requires (events' start and end, a calendar's summary, a rule's role and
// scope) are optional in what is read, as in the service's answers (decision 0060).
describe('a resource read back and sent back', () => {
  it.each([
    [
      'events.update',
      `const read = await calendar.events.get({ calendarId: 'p', eventId: 'e' });
  await calendar.events.update({ calendarId: 'p', eventId: 'e', ...read });`,
    ],
    [
      'events.update with If-Match and a changed field',
      `const read = await calendar.events.get({ calendarId: 'p', eventId: 'e' });
  await calendar.events.update({ calendarId: 'p', eventId: 'e', ifMatch: read.etag, ...read, summary: 'moved' });`,
    ],
    [
      'events.update of an item of a list',
      `for await (const read of calendar.events.list.items({ calendarId: 'p' }))
    await calendar.events.update({ calendarId: 'p', eventId: read.id ?? '', ...read });`,
    ],
    [
      'events.update of a value typed Event',
      `const read: Event = await calendar.events.get({ calendarId: 'p', eventId: 'e' });
  await calendar.events.update({ calendarId: 'p', eventId: 'e', ...read });`,
    ],
    [
      'events.patch',
      `const read = await calendar.events.get({ calendarId: 'p', eventId: 'e' });
  await calendar.events.patch({ calendarId: 'p', eventId: 'e', ...read });`,
    ],
    [
      'events.insert of a copy (start and end checked first)',
      `const read = await calendar.events.get({ calendarId: 'p', eventId: 'e' });
  if (read.start && read.end) await calendar.events.insert({ calendarId: 'q', ...read, start: read.start, end: read.end });`,
    ],
    [
      'calendars.update',
      `const read = await calendar.calendars.get({ calendarId: 'p' });
  await calendar.calendars.update({ calendarId: 'p', ...read });`,
    ],
    [
      'calendars.patch',
      `const read = await calendar.calendars.get({ calendarId: 'p' });
  await calendar.calendars.patch({ calendarId: 'p', ...read });`,
    ],
    [
      'acl.update',
      `const read = await calendar.acl.get({ calendarId: 'p', ruleId: 'r' });
  await calendar.acl.update({ calendarId: 'p', ruleId: 'r', ...read });`,
    ],
    [
      'acl.patch',
      `const read = await calendar.acl.get({ calendarId: 'p', ruleId: 'r' });
  await calendar.acl.patch({ calendarId: 'p', ruleId: 'r', ...read });`,
    ],
    [
      'calendarList.update',
      `const read = await calendar.calendarList.get({ calendarId: 'p' });
  await calendar.calendarList.update({ calendarId: 'p', ...read });`,
    ],
    [
      'calendarList.patch',
      `const read = await calendar.calendarList.get({ calendarId: 'p' });
  await calendar.calendarList.patch({ calendarId: 'p', ...read });`,
    ],
    [
      'settings are read only',
      `const read = await calendar.settings.get({ setting: 'timezone' });
  void read.value;`,
    ],
  ])('compiles: %s', (_name, body) => {
    expect(probe.errors(program(body))).toEqual([]);
  });

  it.each([
    [
      'a body built as events.update requires it, without end',
      `const body: BodyOf<'events.update'> = { start: {} };
  void body;`,
      ["'end'", 'EventsUpdateBody'],
    ],
    [
      'events.insert of a copy whose start may be missing',
      `const read = await calendar.events.get({ calendarId: 'p', eventId: 'e' });
  await calendar.events.insert({ calendarId: 'q', ...read });`,
      ["'start'"],
    ],
  ])('does not compile: %s', (_name, body, named) => {
    const errors = probe.errors(program(body));
    expect(errors).toHaveLength(1);
    for (const part of named) expect(errors[0]).toContain(part);
  });
});

// A `fields` mask written as a literal answers exactly what it selects; one known only at run time, Trimmed.
describe('the answer of a call with a fields mask', () => {
  it.each([
    [
      'a selected property',
      `const slim = await calendar.events.get({ calendarId: 'p', eventId: 'e', fields: 'summary,start/dateTime' });
  const summary: string | undefined = slim.summary;
  const at: string | undefined = slim.start?.dateTime;
  void [summary, at];`,
    ],
    [
      'the items of a page, selected inside',
      `const page = await calendar.events.list({ calendarId: 'p', fields: 'items(id,summary),nextPageToken' });
  for (const event of page.items ?? []) void [event.id, event.summary];
  void page.nextPageToken;`,
    ],
    [
      'a path through the items of a page',
      `const page = await calendar.events.list({ calendarId: 'p', fields: 'items/start/dateTime' });
  void page.items?.[0]?.start?.dateTime;`,
    ],
    [
      'the items iterator, masked on the page',
      `for await (const event of calendar.events.list.items({ calendarId: 'p', fields: 'nextPageToken,items(id,summary)' }))
    void [event.id, event.summary];`,
    ],
    [
      'every field with *',
      `const all = await calendar.events.get({ calendarId: 'p', eventId: 'e', fields: '*' });
  const same: Event = all;
  void same;`,
    ],
    [
      'a map inside the answer',
      `const slim = await calendar.events.get({ calendarId: 'p', eventId: 'e', fields: 'extendedProperties/private/room' });
  const room: string | undefined = slim.extendedProperties?.private?.room;
  void room;`,
    ],
    [
      'a mask known only at run time: every field, each optional',
      `const mask: string = String(Date.now());
  const slim = await calendar.events.get({ calendarId: 'p', eventId: 'e', fields: mask });
  void slim.location;`,
    ],
    [
      'a mask with a conditional read',
      `const slim = await calendar.events.get({ calendarId: 'p', eventId: 'e', fields: 'etag,summary', ifNoneMatch: '"1"' });
  if (!('notModified' in slim)) void [slim.etag, slim.summary];`,
    ],
  ])('compiles: %s', (_name, body) => {
    expect(probe.errors(program(body))).toEqual([]);
  });

  it.each([
    [
      'a property the mask did not select',
      `const slim = await calendar.events.get({ calendarId: 'p', eventId: 'e', fields: 'summary,start/dateTime' });
  void slim.location;`,
      ["'location'"],
    ],
    [
      'a property inside a selected parent that the mask did not select',
      `const slim = await calendar.events.get({ calendarId: 'p', eventId: 'e', fields: 'summary,start/dateTime' });
  void slim.start?.timeZone;`,
      ["'timeZone'"],
    ],
    [
      'a property of an item that the mask did not select',
      `const page = await calendar.events.list({ calendarId: 'p', fields: 'items(id,summary)' });
  void page.items?.[0]?.location;`,
      ["'location'"],
    ],
    [
      'a property the items iterator did not select',
      `for await (const event of calendar.events.list.items({ calendarId: 'p', fields: 'items(id)' })) void event.summary;`,
      ["'summary'"],
    ],
    [
      'a page field the mask did not select',
      `const page = await calendar.events.list({ calendarId: 'p', fields: 'items(id)' });
  void page.nextPageToken;`,
      ["'nextPageToken'"],
    ],
  ])('does not compile: %s', (_name, body, named) => {
    const errors = probe.errors(program(body));
    expect(errors).toHaveLength(1);
    for (const part of named) expect(errors[0]).toContain(part);
  });
});

describe('programs that do not compile, and what the error names', () => {
  it.each([
    [
      'events.insert without end',
      `await calendar.events.insert({ calendarId: 'primary', start: {} });`,
      ["'end'", 'EventsInsertArgs'],
    ],
    [
      'events.insert without calendarId',
      `await calendar.events.insert({ start: {}, end: {} });`,
      ["'calendarId'", 'EventsInsertArgs'],
    ],
    [
      'acl.insert without role',
      `await calendar.acl.insert({ calendarId: 'primary', scope: { type: 'default' } });`,
      ["'role'", 'AclInsertArgs'],
    ],
    [
      'a read-only field sent (etag)',
      `await calendar.events.insert({ calendarId: 'primary', start: {}, end: {}, etag: '"1"' });`,
      ["'etag'", 'EventsInsertArgs'],
    ],
    [
      "a read-only field in a nested input (an attendee's self)",
      `await calendar.events.insert({ calendarId: 'primary', start: {}, end: {}, attendees: [{ email: 'a@example.com', self: true }] });`,
      ["'self'", 'EventAttendeeInput'],
    ],
    [
      'a read-only field on a body built first',
      `const body: EventInput = { summary: 'x', htmlLink: 'https://example.com' };
  void body;`,
      ["'htmlLink'", 'EventInput'],
    ],
    [
      'an enum value the spec does not list',
      `await calendar.events.insert({ calendarId: 'primary', start: {}, end: {}, sendUpdates: 'everyone' });`,
      ['"everyone"', '"all" | "externalOnly" | "none"'],
    ],
    [
      'a number where the spec has a string',
      `await calendar.events.get({ calendarId: 'primary', eventId: 42 });`,
      ["'number'", "'string'"],
    ],
    [
      'null in an insert (only patches clear with null)',
      `await calendar.events.insert({ calendarId: 'primary', start: {}, end: {}, location: null });`,
      ["'null'"],
    ],
    [
      'a body type that lacks what its operation requires (EventInput for events.insert)',
      `const body: EventInput = { summary: 'x' };
  await calendar.events.insert({ calendarId: 'primary', ...body });`,
      ["'start'"],
    ],
  ])('%s', (_name, body, named) => {
    const errors = probe.errors(program(body));
    expect(errors).toHaveLength(1);
    for (const part of named) expect(errors[0]).toContain(part);
  });
});

describe('deprecated parameters', () => {
  it('are struck through where they are read, and only they', () => {
    const code = program(
      `const args: EventsInsertArgs = { calendarId: 'primary', start: {}, end: {}, sendNotifications: true, sendUpdates: 'all' };
  void [args.sendNotifications, args.sendUpdates, args.calendarId];`,
    );
    expect(probe.errors(code)).toEqual([]);
    expect(probe.deprecations(code)).toEqual(['sendNotifications']);
  });
});

describe('the editor, inside the argument of events.insert', () => {
  const at = program(`await calendar.events.insert({ calendarId: 'primary', start: {}, end: {}, ${HERE} });`);

  it('offers the parameters and the body fields, not the read-only fields', () => {
    const names = probe.completions(at).map((c) => c.name);
    expect(names).toEqual(
      expect.arrayContaining(['summary', 'location', 'attendees', 'sendUpdates', 'conferenceDataVersion']),
    );
    expect(names.filter((n) => ['etag', 'created', 'htmlLink', 'kind', 'updated', 'id'].includes(n))).toEqual(
      ['id'],
    );
  });

  it('strikes through the deprecated parameter', () => {
    const byName = new Map(probe.completions(at).map((c) => [c.name, c.kindModifiers]));
    expect(byName.get('sendNotifications')).toContain('deprecated');
    expect(byName.get('sendUpdates')).not.toContain('deprecated');
  });

  it("shows a body field's description", () => {
    expect(probe.completionDoc(at, 'transparency')).toMatch(/busy/i);
    expect(probe.completionDoc(at, 'sendUpdates')).toContain('emailed');
  });

  it('names the type that declares a body field in its hover, with its description', () => {
    const hover = probe.hover(
      program(
        `await calendar.events.insert({ calendarId: 'primary', start: {}, end: {}, summ${HERE}ary: 'x' });`,
      ),
    );
    expect(hover.text).toMatch(/^\(property\) EventInput\.summary\?: string/);
    expect(hover.documentation).not.toBe('');
  });

  it('names the type of an answer', () => {
    const hover = probe.hover(
      program(
        `const creat${HERE}ed = await calendar.events.insert({ calendarId: 'p', start: {}, end: {} });`,
      ),
    );
    expect(hover.text).toBe('const created: Event');
  });

  it('keeps EventsInsertArgs one named interface', () => {
    const hover = probe.hover(program(`let args: EventsInsert${HERE}Args | undefined;`));
    expect(hover.text).toContain('interface EventsInsertArgs');
  });
});

const batchProgram = (
  body: string,
) => `import { createCalendar, createCalendarBatch, type BatchResult, type Event } from '@gspec/calendar';
const calendar = createCalendar({ accessToken: 't' });
const batch = createCalendarBatch({ accessToken: 't' });
export async function run(): Promise<unknown> {
${body}
  return undefined;
}
`;

describe('createCalendarWith: a client of the operations named, and the walk functions', () => {
  const bound = (body: string) => `import {
  createCalendar,
  createCalendarWith,
  eventsGet,
  eventsInstances,
  eventsList,
  eventsUpdate,
  googleAuth,
  items,
  modifyEvent,
  pages,
  settingsList,
  sync,
  type Event,
  type Events,
} from '@gspec/calendar';
const calendar = createCalendarWith({ accessToken: 't' }, eventsList, eventsGet, eventsInstances, settingsList);
export async function run(): Promise<unknown> {
${body}
  return undefined;
}
`;

  it.each([
    [
      'the answer of a bound method',
      `const page: Events = await calendar.events.list({ calendarId: 'primary' }); void page;`,
    ],
    [
      'items() of a bound list, typed Event',
      `for await (const event of items(calendar.events.list, { calendarId: 'primary' })) { const same: Event = event; void same; }`,
    ],
    [
      'items() with a literal mask: what the mask leaves of an item',
      `for await (const event of items(calendar.events.list, { calendarId: 'p', fields: 'items(id,summary),nextPageToken' })) { const id: string | undefined = event.id; void id; }`,
    ],
    [
      'pages() of a list whose argument may be left out',
      `for await (const page of pages(calendar.settings.list)) void page.items;`,
    ],
    [
      'sync() whose changes are typed Event',
      `const result = await sync(calendar.events.list, { calendarId: 'p' }, { onItems: (changed: Event[]) => void changed });
  const token: string = result.nextSyncToken; void token;`,
    ],
    [
      'the walk functions on a client of every operation',
      `const full = createCalendar({ accessToken: 't' });
  for await (const event of items(full.events.list, { calendarId: 'p' })) void event.summary;`,
    ],
    [
      'a library client as googleAuth(client)',
      `createCalendarWith({ auth: googleAuth({ getRequestHeaders: async () => new Headers() }) }, eventsList);`,
    ],
    [
      'modifyEvent with a client bound to events.get and events.update',
      `const edit = createCalendarWith({ accessToken: 't' }, eventsGet, eventsUpdate);
  await modifyEvent(edit, { calendarId: 'p', eventId: 'e' }, (event) => ({ ...event, summary: 'x' }));`,
    ],
  ])('compiles: %s', (_name, body) => {
    expect(probe.errors(bound(body))).toEqual([]);
  });

  it.each([
    [
      'an operation not named',
      `await calendar.events.insert({ calendarId: 'p', start: {}, end: {} });`,
      ["'insert'"],
    ],
    ['a resource none of whose operations is named', `await calendar.colors.get();`, ["'colors'"]],
    ['no operation at all', `createCalendarWith({ accessToken: 't' });`, ['at least 2 arguments']],
    ['items() without what the list requires', `items(calendar.events.list);`, ['2-3 arguments']],
    [
      'items() of a method that does not list',
      `items(calendar.events.get, { calendarId: 'p', eventId: 'e' });`,
      ["'ConditionalMethod<EventsGetArgs, Event>' has no properties in common with type 'ListMethod'"],
    ],
    ['a wrong argument to items()', `items(calendar.events.list, { calendarId: 1 });`, ["'number'"]],
    [
      'a masked-away field of an item',
      `for await (const event of items(calendar.events.list, { calendarId: 'p', fields: 'items(id),nextPageToken' })) void event.summary;`,
      ["'summary'"],
    ],
    [
      'sync() of a list that does not sync',
      `await sync(calendar.events.instances, { calendarId: 'p', eventId: 'e' }, { onItems: () => {} });`,
      ['never'],
    ],
    [
      'a library client as it is',
      `createCalendarWith({ auth: { getRequestHeaders: async () => new Headers() } }, eventsList);`,
      ["'getRequestHeaders' does not exist in type 'AuthSource'"],
    ],
  ])('does not compile: %s', (_name, body, named) => {
    const errors = probe.errors(bound(body));
    expect(errors).toHaveLength(1);
    for (const part of named) expect(errors[0]).toContain(part);
  });

  it("shows an operation's documentation on a bound method and on its export", () => {
    const method = probe.hover(bound(`void calendar.events.li${HERE}st;`));
    expect(method.text).toMatch(/^\(property\) list: ConditionalMethod<EventsListArgs, Events> & Walkable</);
    expect(method.documentation).toContain('**Incremental sync.**');
    expect(probe.hover(bound(`void events${HERE}List;`)).documentation).toContain('events.list');
  });
});

describe('createCalendarBatch', () => {
  it.each([
    [
      'a tuple of calls, whose results are a tuple typed by each operation',
      `const [created, read] = await batch((b) => [
    b.events.insert({ calendarId: 'primary', start: { date: '2027-01-04' }, end: { date: '2027-01-05' } }),
    b.colors.get(),
  ]);
  const event: Event | undefined = created.ok ? created.value : undefined;
  const kinds: string | undefined = read.ok ? read.value.kind : read.error.message;
  void event; void kinds;`,
    ],
    [
      'calls mapped from data, whose results are an array',
      `const events: { id: string; summary: string }[] = [];
  const results: BatchResult<Event>[] = await batch(
    (b) => events.map((e) => b.events.insert({ calendarId: 'primary', ...e, start: {}, end: {} }, { idempotent: true })),
    { maxCalls: 20 },
  );
  void results;`,
    ],
  ])('compiles: %s', (_name, body) => {
    expect(probe.errors(batchProgram(body))).toEqual([]);
  });

  it.each([
    [
      'events.insert without end',
      `b.events.insert({ calendarId: 'primary', start: {} })`,
      ["'end'", 'EventsInsertArgs'],
    ],
    ['events.get without eventId', `b.events.get({ calendarId: 'primary' })`, ["'eventId'", 'EventsGetArgs']],
    [
      'a number for a string',
      `b.events.get({ calendarId: 'primary', eventId: 42 })`,
      ["'number'", "'string'"],
    ],
    [
      'a read-only field',
      `b.events.insert({ calendarId: 'primary', start: {}, end: {}, etag: '"1"' })`,
      ["'etag'"],
    ],
    ['an operation that does not exist', `b.events.frobnicate({ calendarId: 'primary' })`, ["'frobnicate'"]],
    ["a single call's option", `b.colors.get({}, { timeoutMs: 5 })`, ["'timeoutMs'"]],
    ["a resource method's promise", `calendar.colors.get()`, ['BatchCall']],
  ])('does not compile: %s', (_name, call, named) => {
    const code = batchProgram(`  await batch((b) => [b.colors.get(), ${call}]);`);
    const errors = probe.errors(code);
    expect(errors).toHaveLength(1);
    for (const part of named) expect(errors[0]).toContain(part);
    // The same program with @ts-expect-error on the call compiles: the error is that call's.
    expect(probe.errors(code.replace(`, ${call}]`, `,\n    // @ts-expect-error\n    ${call}]`))).toEqual([]);
  });

  it('has, for every operation, the builder method of the kind the generator chose for the resource method', () => {
    const methods = readFileSync(path.resolve(import.meta.dirname, '../src/generated/methods.ts'), 'utf8');
    const resources = methods.slice(methods.indexOf('export interface ResourceMethods {'));
    const checks: string[] = [];
    let resource = '';
    for (const line of resources.slice(0, resources.indexOf('\n}')).split('\n')) {
      const opened = /^ {2}(\w+): \{$/.exec(line);
      if (opened) resource = opened[1] as string;
      const method = /^ {4}(\w+): (\w+)<(\w+), ([^>]+)>/.exec(line);
      if (method) {
        const [, name, kind, args, answer] = method;
        checks.push(
          `Same<CalendarBatchBuilder['${resource}']['${name}'], Batch${kind}<C.${args}, ${answer === 'void' ? 'void' : `C.${answer}`}>>`,
        );
      }
    }
    expect(checks).toHaveLength(37);
    const code = `import type * as C from '@gspec/calendar';
import type { CalendarBatchBuilder, ${['', 'Masked', 'Conditional'].flatMap((k) => [`Batch${k}Method`, `Batch${k}MethodOptionalArgs`]).join(', ')} } from '@gspec/calendar';
type Same<X, Y> = (<V>() => V extends X ? 1 : 2) extends <V>() => V extends Y ? 1 : 2 ? true : false;
export const checks: [${checks.map(() => 'true').join(', ')}] = [${checks.map(() => 'true').join(', ')}] as [${checks.join(', ')}];
`;
    expect(probe.errors(code)).toEqual([]);
    // The check can fail: a wrong kind for one operation is an error.
    const wrong = probe.errors(
      code.replace(
        "['colors']['get'], BatchMaskedMethodOptionalArgs",
        "['colors']['get'], BatchMaskedMethod",
      ),
    );
    expect(wrong.join('\n')).toMatch(/'false'/);
  });

  it("compiles the README's example", () => {
    const readme = readFileSync(path.resolve(import.meta.dirname, '../README.md'), 'utf8');
    const block = /<!-- consumer-test: calendar-batch -->\s*```ts\n([\s\S]*?)\n```/.exec(readme)?.[1];
    expect(block).toBeDefined();
    // What the README's other examples take as given: a client and an event's id.
    const prelude = `declare const accessToken: string;
declare const baseUrl: string;
`;
    expect(probe.errors(`${prelude}${block}\nexport {};\n`)).toEqual([]);
  });
});

describeEveryOperation(probe, { module: '@gspec/calendar', create: 'createCalendar' }, loadSpec('calendar'));
