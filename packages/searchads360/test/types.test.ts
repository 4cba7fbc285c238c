/**
 * The client's types as a user's compiler and editor meet them (see
 * @gspec/scripts/type-probe): programs that must compile, programs that must not and what the
 * error says, what is struck through and what completion offers.
 */
import path from 'node:path';
import { describeEveryOperation } from '@gspec/scripts/operation-type-tests';
import { createTypeProbe, HERE } from '@gspec/scripts/type-probe';
import { loadSpec } from '@gspec/specs';
import { describe, expect, it } from 'vitest';

const probe = createTypeProbe(path.resolve(import.meta.dirname, '..'));
const program = (body: string) => `import {
  createSearchAds360,
  type Conversion,
  type ConversionInput,
  type ConversionInsertArgs,
} from '@gspec/searchads360';
const searchAds = createSearchAds360({ accessToken: 't' });
const row: ConversionInput = {
  agencyId: '20100000000000895',
  advertiserId: '21700000000011523',
  conversionId: 'order-1',
  conversionTimestamp: '1799143200000',
  segmentationType: 'FLOODLIGHT',
  segmentationName: 'Online purchase',
  type: 'TRANSACTION',
  revenueMicros: '1000000',
};
export async function run(): Promise<unknown> {
${body}
  return row;
}
`;

describe('programs that compile', () => {
  it.each([
    ['a batch of ConversionInput rows', `await searchAds.conversion.insert({ conversion: [row] });`],
    [
      'the argument typed by its name',
      `const args: ConversionInsertArgs = { conversion: [row] };
  const { conversion } = await searchAds.conversion.insert(args);
  const stored: Conversion[] = conversion ?? [];
  void stored[0]?.dsConversionId;`,
    ],
    [
      // No trap of a resource read back (decision 0060): ConversionList requires nothing more on update.
      'conversions read back and sent back to conversion.update as they are',
      `const read = await searchAds.conversion.get({ agencyId: '1', advertiserId: '2', engineAccountId: '3', startDate: 20270101, endDate: 20270102, rowCount: 10, startRow: 0 });
  await searchAds.conversion.update({ ...read });`,
    ],
    [
      'the ID-mapping file as text',
      `const csv: string = await searchAds.reports.getIdMappingFile({ agencyId: '1', advertiserId: '2' });
  void csv;`,
    ],
  ])('%s', (_name, body) => {
    expect(probe.errors(program(body))).toEqual([]);
  });
});

describe('programs that do not compile, and what the error names', () => {
  it.each([
    [
      'a 64-bit id as a number',
      `await searchAds.conversion.insert({ conversion: [{ ...row, advertiserId: 21700000000011523 }] });`,
      ["'number'", "'string'"],
    ],
    [
      'a read-only field of a row (dsConversionId)',
      `await searchAds.conversion.insert({ conversion: [{ ...row, dsConversionId: '1' }] });`,
      ["'dsConversionId'", 'ConversionInput'],
    ],
    [
      'a read-only field of the batch (kind)',
      `await searchAds.conversion.insert({ kind: 'doubleclicksearch#conversionList', conversion: [row] });`,
      ["'kind'", 'ConversionInsertArgs'],
    ],
    [
      'an enum value the spec does not list',
      `const bad: ConversionInput = { ...row, type: 'PURCHASE' };
  void bad;`,
      ['"PURCHASE"', '"ACTION"', '"TRANSACTION"'],
    ],
    [
      'conversion.get without its required query parameters',
      `await searchAds.conversion.get({ agencyId: '1', advertiserId: '2', engineAccountId: '3' });`,
      ['ConversionGetArgs'],
    ],
  ])('%s', (_name, body, named) => {
    const errors = probe.errors(program(body));
    expect(errors).toHaveLength(1);
    for (const part of named) expect(errors[0]).toContain(part);
  });
});

describe('deprecated operations', () => {
  it('are struck through in completion and where they are called', () => {
    const byName = new Map(
      probe.completions(program(`void searchAds.conversion.${HERE};`)).map((c) => [c.name, c.kindModifiers]),
    );
    expect(byName.get('get')).toContain('deprecated');
    expect(byName.get('getByCustomerId')).toContain('deprecated');
    expect(byName.get('insert')).not.toContain('deprecated');
    const code = program(
      `void searchAds.conversion.get({ agencyId: '1', advertiserId: '2', engineAccountId: '3', endDate: 20270101, rowCount: 10, startDate: 20270101, startRow: 0 });`,
    );
    expect(probe.errors(code)).toEqual([]);
    expect(probe.deprecations(code)).toEqual(['get']);
  });

  it('are struck through as exports, and through a client bound to them', () => {
    const code = `import { conversionGet, conversionInsert, createSearchAds360With } from '@gspec/searchads360';
const searchAds = createSearchAds360With({ accessToken: 't' }, conversionGet, conversionInsert);
export const run = () => searchAds.conversion.get({ agencyId: '1', advertiserId: '2', engineAccountId: '3', endDate: 20270101, rowCount: 10, startDate: 20270101, startRow: 0 });
`;
    expect(probe.errors(code)).toEqual([]);
    expect(probe.deprecations(code).sort()).toEqual(['conversionGet', 'conversionGet', 'get']);
  });
});

describeEveryOperation(
  probe,
  { module: '@gspec/searchads360', create: 'createSearchAds360' },
  loadSpec('searchads360'),
);
