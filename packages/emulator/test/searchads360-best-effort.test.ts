/**
 * The three Search Ads 360 batch operations are best effort per row (decision 0035): the valid
 * rows of a batch are stored, each refused row is named in the 400 by its index, and every row
 * the 400 does not name was stored. A resent stored conversion answers `duplicate`.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { worldOf } from '../src/apis/searchads360/state.ts';
import { useEmulator } from './support/harness.ts';
import { conversionCalls, example, problems, purchase, sa360, signup } from './support/searchads360.ts';

const emu = useEmulator();
const call = sa360(emu);

const { insert, update, stored } = conversionCalls(call);

/** The rows a 400 names, by index. */
const refusedRows = (reply: { body: { error?: { errors?: { location?: string }[] } } }): number[] => [
  ...new Set(
    (reply.body.error?.errors ?? []).map((e) => Number(/^\w+\[(\d+)\]/.exec(e.location ?? '')?.[1])),
  ),
];

beforeEach(() => emu.reset());

describe('conversion.insert is best effort per conversion', () => {
  it('stores the valid rows of a partly failing batch and names each refused row', async () => {
    const batch = [
      purchase('a'),
      purchase('b', { clickId: 'unknown-click' }),
      signup('c'),
      purchase('d', { type: 'SALE' }),
    ];
    const reply = await insert(...batch);
    expect(reply.status).toBe(400);
    expect(problems(reply)).toEqual(['conversion[1].clickId notFound', 'conversion[3].type invalid']);
    expect(reply.body.error.message).toBe('Refused 2 of 4 conversions, named in errors; stored the other 2.');
    expect(reply.body.error.status).toBe('INVALID_ARGUMENT');
    expect((await stored()).map((c) => c.conversionId)).toEqual(['a', 'c']);

    // Sent again, the stored rows answer duplicate and nothing new is stored.
    const again = await insert(...batch);
    expect(problems(again)).toEqual([
      'conversion[0].conversionId duplicate',
      'conversion[1].clickId notFound',
      'conversion[2].conversionId duplicate',
      'conversion[3].type invalid',
    ]);
    expect(again.body.error.message).toBe('Refused 4 of 4 conversions, named in errors; stored the other 0.');
    expect((await stored()).map((c) => c.conversionId)).toEqual(['a', 'c']);
  });

  it('stores the first of two rows with one conversionId and refuses the repeat as invalid', async () => {
    const reply = await insert(purchase('a'), purchase('a', { conversionTimestamp: '1763627400005' }));
    expect(problems(reply)).toEqual(['conversion[1].conversionId invalid']);
    expect((await stored()).map((c) => [c.conversionId, c.conversionTimestamp])).toEqual([
      ['a', '1763627400000'],
    ]);
  });

  it('stores nothing when the request itself is refused (an error located at no row)', async () => {
    const reply = await call('POST', '/conversion', { body: { conversion: purchase('a') } });
    expect(reply.status).toBe(400);
    expect(problems(reply)).toEqual(['conversion invalid']);
    expect(await stored()).toEqual([]);
  });

  it('ends 1,000 rows with 7 bad ones in 5 batches with 993 stored and 7 named; a rerun stores nothing new', async () => {
    const bad: Record<number, Record<string, unknown>> = {
      3: { clickId: 'no-such-click' },
      150: { segmentationType: undefined },
      199: { currencyCode: 'XYZ' },
      400: { type: 'SALE' },
      401: { segmentationName: 'Store visit' },
      777: { revenueMicros: '-5.5' },
      999: { conversionTimestamp: 'yesterday' },
    };
    const rows = Array.from({ length: 1000 }, (_, i) =>
      JSON.parse(JSON.stringify(purchase(`bulk-${i}`, bad[i] ?? {}))),
    );
    const run = async () => {
      const refused: number[] = [];
      const reasons = new Map<number, string[]>();
      for (let start = 0; start < rows.length; start += 200) {
        const reply = await insert(...rows.slice(start, start + 200));
        if (reply.status === 200) continue;
        expect(reply.status).toBe(400);
        for (const e of reply.body.error.errors as { location: string; reason: string }[]) {
          const i = start + Number(/^conversion\[(\d+)\]/.exec(e.location)?.[1]);
          reasons.set(i, [...(reasons.get(i) ?? []), e.reason]);
        }
        refused.push(...refusedRows(reply).map((i) => start + i));
      }
      return { refused: refused.sort((a, b) => a - b), reasons };
    };

    const first = await run();
    expect(first.refused).toEqual(Object.keys(bad).map(Number));
    expect((await stored()).length).toBe(993);

    const second = await run();
    expect(second.refused).toHaveLength(1000);
    const duplicates = [...second.reasons].filter(([, reasons]) => reasons.join() === 'duplicate');
    expect(duplicates).toHaveLength(993);
    for (const i of Object.keys(bad).map(Number)) expect(second.reasons.get(i)).not.toContain('duplicate');
    expect((await stored()).length).toBe(993);
  });
});

describe('conversion.update is best effort per conversion', () => {
  beforeEach(async () => {
    expect((await call('POST', '/conversion', { body: example('ConversionBatchInsert') })).status).toBe(200);
  });

  it('changes the rows it can and names the ones it cannot', async () => {
    const [purchaseRow, signupRow] = example('ConversionBatchInsert').conversion;
    const reply = await update(
      { ...purchaseRow, revenueMicros: '1000000' },
      { ...signupRow, conversionId: 'never-stored' },
      { ...signupRow, state: 'REMOVED' },
    );
    expect(reply.status).toBe(400);
    expect(problems(reply)).toEqual(['conversion[1].conversionId notFound']);
    expect(reply.body.error.message).toBe(
      'Refused 1 of 3 conversions, named in errors; changed the other 2.',
    );
    const now = await stored();
    expect(now.map((c) => [c.conversionId, c.revenueMicros ?? null, c.state])).toEqual([
      [purchaseRow.conversionId, '1000000', 'ACTIVE'],
      [signupRow.conversionId, null, 'REMOVED'],
    ]);
  });
});

describe('conversion.updateAvailability is best effort per availability', () => {
  it('records the valid availabilities and names the refused one', async () => {
    const batch = example('AvailabilityUpdate');
    batch.availabilities[1] = { ...batch.availabilities[1], segmentationName: 'Store visit' };
    delete batch.availabilities[1].segmentationId;
    const reply = await call('POST', '/conversion/updateAvailability', { body: batch });
    expect(reply.status).toBe(400);
    expect(problems(reply)).toEqual(['availabilities[1].segmentationName notFound']);
    expect(reply.body.error.message).toBe(
      'Refused 1 of 2 availabilities, named in errors; recorded the other 1.',
    );
    const recorded = worldOf(emu.emulator.store.state)?.availabilities ?? {};
    const times = Object.values(recorded).flatMap((byActivity) =>
      Object.values(byActivity).map((a) => [a.segmentationName, a.availabilityTimestamp]),
    );
    expect(times).toEqual([
      [batch.availabilities[0].segmentationName, batch.availabilities[0].availabilityTimestamp],
    ]);
  });
});
