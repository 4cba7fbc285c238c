/**
 * The project's Search Ads 360 client (`@gspec/searchads360`) against the emulator, with only
 * the base URL changed: batched uploads whose refused rows come back by index while the others
 * are stored (best effort), a rerun that stores nothing new, the deprecated read, and the
 * ID-mapping rows.
 */
import {
  type ConversionInput,
  createSearchAds360,
  insertConversions,
  updateConversions,
} from '@gspec/searchads360';
import { idMappingRows } from '@gspec/searchads360/id-mapping';
import { describe, expect, it } from 'vitest';
import { useEmulator } from './support/harness.ts';
import { ADVERTISER, AGENCY, ENGINE, purchase, signup } from './support/searchads360.ts';

const emu = useEmulator();
/** Our client with only its base URL pointed at the emulator. */
const client = () =>
  createSearchAds360({ accessToken: 'ana@example.com', baseUrl: `${emu.origin}/doubleclicksearch/v2` });
/** The example engine account's conversions of 2025-11-20, through the deprecated read. */
const readBack = (searchAds: ReturnType<typeof client>) =>
  searchAds.conversion.get({
    agencyId: AGENCY,
    advertiserId: ADVERTISER,
    engineAccountId: ENGINE,
    startDate: 20251120,
    endDate: 20251120,
    startRow: 0,
    rowCount: 10,
  });

describe('@gspec/searchads360 against the emulator', () => {
  it('uploads in batches: a refused batch names its row, the other batches are stored', async () => {
    await emu.reset();
    const searchAds = client();
    const conversions = [
      purchase('c-1'),
      signup('c-2'),
      purchase('c-3', { clickId: 'unknown-click' }),
      signup('c-4', { conversionTimestamp: '1763628016000' }),
    ];
    const result = await insertConversions(searchAds, conversions as ConversionInput[], { batchSize: 2 });
    // Best effort: c-4 of the partly refused batch is stored too.
    expect(result.stored.map((c) => c.conversion.conversionId)).toEqual(['c-1', 'c-2', 'c-4']);
    expect(result.failed.map((f) => [f.index, f.errors.map((e) => `${e.field} ${e.reason}`)])).toEqual([
      [2, ['clickId notFound']],
    ]);
    expect(result.alreadyStored).toEqual([]);

    const read = await readBack(searchAds);
    expect(read.conversion?.map((c) => c.conversionId)).toEqual(['c-1', 'c-2', 'c-4']);

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

  it('stores the same conversionId at two timestamps, which the service refuses within one request', async () => {
    await emu.reset();
    const searchAds = client();
    const conversions = [
      purchase('order-9'),
      signup('s-1'),
      purchase('order-9', { conversionTimestamp: '1763627460000' }),
    ] as ConversionInput[];
    const result = await insertConversions(searchAds, conversions);
    expect(result.failed).toEqual([]);
    expect(result.stored.map((c) => [c.conversion.conversionId, c.conversion.conversionTimestamp])).toEqual([
      ['order-9', '1763627400000'],
      ['s-1', '1763628015000'],
      ['order-9', '1763627460000'],
    ]);
  });

  it('uploads 1,000 rows with 7 bad ones: 993 stored and 7 failed; a rerun stores nothing new', async () => {
    await emu.reset();
    const searchAds = client();
    const bad: Record<number, Record<string, unknown>> = {
      0: { clickId: 'no-such-click' },
      199: { segmentationType: undefined },
      200: { currencyCode: 'XYZ' },
      512: { type: 'SALE' },
      513: { segmentationName: 'Store visit' },
      640: { revenueMicros: '12.5' },
      999: { conversionTimestamp: 'yesterday' },
    };
    const input = Array.from(
      { length: 1000 },
      (_, i) => JSON.parse(JSON.stringify(purchase(`bulk-${i}`, bad[i] ?? {}))) as ConversionInput,
    );
    const badIndexes = Object.keys(bad).map(Number);

    const first = await insertConversions(searchAds, input, { batchSize: 200 });
    expect(first.stored).toHaveLength(993);
    expect(first.failed.map((f) => f.index)).toEqual(badIndexes);
    expect(first.alreadyStored).toEqual([]);

    const second = await insertConversions(searchAds, input, { batchSize: 200 });
    expect(second.stored).toEqual([]);
    expect(second.alreadyStored).toHaveLength(993);
    expect(second.alreadyStored.map((r) => r.index)).toEqual(
      input.map((_, i) => i).filter((i) => !badIndexes.includes(i)),
    );
    expect(second.failed.map((f) => f.index)).toEqual(badIndexes);
    expect(second.failed.map((f) => f.errors.map((e) => e.reason))).toEqual(
      first.failed.map((f) => f.errors.map((e) => e.reason)),
    );

    const read = await searchAds.conversion.get({
      agencyId: AGENCY,
      advertiserId: ADVERTISER,
      engineAccountId: ENGINE,
      startDate: 20251120,
      endDate: 20251120,
      startRow: 0,
      rowCount: 1000,
    });
    expect(read.conversion).toHaveLength(993);
  });

  it('updates best effort too: the rows it can are changed, the unknown one is named', async () => {
    await emu.reset();
    const searchAds = client();
    const input = ['u-1', 'u-2', 'u-3'].map((id) => purchase(id) as ConversionInput);
    expect((await insertConversions(searchAds, input)).stored).toHaveLength(3);
    const changes = [
      { ...input[0], revenueMicros: '5000000' },
      { ...input[1], conversionId: 'never-inserted' },
      { ...input[2], state: 'REMOVED' },
    ] as ConversionInput[];
    const result = await updateConversions(searchAds, changes);
    expect(result.stored.map((r) => r.index)).toEqual([0, 2]);
    expect(result.failed.map((f) => [f.index, f.errors.map((e) => `${e.field} ${e.reason}`)])).toEqual([
      [1, ['conversionId notFound']],
    ]);
    const read = await readBack(searchAds);
    expect(read.conversion?.map((c) => [c.conversionId, c.revenueMicros, c.state])).toEqual([
      ['u-1', '5000000', 'ACTIVE'],
      ['u-2', '129990000', 'ACTIVE'],
      ['u-3', '129990000', 'REMOVED'],
    ]);
  });
});
