import { describe, expect, it } from 'vitest';
import {
  IdMappingFormatError,
  type IdMappingRow,
  idMappingRows,
  parseIdMappingFile,
} from '../src/id-mapping.ts';
import { createSearchAds360Client } from '../src/index.ts';
import { scriptedFetch } from './support.ts';

const HEADER =
  'Entity type,Legacy agency ID,Legacy advertiser ID,Legacy engine account ID,Legacy entity ID,Customer ID,Entity ID,Entity name';
const CSV = `\uFEFF${HEADER}\nCAMPAIGN,20100000000000895,21700000000011523,700000000015483,71700000028180405,1234567890,20987654321,"Winter sale, EU"\nAD_GROUP,20100000000000895,21700000000011523,700000000015483,58700000039612842,1234567890,145678901234,Boots\n`;

function streamOf(text: string, size: number): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(at, at + size));
      at += size;
    },
  });
}

async function collect(rows: AsyncIterable<IdMappingRow>) {
  const all: IdMappingRow[] = [];
  for await (const row of rows) all.push(row);
  return all;
}

const firstRow = {
  entityType: 'CAMPAIGN',
  legacyAgencyId: '20100000000000895',
  legacyAdvertiserId: '21700000000011523',
  legacyEngineAccountId: '700000000015483',
  legacyEntityId: '71700000028180405',
  customerId: '1234567890',
  entityId: '20987654321',
  entityName: 'Winter sale, EU',
  other: {},
};

describe('parseIdMappingFile', () => {
  it.each<[string, { given: () => string | ReadableStream<Uint8Array> }]>([
    ['text', { given: () => CSV }],
    [
      'a byte stream cut into 7-byte chunks (multi-byte characters split)',
      { given: () => streamOf(CSV.replace('Boots', 'Bötchen'), 7) },
    ],
  ])('reads typed rows from %s', async (_title, { given }) => {
    const rows = await collect(parseIdMappingFile(given()));
    expect(rows).toHaveLength(2);
    expect(rows[0]).toEqual(firstRow);
    expect(rows[1]?.entityName).toMatch(/^B(oots|ötchen)$/);
  });

  it('finds columns by header name, in any order, and keeps unknown columns', async () => {
    const csv =
      'Entity name,Entity type,Legacy agency ID,Legacy advertiser ID,Legacy engine account ID,Legacy entity ID,Customer ID,Entity ID,Status\nBoots,AD_GROUP,1,2,3,4,5,6,ACTIVE\n';
    const [row] = await collect(parseIdMappingFile(csv));
    expect(row).toMatchObject({
      entityName: 'Boots',
      entityType: 'AD_GROUP',
      entityId: '6',
      other: { Status: 'ACTIVE' },
    });
  });

  it.each<[string, { given: string; want: RegExp }]>([
    [
      'a missing column',
      { given: 'Entity type,Entity ID\nCAMPAIGN,1\n', want: /no column "Legacy agency ID", .*\(row 1\)/ },
    ],
    ['a row with too many fields', { given: `${HEADER}\na,b,c,d,e,f,g,h,i\n`, want: /not valid CSV/ }],
  ])('refuses %s with IdMappingFormatError', async (_title, { given, want }) => {
    const error = await collect(parseIdMappingFile(given)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IdMappingFormatError);
    expect((error as Error).message).toMatch(want);
  });
});

describe('idMappingRows', () => {
  it('downloads the file with alt=media and yields its rows', async () => {
    const { fetch, requests } = scriptedFetch(new Response(CSV, { headers: { 'content-type': 'text/csv' } }));
    const rows = await collect(
      idMappingRows(createSearchAds360Client({ fetch }), { agencyId: '1', advertiserId: '2' }),
    );
    expect(rows.map((r) => r.entityType)).toEqual(['CAMPAIGN', 'AD_GROUP']);
    expect(requests[0]?.url).toBe(
      'https://doubleclicksearch.googleapis.com/doubleclicksearch/v2/agency/1/advertiser/2/idmapping?alt=media',
    );
  });
});
