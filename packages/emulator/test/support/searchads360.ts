/**
 * Search Ads 360 in the tests: calls under `/doubleclicksearch/v2`, the spec's examples read
 * from the bundled spec (so a test compares against what the spec shows), and the ids of
 * the entities a fresh emulator knows (those of the examples).
 */
import { follow, isObject, type Json, loadApiSpec } from '../../src/core/spec.ts';
import type { CallOptions, Harness, Reply } from './harness.ts';

export const searchAdsSpec = loadApiSpec('searchads360');

export const AGENCY = '20100000000000895';
export const ADVERTISER = '21700000000011523';
export const ENGINE = '700000000042231';
export const CUSTOMER = '1234567890';
/** The click of the example purchase: campaign 71700000001985613, ad group ...115, keyword ...809, ad ...333, desktop. */
export const PURCHASE_CLICK = 'COiYmPDTv7kCFcP0KgodOzQAAA';
/** The click of the example sign-up: ad group ...116, keyword ...811, ad ...334, mobile. */
export const SIGNUP_CLICK = 'CKu2vMnUv7kCFYbBKgod9WIAAA';

export const ENGINE_PATH = `/agency/${AGENCY}/advertiser/${ADVERTISER}/engine/${ENGINE}/conversion`;
export const CUSTOMER_PATH = `/customer/${CUSTOMER}/conversion`;

/** A call to the Search Ads 360 API of the harness's emulator. */
export function sa360(emu: Harness) {
  return (method: string, path: string, options: Omit<CallOptions, 'api'> = {}): Promise<Reply> =>
    emu.call(method, path, { ...options, api: 'searchads360' });
}

/**
 * The batch writes and the read of the example engine account, on `sa360(emu)`: `insert` and
 * `update` send their arguments as one batch; `stored` reads back every stored conversion (at
 * most 1000) through the deprecated read.
 */
export function conversionCalls(call: ReturnType<typeof sa360>) {
  return {
    insert: (...conversion: unknown[]) => call('POST', '/conversion', { body: { conversion } }),
    update: (...conversion: unknown[]) => call('PUT', '/conversion', { body: { conversion } }),
    async stored(): Promise<Record<string, unknown>[]> {
      const reply = await call('GET', ENGINE_PATH, {
        query: { startDate: 20091101, endDate: 99991231, startRow: 0, rowCount: 1000 },
      });
      if (reply.status !== 200)
        throw new Error(`reading the stored conversions answered ${reply.status}: ${reply.text}`);
      return reply.body.conversion ?? [];
    },
  };
}

/** The value of a named example of the spec (`ConversionBatchInsert`), a copy. */
// biome-ignore lint/suspicious/noExplicitAny: examples are read freely in the tests.
export function example(name: string): any {
  const found = follow(searchAdsSpec.document, `#/components/examples/${name}`, name);
  if (!isObject(found)) throw new Error(`no example ${name}`);
  return structuredClone(found.value as Json);
}

/** A named example of a shared response (`ConversionBatchRejected`, `duplicateConversion`). */
// biome-ignore lint/suspicious/noExplicitAny: examples are read freely in the tests.
export function responseExample(response: string, name: string): any {
  const found = follow(
    searchAdsSpec.document,
    `#/components/responses/${response}/content/application~1json/examples/${name}`,
    name,
  );
  if (!isObject(found)) throw new Error(`no example ${name} of ${response}`);
  return structuredClone(found.value as Json);
}

/** A TRANSACTION on the example purchase click, valid as it is. */
export function purchase(conversionId: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    agencyId: AGENCY,
    advertiserId: ADVERTISER,
    clickId: PURCHASE_CLICK,
    conversionId,
    conversionTimestamp: '1763627400000',
    segmentationType: 'FLOODLIGHT',
    segmentationName: 'Online purchase',
    type: 'TRANSACTION',
    revenueMicros: '129990000',
    currencyCode: 'EUR',
    ...extra,
  };
}

/** An ACTION on the example sign-up click, valid as it is. */
export function signup(conversionId: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    agencyId: AGENCY,
    advertiserId: ADVERTISER,
    clickId: SIGNUP_CLICK,
    conversionId,
    conversionTimestamp: '1763628015000',
    segmentationType: 'FLOODLIGHT',
    segmentationName: 'Newsletter sign-up',
    type: 'ACTION',
    countMillis: '1000',
    ...extra,
  };
}

/** `2025-11-20T08:30:00Z` as conversionTimestamp text. */
export const at = (iso: string): string => String(Date.parse(iso));

/** The error items of a refusal as `location reason` lines, to compare whole. */
export function problems(reply: Reply): string[] {
  return (reply.body?.error?.errors ?? []).map(
    (item: { location?: string; reason: string }) => `${item.location} ${item.reason}`,
  );
}
