import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { mapType, TypeMappingError } from '../lib/type-mapping.ts';

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
