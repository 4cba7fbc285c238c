import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { liftAllOfRequired, mapType, TypeMappingError } from '../lib/type-mapping.ts';

function printed(node: ts.TypeNode | undefined): string | undefined {
  if (!node) return undefined;
  const file = ts.createSourceFile('x.ts', '', ts.ScriptTarget.Latest);
  return ts.createPrinter().printNode(ts.EmitHint.Unspecified, node, file);
}

describe('mapType', () => {
  it.each([
    ['int64 strings stay strings', { type: 'string', format: 'int64' }, 'string'],
    ['dates stay strings', { type: 'string', format: 'date' }, 'string'],
    ['date-times stay strings', { type: 'string', format: 'date-time' }, 'string'],
    ['binary bodies are Blobs', { type: 'string', format: 'binary' }, 'Blob'],
    ['other schemas are left to openapi-typescript', { type: 'integer', format: 'int32' }, undefined],
  ])('%s', (_title, schema, want) => {
    expect(printed(mapType(schema, { path: '#/x' }))).toBe(want);
  });

  it('refuses an int64 typed as integer, naming where it is', () => {
    expect(() =>
      mapType(
        { type: 'integer', format: 'int64' },
        { path: '#/components/schemas/Channel/properties/expiration' },
      ),
    ).toThrow(TypeMappingError);
    expect(() =>
      mapType(
        { type: 'integer', format: 'int64' },
        { path: '#/components/schemas/Channel/properties/expiration' },
      ),
    ).toThrow(
      /#\/components\/schemas\/Channel\/properties\/expiration: a 64-bit integer must be "type: string, format: int64"/,
    );
  });
});

describe('liftAllOfRequired', () => {
  const ref = { $ref: '#/components/schemas/Event' };
  const idPattern = { properties: { id: { type: 'string', pattern: '^[a-v0-9]{5,1024}$' } } };
  it.each([
    [
      'a required-only member is lifted',
      { allOf: [ref, { required: ['start'] }] },
      { allOf: [ref], required: ['start'] },
    ],
    [
      'a member that also narrows a string property is lifted and dropped',
      { allOf: [ref, { required: ['start', 'end'], ...idPattern }] },
      { allOf: [ref], required: ['start', 'end'] },
    ],
    [
      'a member that only narrows a string property is dropped',
      { allOf: [ref, idPattern] },
      { allOf: [ref] },
    ],
    [
      'a member that adds a property type is kept',
      { allOf: [ref, { required: ['x'], properties: { x: { type: 'integer' } } }] },
      { allOf: [ref, { required: ['x'], properties: { x: { type: 'integer' } } }] },
    ],
    [
      'a member with an enum is kept (it changes the type)',
      { allOf: [ref, { properties: { x: { type: 'string', enum: ['a'] } } }] },
      { allOf: [ref, { properties: { x: { type: 'string', enum: ['a'] } } }] },
    ],
    [
      'nothing is lifted beside an inline schema',
      { allOf: [{ type: 'object' }, { required: ['x'] }] },
      { allOf: [{ type: 'object' }, { required: ['x'] }] },
    ],
  ])('%s', (_title, schema, want) => {
    const copy = structuredClone(schema);
    liftAllOfRequired(copy);
    expect(copy).toEqual(want);
  });
});
