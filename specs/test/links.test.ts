/**
 * The OpenAPI `links` of both APIs: where one operation's answer feeds another. Checked in the
 * bundled documents, the form tools read them in:
 *
 * - each expected link is on the 200 answer of its operation, names the right operationId,
 *   and carries exactly the expected parameters (or request body) as runtime expressions;
 * - every link of every answer is a reusable one (`#/components/links/...`, the split
 *   layout's `components/links/<Name>.yaml`), and every component link is used;
 * - every link names an operation of its own API, only parameters that operation takes, a
 *   `$request.path.<name>` of a path parameter the linking operation has, and a
 *   `$response.body#/<field>` of a property its answer's schema has.
 */
import { listApis, type OpenApiDocument } from '@gspec/scripts/apis';
import { beforeAll, describe, expect, it } from 'vitest';
import { deref, loadSpec, type OperationRef, operationsOf } from './support.ts';

// biome-ignore lint/suspicious/noExplicitAny: raw OpenAPI objects.
type Node = Record<string, any>;

interface ExpectedLink {
  api: 'calendar@v3' | 'searchads360@v2';
  from: string;
  link: string;
  to: string;
  parameters?: Record<string, string>;
  requestBody?: unknown;
}

const inCalendar = { calendarId: '$request.path.calendarId' };
const event = { ...inCalendar, eventId: '$response.body#/id' };
const guardedEvent = { ...event, 'If-Match': '$response.body#/etag' };
const newCalendar = { calendarId: '$response.body#/id' };
const rule = { ...inCalendar, ruleId: '$response.body#/id' };
const firstRow = (field: string) => `$response.body#/conversion/0/${field}`;
const sameAdvertiser = { agencyId: '$request.path.agencyId', advertiserId: '$request.path.advertiserId' };
const channel = { id: '{$response.body#/id}', resourceId: '{$response.body#/resourceId}' };

const eventLinks = (from: string): ExpectedLink[] => [
  { api: 'calendar@v3', from, link: 'EventGet', to: 'events.get', parameters: event },
  { api: 'calendar@v3', from, link: 'EventPatch', to: 'events.patch', parameters: guardedEvent },
  { api: 'calendar@v3', from, link: 'EventUpdate', to: 'events.update', parameters: guardedEvent },
  { api: 'calendar@v3', from, link: 'EventDelete', to: 'events.delete', parameters: guardedEvent },
  { api: 'calendar@v3', from, link: 'EventInstances', to: 'events.instances', parameters: event },
  { api: 'calendar@v3', from, link: 'EventMove', to: 'events.move', parameters: event },
];

const pageAndSync = (from: string, prefix: string, scoped: Record<string, string>): ExpectedLink[] => [
  {
    api: 'calendar@v3',
    from,
    link: `${prefix}NextPage`,
    to: from,
    parameters: { ...scoped, pageToken: '$response.body#/nextPageToken' },
  },
  {
    api: 'calendar@v3',
    from,
    link: `${prefix}Sync`,
    to: from,
    parameters: { ...scoped, syncToken: '$response.body#/nextSyncToken' },
  },
];

const EXPECTED: ExpectedLink[] = [
  ...eventLinks('events.insert'),
  ...eventLinks('events.import'),
  ...eventLinks('events.quickAdd'),
  ...pageAndSync('events.list', 'Events', inCalendar),
  ...pageAndSync('calendarList.list', 'CalendarList', {}),
  ...pageAndSync('acl.list', 'Acl', inCalendar),
  ...pageAndSync('settings.list', 'Settings', {}),
  {
    api: 'calendar@v3',
    from: 'events.instances',
    link: 'InstancesNextPage',
    to: 'events.instances',
    parameters: {
      ...inCalendar,
      eventId: '$request.path.eventId',
      pageToken: '$response.body#/nextPageToken',
    },
  },
  ...['events.watch', 'acl.watch', 'calendarList.watch', 'settings.watch'].map(
    (from): ExpectedLink => ({
      api: 'calendar@v3',
      from,
      link: 'ChannelStop',
      to: 'channels.stop',
      requestBody: channel,
    }),
  ),
  ...(
    [
      ['CalendarGet', 'calendars.get'],
      ['CalendarPatch', 'calendars.patch'],
      ['CalendarDelete', 'calendars.delete'],
      ['CalendarEventsList', 'events.list'],
      ['CalendarEventInsert', 'events.insert'],
      ['CalendarAclList', 'acl.list'],
      ['CalendarAclInsert', 'acl.insert'],
    ] as const
  ).map(
    ([link, to]): ExpectedLink => ({
      api: 'calendar@v3',
      from: 'calendars.insert',
      link,
      to,
      parameters: newCalendar,
    }),
  ),
  ...(
    [
      ['AclRuleGet', 'acl.get'],
      ['AclRuleUpdate', 'acl.update'],
      ['AclRulePatch', 'acl.patch'],
      ['AclRuleDelete', 'acl.delete'],
    ] as const
  ).map(
    ([link, to]): ExpectedLink => ({ api: 'calendar@v3', from: 'acl.insert', link, to, parameters: rule }),
  ),
  ...['conversion.insert', 'conversion.update'].flatMap((from): ExpectedLink[] => [
    {
      api: 'searchads360@v2',
      from,
      link: 'ConversionGet',
      to: 'conversion.get',
      parameters: {
        agencyId: firstRow('agencyId'),
        advertiserId: firstRow('advertiserId'),
        engineAccountId: firstRow('engineAccountId'),
      },
    },
    {
      api: 'searchads360@v2',
      from,
      link: 'ConversionGetByCustomerId',
      to: 'conversion.getByCustomerId',
      parameters: { customerId: firstRow('customerId') },
    },
  ]),
  {
    api: 'searchads360@v2',
    from: 'conversion.insert',
    link: 'ConversionUpdate',
    to: 'conversion.update',
    requestBody: '$request.body',
  },
  {
    api: 'searchads360@v2',
    from: 'conversion.insert',
    link: 'ConversionIdMappingFile',
    to: 'reports.getIdMappingFile',
    parameters: { agencyId: firstRow('agencyId'), advertiserId: firstRow('advertiserId') },
  },
  {
    api: 'searchads360@v2',
    from: 'savedColumns.list',
    link: 'AdvertiserIdMappingFile',
    to: 'reports.getIdMappingFile',
    parameters: sameAdvertiser,
  },
  {
    api: 'searchads360@v2',
    from: 'reports.getIdMappingFile',
    link: 'AdvertiserSavedColumns',
    to: 'savedColumns.list',
    parameters: sameAdvertiser,
  },
];

const docs = new Map<string, OpenApiDocument>();
const ops = new Map<string, Map<string, OperationRef>>();

beforeAll(async () => {
  for (const api of listApis()) {
    const doc = await loadSpec(api.name);
    docs.set(api.name, doc);
    ops.set(api.name, new Map(operationsOf(api.name, doc).map((ref) => [ref.operationId, ref])));
  }
});

function op(api: string, operationId: string): OperationRef {
  const found = ops.get(api)?.get(operationId);
  if (!found) throw new Error(`${api} has no operation ${operationId}`);
  return found;
}

/** The links of an operation's 200 answer, by name, as written (references not followed). */
function linksOf(api: string, operationId: string): Node {
  const doc = docs.get(api) as OpenApiDocument;
  const answer = deref<Node>(doc, op(api, operationId).operation.responses?.['200']);
  return answer?.links ?? {};
}

/** Path-level and operation-level parameters, as `in:name`. */
function parameterKeys(api: string, ref: OperationRef): Set<string> {
  const doc = docs.get(api) as OpenApiDocument;
  const all = [...(ref.pathItem.parameters ?? []), ...(ref.operation.parameters ?? [])];
  return new Set(all.map((raw) => deref<Node>(doc, raw)).map((p) => `${p.in}:${p.name}`));
}

/** Every link of every 200 answer of an API: [operationId, link name, link as written]. */
function allLinks(api: string): [string, string, Node][] {
  return [...(ops.get(api)?.values() ?? [])].flatMap((ref) =>
    Object.entries<Node>(linksOf(api, ref.operationId)).map(
      ([name, link]) => [ref.operationId, name, link] as [string, string, Node],
    ),
  );
}

/** The top-level property names a schema allows, through `$ref` and `allOf`. */
function propertiesOf(doc: OpenApiDocument, raw: Node): Set<string> {
  const schema = deref<Node>(doc, raw);
  const names = new Set<string>(Object.keys(schema.properties ?? {}));
  for (const part of schema.allOf ?? []) for (const name of propertiesOf(doc, part)) names.add(name);
  return names;
}

/** The runtime expressions of a link: its parameter values and those inside its request body. */
function expressionsOf(link: Node): string[] {
  const out = Object.values<string>(link.parameters ?? {});
  const body = link.requestBody;
  if (typeof body === 'string') out.push(body);
  else if (body && typeof body === 'object')
    for (const value of Object.values<string>(body)) out.push(value.replace(/^\{(.*)\}$/, '$1'));
  return out;
}

describe('expected links', () => {
  it.each(EXPECTED.map((e) => [`${e.from} -> ${e.link}`, e] as const))('%s', (_name, expected) => {
    const written = linksOf(expected.api, expected.from)[expected.link];
    expect(written, `${expected.from} has no link ${expected.link}`).toBeDefined();
    expect(written.$ref).toBe(`#/components/links/${expected.link}`);
    const link = deref<Node>(docs.get(expected.api) as OpenApiDocument, written);
    expect(link.operationId).toBe(expected.to);
    expect(link.parameters).toEqual(expected.parameters);
    expect(link.requestBody).toEqual(expected.requestBody);
    expect(link.description, 'says what the link is for').toMatch(/\S/);
  });
});

describe.each(listApis().map((api) => [api.name] as const))('every link of %s', (api) => {
  it('is a reusable component, and every component link is used', () => {
    const doc = docs.get(api) as OpenApiDocument;
    const links = allLinks(api);
    expect(links.length).toBeGreaterThan(0);
    for (const [from, name, link] of links)
      expect(link.$ref, `${from} ${name}`).toBe(`#/components/links/${name}`);
    const used = new Set(links.map(([, name]) => name));
    expect(Object.keys(doc.components?.links ?? {}).sort()).toEqual([...used].sort());
  });

  it('names an existing operation and only parameters it takes', () => {
    const doc = docs.get(api) as OpenApiDocument;
    for (const [from, name, written] of allLinks(api)) {
      const link = deref<Node>(doc, written);
      const target = ops.get(api)?.get(link.operationId);
      expect(target, `${from} ${name}: ${link.operationId} is not an operation of ${api}`).toBeDefined();
      const keys = parameterKeys(api, target as OperationRef);
      const names = new Set([...keys].map((key) => key.slice(key.indexOf(':') + 1)));
      for (const param of Object.keys(link.parameters ?? {}))
        expect(names.has(param), `${from} ${name}: ${link.operationId} takes no ${param}`).toBe(true);
      if (link.requestBody !== undefined)
        expect(
          target?.operation.requestBody,
          `${from} ${name}: ${link.operationId} takes no body`,
        ).toBeDefined();
    }
  });

  it('reads only what the linking request and answer have', () => {
    const doc = docs.get(api) as OpenApiDocument;
    for (const [from, name, written] of allLinks(api)) {
      const source = op(api, from);
      const keys = parameterKeys(api, source);
      const answer = deref<Node>(doc, source.operation.responses['200']);
      const schema = Object.values<Node>(answer.content ?? {})[0]?.schema;
      for (const expression of expressionsOf(deref<Node>(doc, written))) {
        const where = `${from} ${name}: ${expression}`;
        const path = /^\$request\.path\.(\w+)$/.exec(expression);
        const body = /^\$response\.body#\/(\w+)/.exec(expression);
        if (path) expect(keys.has(`path:${path[1]}`), where).toBe(true);
        else if (body) expect(propertiesOf(doc, schema).has(body[1] as string), where).toBe(true);
        else expect(expression, where).toBe('$request.body');
      }
    }
  });
});
