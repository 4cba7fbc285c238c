/**
 * The seed's rules for Calendar, checked in the form the tools read them (the bundled
 * calendar@v3 document), not only in prose:
 *
 * - the 37 operations of the seed, with exactly its methods and paths;
 * - primary calendars cannot be deleted, only cleared; secondary calendars are created and
 *   deleted;
 * - events.import takes only `default` events, and its fallback for other types is marked
 *   deprecated; events.move takes only `default` events and requires `destination`;
 * - events.update replaces the whole event, guarded by the etag in If-Match (412);
 * - every patch states the three patch semantics and costs 3 quota units, every other
 *   operation 1;
 * - an event is looked up by iCalUID with events.list; events.quickAdd requires `text`;
 * - paging and sync are declared on the lists; watch operations describe the push
 *   notification as a callback; body-less answers are 204;
 * - every operation has exactly the scopes of the facts;
 * - request examples carry no read-only and no unknown fields;
 * - a patch body is its resource with `null` allowed exactly where a field may be absent
 *   (decision 0037), while insert and update bodies take no null;
 * - an event's `dateTime` may leave out its offset only when `timeZone` is given (0036).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { OpenApiDocument } from '@gspec/scripts/apis';
import { beforeAll, describe, expect, it } from 'vitest';
import { allOperationsOf, deref, loadSpec, type OperationRef, operationsOf } from './support.ts';

const API = 'calendar@v3';
const fixture = (name: string) =>
  JSON.parse(readFileSync(path.resolve(import.meta.dirname, 'fixtures', name), 'utf8'));

interface SeedOperation {
  operationId: string;
  method: string;
  path: string;
}
interface FactsOperation {
  operation: string;
  scopes: string[];
}

const seed = fixture('seed-operations.json').apis[API] as SeedOperation[];
const facts = fixture('calendar-v3.facts.json').operations as FactsOperation[];

const PATCHES = seed.filter((op) => op.method === 'PATCH').map((op) => op.operationId);
const WATCHES = ['acl.watch', 'calendarList.watch', 'events.watch', 'settings.watch'];
const BODYLESS = [
  'acl.delete',
  'calendarList.delete',
  'calendars.delete',
  'calendars.clear',
  'events.delete',
  'channels.stop',
];
const NOTIFICATION_HEADERS = [
  'X-Goog-Channel-ID',
  'X-Goog-Channel-Token',
  'X-Goog-Channel-Expiration',
  'X-Goog-Resource-ID',
  'X-Goog-Resource-URI',
  'X-Goog-Resource-State',
  'X-Goog-Message-Number',
];
const NON_DEFAULT_TYPES = ['outOfOffice', 'focusTime', 'workingLocation', 'fromGmail'];

let doc: OpenApiDocument;
let ops: Map<string, OperationRef>;

beforeAll(async () => {
  doc = await loadSpec(API);
  ops = new Map(operationsOf(API, doc).map((op) => [op.operationId, op]));
});

function op(operationId: string): OperationRef {
  const found = ops.get(operationId);
  if (!found) throw new Error(`${operationId} is not in the spec`);
  return found;
}

// biome-ignore lint/suspicious/noExplicitAny: raw OpenAPI objects.
type Node = Record<string, any>;

/** Path-level and operation-level parameters merged, the operation's winning. */
function parametersOf(ref: OperationRef): Node[] {
  const merged = new Map<string, Node>();
  for (const raw of [...(ref.pathItem.parameters ?? []), ...(ref.operation.parameters ?? [])]) {
    const param = deref<Node>(doc, raw);
    merged.set(`${param.in}:${param.name}`, param);
  }
  return [...merged.values()];
}

function param(ref: OperationRef, name: string, location = 'query'): Node | undefined {
  return parametersOf(ref).find((p) => p.name === name && p.in === location);
}

function response(ref: OperationRef, status: string): Node | undefined {
  const raw = ref.operation.responses?.[status];
  return raw === undefined ? undefined : deref<Node>(doc, raw);
}

const description = (operationId: string): string => op(operationId).operation.description ?? '';

describe('operations of the seed', () => {
  it('has exactly the 37 operations of the seed', () => {
    expect(seed).toHaveLength(37);
    expect([...ops.keys()].sort()).toEqual(seed.map((s) => s.operationId).sort());
  });

  it.each(seed.map((s) => [s.operationId, s] as const))('%s has the seed method and path', (_id, s) => {
    const ref = op(s.operationId);
    expect([ref.method.toUpperCase(), ref.path]).toEqual([s.method, s.path]);
  });
});

describe('the batch endpoint', () => {
  const batch = () => {
    const found = allOperationsOf(API, doc).filter((ref) => ref.operation['x-batch'] !== undefined);
    expect(found).toHaveLength(1);
    return found[0] as OperationRef;
  };
  /** The named example of a multipart/mixed body: its text, and the Content-IDs of its parts. */
  const multipartExample = (media: Node) => {
    const example = deref<Node>(doc, Object.values<Node>(media.examples)[0]);
    const text = example.value as string;
    const boundary = /^--([^\r\n]+)\r\n/.exec(text)?.[1] as string;
    const parts = text.split(`--${boundary}`).slice(1, -1);
    return {
      text,
      boundary,
      parts,
      ids: parts.map((part) => /\r\nContent-ID: <([^>]+)>\r\n/.exec(part)?.[1]),
    };
  };

  it('is POST /batch/calendar/v3 at the host root, outside the API operations, costing nothing itself', () => {
    const ref = batch();
    expect([ref.method, ref.path]).toEqual(['post', '/batch/calendar/v3']);
    expect(ref.pathItem.servers?.map((server: Node) => server.url)).toEqual(['https://www.googleapis.com']);
    expect(ref.operation['x-batch']).toEqual({
      maxCalls: 50,
      partMediaType: 'application/http',
      pairing: 'Content-ID',
    });
    expect(ref.operation['x-quota-cost']).toBe(0);
    expect(ops.has(ref.operationId)).toBe(false);
  });

  it('states the rules: outer headers inherited, each call on its own, pairing by Content-ID, the limit', () => {
    const text = batch().operation.description as string;
    expect(text).toMatch(
      /headers of the outer request, other than the `Content-` ones, apply to every\s+part/,
    );
    expect(text).toMatch(/each call succeeds or\s+fails on its own/i);
    expect(text).toMatch(/pair\s+them by `Content-ID`/);
    expect(text).toMatch(/at most 50 calls/i);
    expect(text).toMatch(/as if it were sent\s+alone/);
  });

  it('takes and answers multipart/mixed, with examples that pair every answer with its call', () => {
    const ref = batch();
    const request = deref<Node>(doc, ref.operation.requestBody).content;
    const answer = response(ref, '200')?.content;
    expect(Object.keys(request)).toEqual(['multipart/mixed']);
    expect(Object.keys(answer)).toEqual(['multipart/mixed']);
    const calls = multipartExample(request['multipart/mixed']);
    const answers = multipartExample(answer['multipart/mixed']);
    expect(calls.text.endsWith(`--${calls.boundary}--\r\n`)).toBe(true);
    expect(calls.parts.length).toBeGreaterThan(1);
    for (const part of [...calls.parts, ...answers.parts])
      expect(part).toMatch(/^\r\nContent-Type: application\/http\r\n/);
    expect(answers.ids).toEqual(calls.ids.map((id) => `response-${id}`));
    for (const part of answers.parts) expect(part).toMatch(/\r\n\r\nHTTP\/1\.1 \d{3} /);
  });
});

describe('primary and secondary calendars', () => {
  it.each([
    ['calendars.delete', /secondary/i, /primary calendar cannot be deleted, only cleared/i],
    ['calendars.clear', /primary/i, /primary calendars cannot be deleted/i],
  ])('%s exists, answers 204 and states the rule', (operationId, kind, rule) => {
    expect(response(op(operationId), '204')).toBeDefined();
    expect(description(operationId)).toMatch(kind);
    expect(description(operationId)).toMatch(rule);
  });

  it('calendars.delete points to calendars.clear and refuses `primary` in its schema', () => {
    expect(description('calendars.delete')).toContain('calendars.clear');
    const calendarId = param(op('calendars.delete'), 'calendarId', 'path');
    expect(calendarId?.schema?.not).toEqual({ const: 'primary' });
  });

  it('calendars.insert creates secondary calendars', () => {
    expect(description('calendars.insert')).toMatch(/creates a secondary calendar/i);
    expect(description('calendars.insert')).toContain('calendars.delete');
  });
});

describe('quota cost', () => {
  it('knows the patch operations of the seed', () => {
    expect(PATCHES.sort()).toEqual(['acl.patch', 'calendarList.patch', 'calendars.patch', 'events.patch']);
  });

  it.each(seed.map((s) => [s.operationId, PATCHES.includes(s.operationId) ? 3 : 1] as const))(
    '%s costs %i quota unit(s)',
    (operationId, cost) => {
      expect(op(operationId).operation['x-quota-cost']).toBe(cost);
    },
  );
});

describe('patch semantics', () => {
  it.each(PATCHES.map((id) => [id]))('%s states the three semantics and its cost', (operationId) => {
    const text = description(operationId);
    expect(text).toMatch(/a field you send replaces the stored value/i);
    expect(text).toMatch(/a field you leave out keeps its value/i);
    expect(text).toMatch(/an array you send .*replaces the whole stored array/is);
    expect(text).toMatch(/three quota units/i);
  });
});

/**
 * Patch bodies (decision 0037): each patch schema lists every property of its resource with
 * the same schema; a property that may be absent also takes `null` (anyOf with a null
 * member), the others (required on the resource, unchangeable, read-only) do not.
 */
describe('null in patch bodies', () => {
  const bodySchema = (operationId: string): Node =>
    deref<Node>(doc, op(operationId).operation.requestBody).content['application/json'].schema;
  const refOf = (schema: Node): string | undefined =>
    schema.$ref ?? schema.allOf?.find((m: Node) => m.$ref)?.$ref;
  const strip = ({ description: _d, default: _f, deprecated: _x, ...rest }: Node): Node => rest;

  it.each([
    [
      'events.patch',
      'Event',
      'EventPatch',
      ['start', 'end', 'eventType', 'id', 'iCalUID', 'organizer', 'originalStartTime'],
    ],
    ['calendars.patch', 'Calendar', 'CalendarPatch', ['summary', 'timeZone']],
    ['calendarList.patch', 'CalendarListEntry', 'CalendarListEntryPatch', ['id']],
    // Every field of a rule is needed or read-only: its patch takes the rule as it is.
    ['acl.patch', 'AclRule', 'AclRule', ['role', 'scope']],
  ])('%s takes %s with null where a field may be absent', (operationId, resource, patch, neverNull) => {
    expect(refOf(bodySchema(operationId))).toBe(`#/components/schemas/${patch}`);
    const resourceProps: Record<string, Node> = doc.components?.schemas?.[resource]?.properties;
    const patchProps: Record<string, Node> = doc.components?.schemas?.[patch]?.properties;
    expect(Object.keys(patchProps).sort()).toEqual(Object.keys(resourceProps).sort());
    const nullable: string[] = [];
    for (const [name, property] of Object.entries(patchProps)) {
      const original = strip(resourceProps[name] as Node);
      if (Array.isArray(property.anyOf)) {
        nullable.push(name);
        expect(property.anyOf, name).toHaveLength(2);
        expect(strip(property.anyOf[0]), name).toEqual(original);
        expect(property.anyOf[1], name).toEqual({ type: 'null' });
      } else if (patch === 'EventPatch' && (name === 'start' || name === 'end')) {
        // start and end take EventDateTime with null allowed inside (date: null).
        expect(original.$ref).toBe('#/components/schemas/EventDateTime');
        expect(property.$ref, name).toBe('#/components/schemas/EventDateTimePatch');
      } else {
        expect(strip(property), name).toEqual(original);
      }
    }
    const writableOptional = Object.entries(resourceProps)
      .filter(([name, property]) => property.readOnly !== true && !neverNull.includes(name))
      .map(([name]) => name);
    expect(nullable.sort()).toEqual(writableOptional.sort());
  });

  it.each([
    ['events.insert', 'Event'],
    ['events.import', 'Event'],
    ['events.update', 'Event'],
    ['calendars.insert', 'Calendar'],
    ['calendars.update', 'Calendar'],
    ['calendarList.insert', 'CalendarListEntry'],
    ['calendarList.update', 'CalendarListEntry'],
    ['acl.insert', 'AclRule'],
    ['acl.update', 'AclRule'],
  ])('%s takes %s, which has no null anywhere', (operationId, resource) => {
    expect(refOf(bodySchema(operationId))).toBe(`#/components/schemas/${resource}`);
    expect(JSON.stringify(doc.components?.schemas?.[resource])).not.toContain('"null"');
  });

  it.each(PATCHES.map((id) => [id]))('%s says what null does', (operationId) => {
    expect(description(operationId)).toMatch(/`null`/);
  });
});

describe('event times', () => {
  const eventDateTime = (): Node => doc.components?.schemas?.EventDateTime;

  it.each([
    ['2027-03-01T10:00:00', true],
    ['2027-03-01T10:00:00.250', true],
    ['2027-03-01T10:00:00Z', true],
    ['2027-03-01T10:00:00+01:00', true],
    ['2027-03-01T10:00:00-05:30', true],
    ['2027-13-01T10:00:00', false],
    ['2027-03-01T24:00:00', false],
    ['2027-03-01 10:00:00', false],
    ['2027-03-01T10:00', false],
    ['2027-03-01', false],
  ])('dateTime %s matches the pattern: %s', (value, matches) => {
    expect(new RegExp(eventDateTime().properties.dateTime.pattern).test(value)).toBe(matches);
  });

  it('needs the offset (format date-time) exactly when timeZone is absent', () => {
    const schema = eventDateTime();
    expect(schema.properties.dateTime.format).toBeUndefined();
    expect(schema.if.required).toEqual(['timeZone']);
    expect(schema.then).toBeUndefined();
    expect(schema.else.properties.dateTime.format).toBe('date-time');
  });
});

describe('events.update', () => {
  it('replaces the whole event, without patch semantics', () => {
    expect(description('events.update')).toMatch(/replaces the whole event/i);
    expect(description('events.update')).toMatch(/no patch semantics/i);
  });

  it.each([['events.update'], ['events.patch'], ['events.delete']])(
    '%s takes If-Match and answers 412 conditionNotMet',
    (operationId) => {
      const ref = op(operationId);
      expect(param(ref, 'If-Match', 'header')).toBeDefined();
      const failed = response(ref, '412');
      const examples = Object.values<Node>(failed?.content?.['application/json']?.examples ?? {});
      const reasons = examples.flatMap((e) =>
        deref<Node>(doc, e).value.error.errors.map((x: Node) => x.reason),
      );
      expect(reasons).toContain('conditionNotMet');
    },
  );

  it('explains the atomic get-then-update with the etag', () => {
    expect(description('events.update')).toMatch(/events\.get.*etag.*If-Match/is);
  });
});

describe('events of type default only', () => {
  it.each([['events.import'], ['events.move']])('%s declares x-event-types [default]', (operationId) => {
    expect(op(operationId).operation['x-event-types']).toEqual(['default']);
    expect(description(operationId)).toMatch(/only `default` events/i);
  });

  it('events.import marks its fallback for other types as deprecated', () => {
    const behaviors = op('events.import').operation['x-deprecated-behavior'] as Node[];
    expect(behaviors).toHaveLength(1);
    expect(behaviors[0]?.description).toMatch(/not default is stored as a default event/i);
    expect(behaviors[0]?.description).toMatch(/dropped/i);
    expect(description('events.import')).toMatch(/deprecated behavior/i);
    expect(op('events.import').operation.deprecated).not.toBe(true);
  });

  it('events.move names every type it refuses', () => {
    for (const type of NON_DEFAULT_TYPES) expect(description('events.move')).toContain(`\`${type}\``);
  });
});

describe('required query parameters', () => {
  it.each([
    ['events.move', 'destination'],
    ['events.quickAdd', 'text'],
  ])('%s requires %s', (operationId, name) => {
    const found = param(op(operationId), name);
    expect(found?.required).toBe(true);
    expect(found?.schema?.type).toBe('string');
  });

  it.each([['events.move'], ['events.quickAdd']])('%s has no request body', (operationId) => {
    expect(op(operationId).operation.requestBody).toBeUndefined();
  });
});

describe('looking an event up by iCalUID', () => {
  it('events.list takes iCalUID', () => {
    expect(param(op('events.list'), 'iCalUID')?.schema?.type).toBe('string');
  });

  it('events.get does not, and says to use events.list', () => {
    expect(param(op('events.get'), 'iCalUID')).toBeUndefined();
    expect(description('events.get')).toMatch(/iCalUID.*events\.list/s);
  });
});

describe('paging and sync', () => {
  it.each([
    ['acl.list', true],
    ['calendarList.list', true],
    ['events.list', true],
    ['settings.list', true],
    ['events.instances', false],
  ])('%s pages (sync: %s)', (operationId, syncs) => {
    const ref = op(operationId);
    const paging = ref.operation['x-pagination'];
    expect(param(ref, paging.pageTokenParameter)).toBeDefined();
    const body = deref<Node>(doc, response(ref, '200')?.content['application/json'].schema);
    expect(body.properties[paging.nextPageTokenField]).toBeDefined();
    expect(body.properties[paging.itemsField]?.type).toBe('array');
    const sync = ref.operation['x-sync'];
    if (!syncs) {
      expect(sync).toBeUndefined();
      return;
    }
    expect(param(ref, sync.syncTokenParameter)).toBeDefined();
    expect(body.properties[sync.nextSyncTokenField]).toBeDefined();
    for (const name of sync.incompatibleParameters) expect(param(ref, name), name).toBeDefined();
    expect(response(ref, '410')).toBeDefined();
  });

  it.each([
    ['acl.list', []],
    ['settings.list', []],
    ['calendarList.list', ['minAccessRole']],
  ])('%s refuses %j with a sync token', (operationId, incompatible) => {
    expect(op(operationId).operation['x-sync'].incompatibleParameters).toEqual(incompatible);
  });
});

describe('watch channels', () => {
  it.each(WATCHES.map((id) => [id]))('%s sends the push notification as a callback', (operationId) => {
    const callbacks = op(operationId).operation.callbacks ?? {};
    const entries = Object.values<Node>(callbacks).map((cb) => deref<Node>(doc, cb));
    expect(entries).toHaveLength(1);
    const notification = entries[0]?.['{$request.body#/address}']?.post;
    expect(notification).toBeDefined();
    expect(notification.requestBody).toBeUndefined();
    const headers = (notification.parameters as Node[]).map((p) => deref<Node>(doc, p));
    expect(headers.every((h) => h.in === 'header')).toBe(true);
    expect(headers.map((h) => h.name).sort()).toEqual([...NOTIFICATION_HEADERS].sort());
    const state = headers.find((h) => h.name === 'X-Goog-Resource-State');
    expect(state?.schema?.enum).toEqual(['sync', 'exists', 'not_exists']);
    expect(Object.keys(notification.responses)).toContain('2XX');
  });

  it.each(WATCHES.map((id) => [id]))('%s takes and returns a Channel', (operationId) => {
    const ref = op(operationId);
    const request = ref.operation.requestBody.content['application/json'].schema;
    expect(request.allOf[0].$ref).toBe('#/components/schemas/Channel');
    expect(request.allOf[1].required.sort()).toEqual(['address', 'id', 'type']);
    expect(response(ref, '200')?.content['application/json'].schema.$ref).toBe(
      '#/components/schemas/Channel',
    );
  });

  it('channels.stop needs the channel id and resourceId', () => {
    const request = op('channels.stop').operation.requestBody.content['application/json'].schema;
    expect(request.allOf[1].required.sort()).toEqual(['id', 'resourceId']);
  });
});

describe('body-less answers', () => {
  it.each(BODYLESS.map((id) => [id]))('%s answers 204 with no content', (operationId) => {
    const ref = op(operationId);
    const success = Object.keys(ref.operation.responses).filter((status) => status.startsWith('2'));
    expect(success).toEqual(['204']);
    expect(response(ref, '204')?.content).toBeUndefined();
  });
});

describe('scopes', () => {
  it('has facts for every operation', () => {
    expect(facts.map((f) => f.operation).sort()).toEqual([...ops.keys()].sort());
  });

  it.each(facts.map((f) => [f.operation, f.scopes] as const))(
    '%s allows exactly the facts scopes',
    (id, scopes) => {
      const security = op(id).operation.security as Node[];
      expect(security).toHaveLength(1);
      expect([...(security[0]?.OAuth2 ?? [])].sort()).toEqual([...scopes].sort());
    },
  );
});

/**
 * Lint cannot see unknown properties through `allOf` (docs/decisions/0011), and does not
 * check read-only fields in requests, so the request examples are walked here.
 */
describe('request examples', () => {
  /** The properties a schema allows, following `$ref` and `allOf`. */
  function propertiesOf(schema: Node): { properties: Record<string, Node>; open: boolean } {
    const resolved = deref<Node>(doc, schema);
    const properties: Record<string, Node> = { ...(resolved.properties ?? {}) };
    let open = resolved.additionalProperties !== undefined && resolved.additionalProperties !== false;
    for (const member of resolved.allOf ?? []) {
      const inner = propertiesOf(member);
      Object.assign(properties, inner.properties);
      open ||= inner.open;
    }
    return { properties, open };
  }

  /** Paths in `value` that the schema does not allow in a request. */
  function problems(value: unknown, schema: Node, where: string): string[] {
    let resolved = deref<Node>(doc, schema);
    // A patch property that takes null: a value is checked against its other member.
    if (Array.isArray(resolved.anyOf)) {
      if (value === null) return [];
      resolved = deref<Node>(doc, resolved.anyOf.find((m: Node) => m.type !== 'null') ?? {});
    }
    if (Array.isArray(value)) {
      return resolved.items
        ? value.flatMap((item, i) => problems(item, resolved.items, `${where}[${i}]`))
        : [];
    }
    if (value === null || typeof value !== 'object') return [];
    const { properties, open } = propertiesOf(resolved);
    const found: string[] = [];
    for (const [key, child] of Object.entries(value)) {
      const property = properties[key];
      if (!property) {
        const extra = deref<Node>(doc, resolved).additionalProperties;
        if (open && typeof extra === 'object') found.push(...problems(child, extra, `${where}.${key}`));
        else if (!open) found.push(`${where}.${key} is not in the schema`);
        continue;
      }
      if (property.readOnly || deref<Node>(doc, property).readOnly)
        found.push(`${where}.${key} is read-only`);
      found.push(...problems(child, property, `${where}.${key}`));
    }
    return found;
  }

  function requestExamples(): [string, string, unknown, Node][] {
    const out: [string, string, unknown, Node][] = [];
    for (const ref of ops.values()) {
      const media = deref<Node>(doc, ref.operation.requestBody ?? {})?.content?.['application/json'];
      for (const [name, example] of Object.entries<Node>(media?.examples ?? {})) {
        out.push([ref.operationId, name, deref<Node>(doc, example).value, media.schema]);
      }
    }
    return out;
  }

  it('finds the request examples', () => {
    expect(requestExamples().length).toBeGreaterThanOrEqual(20);
  });

  it('carry no read-only and no unknown fields', () => {
    const found = requestExamples().flatMap(([id, name, value, schema]) =>
      problems(value, schema, `${id}:${name}`),
    );
    expect(found).toEqual([]);
  });
});
