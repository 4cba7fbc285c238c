import { describe, expect, expectTypeOf, it } from 'vitest';
import { type Conversion, createSearchAds360Client, defaultBaseUrl } from '../src/index.ts';

describe('createSearchAds360Client', () => {
  it('talks to the live service by default', () => {
    expect(defaultBaseUrl).toBe('https://doubleclicksearch.googleapis.com/doubleclicksearch/v2');
  });

  it('sends conversion.insert as a JSON batch', async () => {
    const requests: Request[] = [];
    const client = createSearchAds360Client({
      accessToken: 'sa-token',
      fetch: async (request) => {
        requests.push(request);
        return Response.json({ kind: 'doubleclicksearch#conversionList', conversion: [] });
      },
    });
    const batch = {
      conversion: [
        {
          agencyId: '20100000000000895',
          advertiserId: '21700000000011523',
          conversionId: 'order-1',
          conversionTimestamp: '1763627400000',
          segmentationType: 'FLOODLIGHT' as const,
          type: 'ACTION' as const,
          countMillis: '1000',
        },
      ],
    };
    const { data } = await client.POST('/conversion', { body: batch });
    expect(data?.kind).toBe('doubleclicksearch#conversionList');
    expect(requests[0]?.method).toBe('POST');
    expect(requests[0]?.url).toBe('https://doubleclicksearch.googleapis.com/doubleclicksearch/v2/conversion');
    expect(requests[0]?.headers.get('authorization')).toBe('Bearer sa-token');
    expect(await requests[0]?.json()).toEqual(batch);
  });

  it('downloads the ID mapping file as text', async () => {
    const csv = 'Entity type,Legacy entity ID\nCAMPAIGN,1\n';
    const requests: Request[] = [];
    const client = createSearchAds360Client({
      accessToken: 'sa-token',
      fetch: async (request) => {
        requests.push(request);
        return new Response(csv, { headers: { 'content-type': 'text/csv; charset=utf-8' } });
      },
    });
    const { data } = await client.GET('/agency/{agencyId}/advertiser/{advertiserId}/idmapping', {
      params: { path: { agencyId: '1', advertiserId: '2' }, query: { alt: 'media' } },
      parseAs: 'text',
    });
    expect(data).toBe(csv);
    expect(requests[0]?.url).toBe(
      'https://doubleclicksearch.googleapis.com/doubleclicksearch/v2/agency/1/advertiser/2/idmapping?alt=media',
    );
  });

  it('types 64-bit ids as strings, never numbers', () => {
    expectTypeOf<NonNullable<Conversion['advertiserId']>>().toEqualTypeOf<string>();
    expectTypeOf<NonNullable<Conversion['engineAccountId']>>().toEqualTypeOf<string>();
  });
});
