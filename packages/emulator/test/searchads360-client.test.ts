/**
 * The project's Search Ads 360 client (`@gspec/searchads360`) against the emulator, with only
 * the base URL changed: batched uploads whose refused rows come back by index, the deprecated
 * read, and the ID-mapping rows.
 */
import { type ConversionInput, createSearchAds360, insertConversions } from '@gspec/searchads360';
import { idMappingRows } from '@gspec/searchads360/id-mapping';
import { describe, expect, it } from 'vitest';
import { useEmulator } from './support/harness.ts';
import { ADVERTISER, AGENCY, ENGINE, purchase, signup } from './support/searchads360.ts';

const emu = useEmulator();

describe('@gspec/searchads360 against the emulator', () => {
  it('uploads in batches: a refused batch names its row, the other batches are stored', async () => {
    await emu.reset();
    const searchAds = createSearchAds360({
      accessToken: 'ana@example.com',
      baseUrl: `${emu.origin}/doubleclicksearch/v2`,
    });
    const conversions = [
      purchase('c-1'),
      signup('c-2'),
      purchase('c-3', { clickId: 'unknown-click' }),
      signup('c-4', { conversionTimestamp: '1763628016000' }),
    ];
    const result = await insertConversions(searchAds, conversions as ConversionInput[], { batchSize: 2 });
    expect(result.stored.map((c) => c.conversionId)).toEqual(['c-1', 'c-2']);
    expect(result.failed.map((f) => [f.index, f.errors.map((e) => `${e.field} ${e.reason}`)])).toEqual([
      [2, ['clickId notFound']],
    ]);
    expect(result.resend.map((r) => r.index)).toEqual([3]);

    const read = await searchAds.conversion.get({
      agencyId: AGENCY,
      advertiserId: ADVERTISER,
      engineAccountId: ENGINE,
      startDate: 20251120,
      endDate: 20251120,
      startRow: 0,
      rowCount: 10,
    });
    expect(read.conversion?.map((c) => c.conversionId)).toEqual(['c-1', 'c-2']);

    const rows = [];
    for await (const row of idMappingRows(searchAds, { agencyId: AGENCY, advertiserId: ADVERTISER }))
      rows.push(row);
    expect(rows.map((row) => row.entityType)).toEqual([
      'ENGINE_ACCOUNT',
      'CAMPAIGN',
      'AD_GROUP',
      'AD',
      'KEYWORD',
    ]);
  });
});
