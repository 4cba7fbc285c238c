import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  type ArgsOf,
  type Conversion,
  conversionInsert,
  createSearchAds360,
  createSearchAds360Client,
  createSearchAds360With,
  defaultBaseUrl,
  GoogleApiError,
  insertConversions,
  operations,
  type SearchAds360Resources,
} from '../src/index.ts';
import { scriptedFetch } from './support.ts';

const conversion = {
  agencyId: '20100000000000895',
  advertiserId: '21700000000011523',
  conversionId: 'order-1',
  conversionTimestamp: '1763627400000',
  segmentationType: 'FLOODLIGHT' as const,
  type: 'ACTION' as const,
  countMillis: '1000',
};

describe('createSearchAds360Client', () => {
  it('talks to the live service by default', () => {
    expect(defaultBaseUrl).toBe('https://doubleclicksearch.googleapis.com/doubleclicksearch/v2');
  });

  it.each<
    [
      string,
      {
        given: (c: ReturnType<typeof createSearchAds360Client>) => Promise<unknown>;
        want: { method: string; url: string; body?: unknown };
      },
    ]
  >([
    [
      'conversion.insert with the batch as its one body field',
      {
        given: (c) => c.conversion.insert({ conversion: [conversion] }),
        want: { method: 'POST', url: `${defaultBaseUrl}/conversion`, body: { conversion: [conversion] } },
      },
    ],
    [
      'conversion.get (deprecated) with its required paging parameters in the query',
      {
        given: (c) =>
          c.conversion.get({
            agencyId: '1',
            advertiserId: '2',
            engineAccountId: '3',
            startDate: 20260101,
            endDate: 20260131,
            startRow: 0,
            rowCount: 100,
          }),
        want: {
          method: 'GET',
          url: `${defaultBaseUrl}/agency/1/advertiser/2/engine/3/conversion?startDate=20260101&endDate=20260131&startRow=0&rowCount=100`,
        },
      },
    ],
  ])('sends %s', async (_title, { given, want }) => {
    const { fetch, requests } = scriptedFetch(
      Response.json({ kind: 'doubleclicksearch#conversionList', conversion: [] }),
    );
    await given(createSearchAds360Client({ accessToken: 'sa-token', fetch }));
    expect(requests[0]).toEqual({ body: undefined, ...want });
  });

  it("answers the ID-mapping file as text, as the spec's text/csv says", async () => {
    const csv = 'Entity type,Legacy entity ID\nCAMPAIGN,1\n';
    const { fetch, requests } = scriptedFetch(
      new Response(csv, { headers: { 'content-type': 'text/csv; charset=utf-8' } }),
    );
    const client = createSearchAds360Client({ accessToken: 't', fetch });
    expect(await client.reports.getIdMappingFile({ agencyId: '1', advertiserId: '2', alt: 'media' })).toBe(
      csv,
    );
    expect(requests[0]?.url).toBe(`${defaultBaseUrl}/agency/1/advertiser/2/idmapping?alt=media`);
    expect(operations['reports.getIdMappingFile'][5]).toBe(1);
  });

  it('keeps the raw openapi-fetch client on the same object', async () => {
    const { fetch } = scriptedFetch(
      Response.json(
        { error: { code: 401, message: 'no', errors: [{ reason: 'authError' }] } },
        { status: 401 },
      ),
    );
    const client = createSearchAds360Client({ fetch });
    const { error, response } = await client.GET(
      '/agency/{agencyId}/advertiser/{advertiserId}/savedcolumns',
      {
        params: { path: { agencyId: '1', advertiserId: '2' } },
      },
    );
    expect(response.status).toBe(401);
    expect(error?.error.errors?.[0]?.reason).toBe('authError');
    await expect(client.savedColumns.list({ agencyId: '1', advertiserId: '2' })).rejects.toBeInstanceOf(
      GoogleApiError,
    );
  });

  it('binds only the operations named with createSearchAds360With, sending what the other client sends', async () => {
    const body = { conversion: [] };
    const bound = scriptedFetch(Response.json({ kind: 'doubleclicksearch#conversionList' }));
    const full = scriptedFetch(Response.json({ kind: 'doubleclicksearch#conversionList' }));
    const searchAds = createSearchAds360With({ accessToken: 't', fetch: bound.fetch }, conversionInsert);
    expect(Object.keys(searchAds)).toEqual(['conversion']);
    expect(Object.keys(searchAds.conversion)).toEqual(['insert']);
    await searchAds.conversion.insert(body);
    await createSearchAds360Client({ accessToken: 't', fetch: full.fetch }).conversion.insert(body);
    expect(bound.requests).toEqual(full.requests);
  });

  it('types 64-bit ids as strings and leaves read-only fields out of requests', () => {
    expectTypeOf<NonNullable<Conversion['advertiserId']>>().toEqualTypeOf<string>();
    type Insert = ArgsOf<'conversion.insert'>;
    expectTypeOf<NonNullable<Insert['conversion']>[number]>().not.toHaveProperty('dsConversionId');
    const neverCalled = (c: ReturnType<typeof createSearchAds360Client>) => {
      // @ts-expect-error kind is read-only: the service sets it
      void c.conversion.insert({ kind: 'doubleclicksearch#conversionList', conversion: [] });
      // @ts-expect-error startDate, endDate, startRow and rowCount are required by conversion.get
      void c.conversion.get({ agencyId: '1', advertiserId: '2', engineAccountId: '3' });
    };
    expect(typeof neverCalled).toBe('function');
  });
});

describe('createSearchAds360', () => {
  it('has the resource namespaces of createSearchAds360Client and none of its raw methods', () => {
    const lean = createSearchAds360();
    const full = createSearchAds360Client();
    for (const name of Object.keys(lean) as (keyof SearchAds360Resources)[]) {
      expect(Object.keys(lean[name]).sort()).toEqual(Object.keys(full[name]).sort());
    }
    expect(Object.keys(lean).sort()).toEqual(['conversion', 'reports', 'savedColumns']);
    expect(['GET', 'POST', 'request', 'use'].filter((raw) => raw in lean)).toEqual([]);
  });

  it('sends a conversion batch as createSearchAds360Client does', async () => {
    const sent = [];
    for (const make of [createSearchAds360, createSearchAds360Client]) {
      const { fetch, requests } = scriptedFetch(
        Response.json({ kind: 'doubleclicksearch#conversionList', conversion: [conversion] }),
      );
      await insertConversions(make({ accessToken: 't', fetch }), [conversion]);
      sent.push(requests[0]);
    }
    expect(sent[0]).toMatchObject({ method: 'POST' });
    expect(sent[0]).toEqual(sent[1]);
  });
});
