/**
 * The request types the handlers are written against (src/apis/<api>/generated/requests.ts,
 * generated from the specs) say what validateRequest delivers: query values converted to
 * their schema's type (numbers, booleans, arrays of them), path parameters as text.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { RequestOf } from '../src/apis/calendar/handler-types.ts';
import type { RequestOf as SearchAds360RequestOf } from '../src/apis/searchads360/handler-types.ts';
import { createSchemaTools } from '../src/core/schemas.ts';
import { type JsonObject, loadApiSpec } from '../src/core/spec.ts';
import { validateRequest } from '../src/core/validate.ts';

const specs = { calendar: loadApiSpec('calendar'), searchads360: loadApiSpec('searchads360') };

/** What validateRequest delivers for operation `id` with these path parameters, query and body. */
function deliver(
  api: keyof typeof specs,
  id: string,
  pathParams: Record<string, string>,
  query: string,
  body?: JsonObject,
) {
  const spec = specs[api];
  const op = spec.byId.get(id);
  if (!op) throw new Error(`no ${id}`);
  return validateRequest(
    op,
    {
      pathParams,
      query: new URLSearchParams(query),
      headers: {},
      body: body === undefined ? undefined : JSON.stringify(body),
      contentType: body === undefined ? undefined : 'application/json',
    },
    createSchemaTools(spec),
  );
}

describe('the generated request types and what the validator delivers', () => {
  it('events.list: maxResults a number, showDeleted a boolean, eventTypes an array of strings', () => {
    const request = deliver(
      'calendar',
      'events.list',
      { calendarId: 'primary' },
      'maxResults=5&showDeleted=true&eventTypes=default&eventTypes=focusTime&orderBy=updated&timeMin=2027-03-01T00:00:00Z',
    );
    expect(request.path).toEqual({ calendarId: 'primary' });
    expect(request.query).toEqual({
      maxResults: 5,
      showDeleted: true,
      eventTypes: ['default', 'focusTime'],
      orderBy: 'updated',
      timeMin: '2027-03-01T00:00:00Z',
    });
    expect(request.body).toBeUndefined();
    type Request = RequestOf<'events.list'>;
    expectTypeOf<Request['path']>().toEqualTypeOf<{ calendarId: string }>();
    expectTypeOf<Request['query']['maxResults']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<Request['query']['showDeleted']>().toEqualTypeOf<boolean | undefined>();
    expectTypeOf<Request['query']['orderBy']>().toEqualTypeOf<'startTime' | 'updated' | undefined>();
    expectTypeOf<Request['query']['timeMin']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<NonNullable<Request['query']['eventTypes']>>().toExtend<string[]>();
    expectTypeOf<Request['body']>().toEqualTypeOf<undefined>();
  });

  it('events.quickAdd and events.move: required query parameters are present', () => {
    const quickAdd = deliver('calendar', 'events.quickAdd', { calendarId: 'primary' }, 'text=Lunch');
    expect(quickAdd.query).toEqual({ text: 'Lunch' });
    expectTypeOf<RequestOf<'events.quickAdd'>['query']['text']>().toEqualTypeOf<string>();
    expectTypeOf<RequestOf<'events.move'>['query']['destination']>().toEqualTypeOf<string>();
  });

  it('a body is the one sent, typed by its schema (events.insert needs start and end)', () => {
    const body = { summary: 'Lunch', start: { date: '2027-03-01' }, end: { date: '2027-03-02' } };
    const request = deliver('calendar', 'events.insert', { calendarId: 'primary' }, '', body);
    expect(request.body).toEqual(body);
    type Body = RequestOf<'events.insert'>['body'];
    expectTypeOf<Body['summary']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<Body['start']>().not.toEqualTypeOf<undefined>();
    expectTypeOf<Body>().not.toExtend<undefined>();
  });

  it('conversion.get: its yyyymmdd days and rows are numbers, its int64 ids text', () => {
    const request = deliver(
      'searchads360',
      'conversion.get',
      { agencyId: '1', advertiserId: '2', engineAccountId: '3' },
      'startDate=20270301&endDate=20270331&startRow=0&rowCount=10&campaignId=44',
    );
    expect(request.query).toEqual({
      startDate: 20270301,
      endDate: 20270331,
      startRow: 0,
      rowCount: 10,
      campaignId: '44',
    });
    type Request = SearchAds360RequestOf<'conversion.get'>;
    expectTypeOf<Request['query']['startDate']>().toEqualTypeOf<number>();
    expectTypeOf<Request['query']['rowCount']>().toEqualTypeOf<number>();
    expectTypeOf<Request['query']['campaignId']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<Request['path']>().toEqualTypeOf<{
      agencyId: string;
      advertiserId: string;
      engineAccountId: string;
    }>();
  });

  /** The members of one group (`path`, `query`) of a request type in a generated requests.ts. */
  function membersOf(file: string, typeName: string, group: string): Map<string, string> {
    const block = file.split(`export type ${typeName} = {\n`)[1]?.split('\n};\n')[0] ?? '';
    const members = new Map<string, string>();
    const lines = block.split(`  ${group}: {\n`)[1]?.split('\n  };')[0] ?? '';
    for (const line of lines.split('\n')) {
      const match = /^ {4}"?([^"?:]+)"?\??: (.+);$/.exec(line);
      if (match) members.set(match[1] as string, match[2] as string);
    }
    return members;
  }

  const stem = (id: string) =>
    id
      .split(/[._-]/)
      .map((part) => (part[0]?.toUpperCase() ?? '') + part.slice(1))
      .join('');

  /** The type a value of this schema type has once validateRequest converted it (validate.ts). */
  const delivered = (type: unknown): RegExp =>
    type === 'integer' || type === 'number'
      ? /^number$/
      : type === 'boolean'
        ? /^boolean$/
        : /^(string|"[^"]*"( \| "[^"]*")*)$/;

  it.each(['calendar', 'searchads360'] as const)(
    '%s: every query parameter has the type the validator converts it to, every path parameter is text',
    (api) => {
      const file = readFileSync(
        path.resolve(import.meta.dirname, `../src/apis/${api}/generated/requests.ts`),
        'utf8',
      );
      let checked = 0;
      for (const op of specs[api].operations) {
        const query = membersOf(file, `${stem(op.id)}Request`, 'query');
        const pathMembers = membersOf(file, `${stem(op.id)}Request`, 'path');
        for (const parameter of op.parameters) {
          if (parameter.in === 'path') {
            expect(pathMembers.get(parameter.name), `${op.id} ${parameter.name}`).toBe('string');
          } else if (parameter.in === 'query') {
            const type = query.get(parameter.name) ?? '(missing)';
            const { schema } = parameter;
            if (schema.type === 'array') {
              const items = (schema.items ?? {}) as JsonObject;
              expect(type, `${op.id} ${parameter.name}`).toMatch(/\[\]$/);
              expect(type.replace(/^\(|\)?\[\]$/g, ''), `${op.id} ${parameter.name}`).toMatch(
                delivered(items.type),
              );
            } else {
              expect(type, `${op.id} ${parameter.name}`).toMatch(delivered(schema.type));
            }
          } else continue;
          checked++;
        }
      }
      expect(checked).toBeGreaterThan(api === 'calendar' ? 100 : 20);
    },
  );
});
