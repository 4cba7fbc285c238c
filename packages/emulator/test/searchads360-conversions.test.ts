/** Search Ads 360 conversion.insert and conversion.update: row checks, keys, best effort per row. */
import { beforeEach, describe, expect, it } from 'vitest';
import { useEmulator } from './support/harness.ts';
import {
  AGENCY,
  CUSTOMER,
  conversionCalls,
  ENGINE,
  example,
  PURCHASE_CLICK,
  problems,
  purchase,
  responseExample,
  SIGNUP_CLICK,
  sa360,
  signup,
} from './support/searchads360.ts';

// Strict mode: these tests check the closed world of the seed and the examples, where an id no
// one named is refused; the default mode creates such ids on first use (searchads360-any-ids.test.ts).
const emu = useEmulator({ strict: true, users: { 'ana@example.com': 'ana@example.com' } });
const call = sa360(emu);

const { insert, update, stored } = conversionCalls(call);

const without = (value: Record<string, unknown>, ...keys: string[]) =>
  Object.fromEntries(Object.entries(value).filter(([key]) => !keys.includes(key)));

beforeEach(() => emu.reset());

describe('conversion.insert', () => {
  it("stores the spec's example batch and answers it as the spec's example answer shows", async () => {
    const reply = await call('POST', '/conversion', { body: example('ConversionBatchInsert') });
    expect(reply.status).toBe(200);
    const shown = example('ConversionBatchInserted');
    const modified = (list: Record<string, unknown>[]) =>
      list.map((c) => without(c, 'conversionModifiedTimestamp'));
    expect(modified(reply.body.conversion)).toEqual(modified(shown.conversion));
    expect(reply.body.kind).toBe('doubleclicksearch#conversionList');
    const [first, second] = reply.body.conversion;
    expect(Number(second.conversionModifiedTimestamp)).toBeGreaterThan(
      Number(first.conversionModifiedTimestamp),
    );
    expect(Math.abs(Number(first.conversionModifiedTimestamp) - Date.now())).toBeLessThan(60_000);
    expect(await stored()).toEqual(reply.body.conversion);
  });

  it('fills in what the service sets: activity id, attribution, currency, state; ignores read-only fields', async () => {
    const reply = await insert(
      purchase('order-1', {
        currencyCode: undefined,
        dsConversionId: '1',
        conversionModifiedTimestamp: '1',
        attributionModel: 'Last click',
        unknownField: 'x',
      }),
    );
    expect(reply.status).toBe(200);
    expect(reply.body.conversion[0]).toMatchObject({
      segmentationId: '25700000001086214',
      engineAccountId: ENGINE,
      customerId: CUSTOMER,
      campaignId: '71700000001985613',
      adGroupId: '58700000078244115',
      deviceType: 'DESKTOP',
      currencyCode: 'EUR',
      state: 'ACTIVE',
      attributionModel: 'Data driven',
      dsConversionId: '4398046511104',
    });
    expect(reply.body.conversion[0].unknownField).toBeUndefined();
  });

  it('attributes by engine account and entity ids without a click, filling in the parents', async () => {
    const byAd = purchase('order-2', {
      clickId: undefined,
      engineAccountId: ENGINE,
      adId: '44700000219870334',
    });
    const byCustomer = signup('signup-2', { clickId: undefined, customerId: CUSTOMER, deviceType: 'TABLET' });
    const reply = await insert(byAd, byCustomer);
    expect(reply.status).toBe(200);
    expect(reply.body.conversion[0]).toMatchObject({
      engineAccountId: ENGINE,
      customerId: CUSTOMER,
      campaignId: '71700000001985613',
      adGroupId: '58700000078244116',
      adId: '44700000219870334',
    });
    expect(reply.body.conversion[0].clickId).toBeUndefined();
    expect(reply.body.conversion[1]).toMatchObject({ engineAccountId: ENGINE, deviceType: 'TABLET' });
    expect(reply.body.conversion[1].campaignId).toBeUndefined();
  });

  const refused: [string, Record<string, unknown>, string[]][] = [
    [
      'no timestamp',
      purchase('x', { conversionTimestamp: undefined }),
      ['conversion[0].conversionTimestamp required'],
    ],
    ['no agency', purchase('x', { agencyId: undefined }), ['conversion[0].agencyId required']],
    ['no conversionId', purchase(''), ['conversion[0].conversionId required']],
    [
      'no activity',
      purchase('x', { segmentationType: undefined, segmentationName: undefined }),
      ['conversion[0].segmentationType required', 'conversion[0].segmentationName required'],
    ],
    [
      'a timestamp that is not ms',
      purchase('x', { conversionTimestamp: '2025-11-20' }),
      ['conversion[0].conversionTimestamp invalid'],
    ],
    ['an unknown agency', purchase('x', { agencyId: '1' }), ['conversion[0].agencyId notFound']],
    [
      'an advertiser of no such agency',
      purchase('x', { advertiserId: '2' }),
      ['conversion[0].advertiserId notFound'],
    ],
    ['an unknown click', purchase('x', { clickId: 'nope' }), ['conversion[0].clickId notFound']],
    [
      'a click id named like a prototype property',
      purchase('x', { clickId: 'constructor' }),
      ['conversion[0].clickId notFound'],
    ],
    ['the click id __proto__', purchase('x', { clickId: '__proto__' }), ['conversion[0].clickId notFound']],
    [
      'an unknown activity name',
      purchase('x', { segmentationName: 'Store visit' }),
      ['conversion[0].segmentationName notFound'],
    ],
    [
      'an unknown activity id',
      purchase('x', { segmentationId: '9', segmentationName: undefined }),
      ['conversion[0].segmentationId notFound'],
    ],
    [
      'a revenue that is not whole micros',
      purchase('x', { revenueMicros: '12.5' }),
      ['conversion[0].revenueMicros invalid'],
    ],
    [
      'a quantity beyond int64',
      signup('x', { quantityMillis: '9223372036854775808' }),
      ['conversion[0].quantityMillis invalid'],
    ],
    [
      'no segmentationType',
      purchase('x', { segmentationType: undefined }),
      ['conversion[0].segmentationType required'],
    ],
    ['an unknown currency', purchase('x', { currencyCode: 'XYZ' }), ['conversion[0].currencyCode invalid']],
    [
      'neither click nor engine account',
      purchase('x', { clickId: undefined }),
      ['conversion[0].clickId required'],
    ],
    [
      'an unknown engine account',
      purchase('x', { clickId: undefined, engineAccountId: '3' }),
      ['conversion[0].engineAccountId notFound'],
    ],
    [
      'a customer id of no account of the advertiser',
      purchase('x', { clickId: undefined, customerId: '999' }),
      ['conversion[0].customerId notFound'],
    ],
    [
      'an engine account with another customer id',
      purchase('x', { clickId: undefined, engineAccountId: ENGINE, customerId: '999' }),
      ['conversion[0].customerId invalid'],
    ],
    [
      'an unknown campaign',
      purchase('x', { clickId: undefined, engineAccountId: ENGINE, campaignId: '5' }),
      ['conversion[0].campaignId notFound'],
    ],
    [
      'an ad of another ad group',
      purchase('x', {
        clickId: undefined,
        engineAccountId: ENGINE,
        adGroupId: '58700000078244115',
        adId: '44700000219870334',
      }),
      ['conversion[0].adId invalid'],
    ],
    [
      'an ad group id naming a keyword',
      purchase('x', { clickId: undefined, engineAccountId: ENGINE, adGroupId: '43700000354112809' }),
      ['conversion[0].adGroupId notFound'],
    ],
    ['a type outside the enum (the schema)', purchase('x', { type: 'SALE' }), ['conversion[0].type invalid']],
  ];

  it.each(refused)(
    'refuses %s, naming the row and field, and stores the valid row',
    async (_title, row, expected) => {
      const reply = await insert(signup('fine-row'), row);
      expect(reply.status).toBe(400);
      expect(problems(reply)).toEqual(expected.map((line) => line.replace('conversion[0]', 'conversion[1]')));
      expect(reply.body.error.message).toBe(
        'Refused 1 of 2 conversions, named in errors; stored the other 1.',
      );
      expect((await stored()).map((c) => c.conversionId)).toEqual(['fine-row']);
    },
  );

  // What Google's reference allows is stored as sent and answered back (decision 0057): no
  // value belongs to a type, and a click fills in only the attribution a row leaves out.
  const accepted: [string, Record<string, unknown>, Record<string, unknown>][] = [
    [
      'an ACTION with a quantity and no count',
      signup('a-1', { countMillis: undefined, quantityMillis: '3000' }),
      { type: 'ACTION', quantityMillis: '3000' },
    ],
    [
      'an ACTION with revenue',
      signup('a-2', { revenueMicros: '1000000' }),
      { revenueMicros: '1000000', currencyCode: 'EUR' },
    ],
    [
      'a TRANSACTION without revenue',
      purchase('t-1', { revenueMicros: undefined, currencyCode: undefined }),
      { type: 'TRANSACTION' },
    ],
    ['a TRANSACTION with a count', purchase('t-2', { countMillis: '2000' }), { countMillis: '2000' }],
    [
      'a negative quantity (a return)',
      purchase('t-3', { quantityMillis: '-1000' }),
      { quantityMillis: '-1000' },
    ],
    ['no type', purchase('t-4', { type: undefined }), { revenueMicros: '129990000' }],
    [
      'an activity id and another name: the id names the activity',
      purchase('t-5', { segmentationId: '25700000001086230' }),
      { segmentationId: '25700000001086230', segmentationName: 'Store purchase' },
    ],
    [
      'a click with another ad group, kept as sent',
      purchase('t-6', { adGroupId: '58700000078244116' }),
      { clickId: PURCHASE_CLICK, adGroupId: '58700000078244116', campaignId: '71700000001985613' },
    ],
    ['a click on another device', purchase('t-7', { deviceType: 'TABLET' }), { deviceType: 'TABLET' }],
  ];

  it.each(accepted)('stores %s and answers it back', async (_title, row, expected) => {
    const reply = await insert(row);
    expect(reply.status).toBe(200);
    expect(reply.body.conversion[0]).toMatchObject(expected);
    expect(await stored()).toEqual(reply.body.conversion);
    if (row.type === undefined) expect(reply.body.conversion[0].type).toBeUndefined();
    if (row.countMillis === undefined) expect(reply.body.conversion[0].countMillis).toBeUndefined();
  });

  it("refuses a pair that is stored with the spec's duplicate answer, and stores the rest of the batch", async () => {
    expect((await insert(signup('signup-88412'))).status).toBe(200);
    const reply = await insert(purchase('order-9'), signup('signup-88412'));
    expect(reply.status).toBe(400);
    // The refusal the spec shows for this very case.
    expect(reply.body).toEqual(responseExample('ConversionBatchRejected', 'duplicateConversion'));
    expect((await stored()).map((c) => c.conversionId)).toEqual(['order-9', 'signup-88412']);
  });

  it('takes the same conversionId at another time as another conversion, but not twice in one batch', async () => {
    expect((await insert(purchase('order-1'))).status).toBe(200);
    const later = purchase('order-1', { conversionTimestamp: '1763627400001' });
    expect((await insert(later)).status).toBe(200);
    const twice = await insert(
      purchase('order-2'),
      purchase('order-2', { conversionTimestamp: '1763627400005' }),
    );
    // Not duplicate: that would say the row is stored already.
    expect(problems(twice)).toEqual(['conversion[1].conversionId invalid']);
    expect(twice.body.error.errors[0].message).toMatch(/conversion\[0\] has conversionId order-2 already/);
    expect((await stored()).map((c) => c.conversionId)).toEqual(['order-1', 'order-2', 'order-1']);
  });

  it('names every refused row of a partly failing batch and stores the others', async () => {
    const reply = await insert(
      purchase('a', { segmentationType: undefined }),
      signup('b'),
      purchase('c', { clickId: 'unknown-click', currencyCode: 'XYZ' }),
    );
    expect(reply.status).toBe(400);
    expect(problems(reply)).toEqual([
      'conversion[0].segmentationType required',
      'conversion[2].currencyCode invalid',
      'conversion[2].clickId notFound',
    ]);
    expect(reply.body.error.message).toBe('Refused 2 of 3 conversions, named in errors; stored the other 1.');
    expect((await stored()).map((c) => c.conversionId)).toEqual(['b']);
    // Fixed and sent again, the refused rows are stored and the stored one answers duplicate.
    const fixed = await insert(purchase('a'), signup('b'), purchase('c'));
    expect(problems(fixed)).toEqual(['conversion[1].conversionId duplicate']);
    expect((await stored()).map((c) => c.conversionId).sort()).toEqual(['a', 'b', 'c']);
  });

  it('answers an empty batch with nothing, and moves the revision once per stored batch', async () => {
    const empty = await call('POST', '/conversion', { body: { conversion: [] } });
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ kind: 'doubleclicksearch#conversionList' });
    const before = emu.emulator.store.state.revision;
    await insert(purchase('a'), signup('b'));
    expect(emu.emulator.store.state.revision).toBe(before + 1);
    await insert(purchase('a'));
    expect(emu.emulator.store.state.revision).toBe(before + 1);
  });
});

describe('conversion.update', () => {
  beforeEach(async () => {
    expect((await call('POST', '/conversion', { body: example('ConversionBatchInsert') })).status).toBe(200);
  });

  it("applies the spec's example update: new revenue and quantity, a removed sign-up, the rest kept", async () => {
    const [before] = await stored();
    const reply = await call('PUT', '/conversion', { body: example('ConversionBatchUpdate') });
    expect(reply.status).toBe(200);
    const shown = example('ConversionBatchUpdated');
    const modified = (list: Record<string, unknown>[]) =>
      list.map((c) => without(c, 'conversionModifiedTimestamp'));
    expect(modified(reply.body.conversion)).toEqual(modified(shown.conversion));
    expect(Number(reply.body.conversion[0].conversionModifiedTimestamp)).toBeGreaterThan(
      Number(before?.conversionModifiedTimestamp),
    );
    expect(await stored()).toEqual(reply.body.conversion);
  });

  it('replaces the changeable fields: left out means gone, state back to ACTIVE, currency the advertiser\u2019s', async () => {
    await update(signup('signup-88412', { state: 'REMOVED' }));
    const reply = await update(
      purchase('order-2026-11-20-000184', { revenueMicros: '1000000', currencyCode: undefined }),
      signup('signup-88412'),
    );
    expect(reply.status).toBe(200);
    const [order, sign] = reply.body.conversion;
    expect(order).toMatchObject({
      revenueMicros: '1000000',
      currencyCode: 'EUR',
      adUserDataConsent: 'GRANTED',
    });
    expect(order.quantityMillis).toBeUndefined();
    expect(order.customDimension).toBeUndefined();
    expect(order.dsConversionId).toBe('4398046511104');
    expect(sign.state).toBe('ACTIVE');
  });

  const order = (extra: Record<string, unknown> = {}) =>
    purchase('order-2026-11-20-000184', { quantityMillis: '2000', adUserDataConsent: 'GRANTED', ...extra });

  const refused: [string, Record<string, unknown>, string[]][] = [
    [
      'keys of nothing stored',
      order({ conversionTimestamp: '1763627400999' }),
      ['conversion[1].conversionId notFound'],
    ],
    ['an unknown conversionId', order({ conversionId: 'order-0' }), ['conversion[1].conversionId notFound']],
    [
      'no timestamp',
      order({ conversionTimestamp: undefined }),
      ['conversion[1].conversionTimestamp required'],
    ],
    [
      'a new type',
      order({
        type: 'ACTION',
        countMillis: '1000',
        revenueMicros: undefined,
        currencyCode: undefined,
        quantityMillis: undefined,
      }),
      ['conversion[1].type invalid'],
    ],
    [
      'another activity',
      order({ segmentationName: 'Store purchase' }),
      ['conversion[1].segmentationName invalid'],
    ],
    ['another click', order({ clickId: SIGNUP_CLICK }), ['conversion[1].clickId invalid']],
    ['another ad group', order({ adGroupId: '58700000078244116' }), ['conversion[1].adGroupId invalid']],
    ['no click nor attribution', order({ clickId: undefined }), ['conversion[1].clickId required']],
    ['no type', order({ type: undefined }), ['conversion[1].type required']],
    ['another engine account', order({ engineAccountId: '1' }), ['conversion[1].engineAccountId invalid']],
  ];

  it.each(refused)('refuses %s, changing only the valid row', async (_title, row, expected) => {
    const before = await stored();
    const reply = await update(signup('signup-88412', { state: 'REMOVED' }), row);
    expect(reply.status).toBe(400);
    expect(problems(reply)).toEqual(expected);
    expect(reply.body.error.message).toBe(
      'Refused 1 of 2 conversions, named in errors; changed the other 1.',
    );
    const after = await stored();
    const withoutSignup = (list: Record<string, unknown>[]) =>
      list.filter((c) => c.conversionId !== 'signup-88412');
    expect(withoutSignup(after)).toEqual(withoutSignup(before));
    expect(after.find((c) => c.conversionId === 'signup-88412')?.state).toBe('REMOVED');
  });

  it('takes what the guide lets change, keeps what it does not name, and needs no activity', async () => {
    const reply = await update(
      order({
        segmentationName: undefined,
        segmentationType: undefined,
        revenueMicros: undefined,
        currencyCode: undefined,
        countMillis: '1000',
        adUserDataConsent: 'DENIED',
      }),
    );
    expect(reply.status).toBe(200);
    const [changed] = reply.body.conversion;
    expect(changed).toMatchObject({
      countMillis: '1000',
      quantityMillis: '2000',
      segmentationName: 'Online purchase',
      segmentationType: 'FLOODLIGHT',
      // Not one of the changes the guide lists: kept as stored.
      adUserDataConsent: 'GRANTED',
    });
    expect(changed.revenueMicros).toBeUndefined();
  });

  it("answers the spec's unchangeable-type example message, and refuses a conversionId twice in a batch", async () => {
    const typed = await update(signup('order-2026-11-20-000184', { conversionTimestamp: '1763627400000' }));
    expect(typed.body.error.errors).toContainEqual({
      domain: 'global',
      reason: 'invalid',
      message:
        'The type of a stored conversion cannot be changed; remove it and insert a new conversion instead.',
      location: 'conversion[0].type',
      locationType: 'parameter',
    });
    const twice = await update(order(), order({ revenueMicros: '2' }));
    expect(problems(twice)).toEqual(['conversion[1].conversionId invalid']);
  });

  it('finds a conversion by its attribution ids as well as by its click', async () => {
    const reply = await update(
      order({ clickId: undefined, engineAccountId: ENGINE, adId: '44700000219870333', revenueMicros: '5' }),
    );
    expect(reply.status).toBe(200);
    expect(reply.body.conversion[0]).toMatchObject({ clickId: PURCHASE_CLICK, revenueMicros: '5' });
  });

  it('keeps the keys of another advertiser apart: unknown advertiser ids are notFound', async () => {
    const reply = await update(order({ advertiserId: '5', agencyId: AGENCY }), order({ agencyId: '6' }));
    expect(problems(reply)).toEqual([
      'conversion[0].advertiserId notFound',
      'conversion[1].agencyId notFound',
    ]);
    expect(reply.body.error.errors[0].message).toBe(`Advertiser 5 is not found in agency ${AGENCY}.`);
  });
});
