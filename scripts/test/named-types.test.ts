/**
 * named-types.ts on small documents: each rule of type-mapping.ts as the generator writes it,
 * and the spec mistakes it refuses with a message naming the place.
 */
import { describe, expect, it } from 'vitest';
import { docLines, NamedTypes, operationTypeStem } from '../lib/named-types.ts';

const doc = {
  openapi: '3.1.0',
  components: {
    schemas: {
      Thing: {
        type: 'object',
        description: 'A thing.',
        required: ['name'],
        properties: {
          id: { type: 'string', readOnly: true, description: 'Set by the service.' },
          name: { type: 'string', examples: ['lamp'] },
          count: { type: 'string', format: 'int64' },
          size: { type: 'integer', format: 'int32', default: 1 },
          color: { type: ['string', 'null'], enum: ['red', 'blue'] },
          kind: { const: 'x#thing', readOnly: true },
          secret: { type: 'string', writeOnly: true },
          labels: { type: 'object', additionalProperties: { type: 'string' } },
          part: { $ref: '#/components/schemas/Part' },
          tags: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'null' }] } },
          old: { type: 'boolean', deprecated: true },
          'x-odd': { type: 'number' },
        },
      },
      Part: { type: 'object', properties: { made: { type: 'string', format: 'date-time', readOnly: true } } },
      Plain: { type: 'object', properties: { text: { type: 'string' } } },
      Shade: { type: 'string', enum: ['light', 'dark'] },
    },
  },
};
const named = new NamedTypes('test@v1', doc);

describe('NamedTypes', () => {
  it.each([
    [
      'a read-only property, documented as such',
      'Thing',
      'answer',
      /Read-only: the service sets it\.\n {3}\*\/\n {2}id\?: string;/,
    ],
    ['a required property', 'Thing', 'answer', /\n {2}name: string;/],
    ['int64 as string', 'Thing', 'answer', /\n {2}count\?: string;/],
    ['a nullable enum', 'Thing', 'answer', /\n {2}color\?: "red" \| "blue" \| null;/],
    ['const as a literal', 'Thing', 'answer', /\n {2}kind\?: "x#thing";/],
    [
      'additionalProperties as an index signature',
      'Thing',
      'answer',
      /labels\?: \{\n {4}\[key: string\]: string;\n {2}\};/,
    ],
    ['a $ref to a schema with an input, in an answer', 'Thing', 'answer', /\n {2}part\?: Part;/],
    [
      'anyOf as a union, in parentheses inside an array',
      'Thing',
      'answer',
      /\n {2}tags\?: \(string \| null\)\[\];/,
    ],
    ['a deprecated property', 'Thing', 'answer', /\/\*\* @deprecated \*\/\n {2}old\?: boolean;/],
    ['a name that is not an identifier, quoted', 'Thing', 'answer', /\n {2}"x-odd"\?: number;/],
    ['the example and the default', 'Thing', 'answer', /@example "lamp"[\s\S]*@default 1/],
    ['a $ref to a schema with an input, in an input', 'Thing', 'input', /\n {2}part\?: PartInput;/],
    ['a schema with nothing read-only is its own input', 'Plain', 'input', /^export interface Plain \{/m],
    ['an enum schema as a type alias', 'Shade', 'answer', /^export type Shade = "light" \| "dark";/m],
  ] as const)('writes %s', (_title, name, direction, expected) => {
    expect(named.declaration(name, direction)).toMatch(expected);
  });

  it.each([
    ['a read-only property', 'id'],
    ['a read-only const', 'kind'],
  ])('leaves %s out of the input', (_title, property) => {
    expect(named.declaration('Thing', 'input')).not.toMatch(new RegExp(`\\n {2}${property}\\?:`));
  });

  it('leaves a write-only property out of the answer, and keeps it in the input', () => {
    expect(named.declaration('Thing', 'answer')).not.toContain('secret');
    expect(named.declaration('Thing', 'input')).toContain('  secret?: string;');
  });

  it('gives an input type to a schema whose read-only property is one $ref away', () => {
    expect([named.hasInput('Thing'), named.hasInput('Part'), named.hasInput('Plain')]).toEqual([
      true,
      true,
      false,
    ]);
  });

  it('makes a body type for an operation that requires more than its schema', () => {
    const body = named.bodyOf(
      { allOf: [{ $ref: '#/components/schemas/Plain' }, { required: ['text'] }] },
      'ThingsInsertBody',
      'things.insert request body',
    );
    expect(body.typeName).toBe('ThingsInsertBody');
    expect(body.required).toBe(true);
    expect(body.declaration).toMatch(
      /export interface ThingsInsertBody extends Plain \{\n {2}text: string;\n\}/,
    );
  });

  it("uses the schema's input where the operation requires nothing more", () => {
    expect(named.bodyOf({ $ref: '#/components/schemas/Thing' }, 'B', 'here')).toEqual({
      typeName: 'ThingInput',
      required: true,
    });
  });

  it.each([
    [
      'a required property the schema does not have',
      { allOf: [{ $ref: '#/components/schemas/Plain' }, { required: ['nope'] }] },
      'test@v1: things.insert request body: requires "nope", which Plain does not have',
    ],
    [
      'a required property that is read-only',
      { allOf: [{ $ref: '#/components/schemas/Thing' }, { required: ['id'] }] },
      'test@v1: things.insert request body: requires "id", which is read-only in Thing',
    ],
    [
      'a $ref to no schema',
      { $ref: '#/components/schemas/Missing' },
      'test@v1: things.insert request body: unresolved $ref #/components/schemas/Missing',
    ],
  ])('refuses %s, naming the place', (_title, schema, message) => {
    expect(() => named.bodyOf(schema, 'B', 'things.insert request body')).toThrow(message);
  });
});

describe('helpers', () => {
  it.each([
    ['events.insert', 'EventsInsert'],
    ['calendarList.patch', 'CalendarListPatch'],
    ['reports.getIdMappingFile', 'ReportsGetIdMappingFile'],
  ])('operationTypeStem(%s) is %s', (id, stem) => {
    expect(operationTypeStem(id)).toBe(stem);
  });

  it('docLines takes a parameter description, its schema default and deprecation', () => {
    expect(
      docLines(
        { name: 'q', description: 'Search.', deprecated: true },
        { schema: { type: 'string', default: 'x' } },
      ),
    ).toEqual(['Search.', '@default "x"', '@deprecated']);
  });
});
