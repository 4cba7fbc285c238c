/**
 * conversion.get and conversion.getByCustomerId, both deprecated (they still answer): the
 * conversions of one engine account whose conversion date, in the advertiser's time zone
 * (days.ts, decision 0057), is within `startDate` to `endDate`, both included, narrowed by the
 * optional filters, in a stable order (conversion time, then dsConversionId), one slice of
 * `rowCount` from `startRow`. Removed conversions are listed too, with `state: REMOVED`. A
 * `startDate` after `endDate` is an empty window (no evidence says the live service refuses it).
 *
 * Every answer says the operation is deprecated in two headers, from the spec's
 * `x-deprecation`: `Deprecation` (RFC 9745, the start of the quarter) and
 * `X-Emulator-Deprecation` (the migration, in words).
 */

import { refusal, refuse } from '../../core/errors.js';
import { storedItems } from '../../core/json.js';
import { own } from '../../core/own.js';
import { follow, isObject, type JsonObject, pointerToken } from '../../core/spec.js';
import { type Context, openIds } from './context.js';
import { CONVERSION_LIST_KIND } from './conversions.js';
import { dayStart, isDay, nextDay, timeZoneOf } from './days.js';
import type { SearchAds360Handler, SearchAds360Handlers } from './handler-types.js';
import {
  advertiserOfPath,
  type EngineAccountPlace,
  findCustomer,
  findEngineAccount,
  readWorld,
  type SearchAds360State,
} from './state.js';

const READS = ['conversion.get', 'conversion.getByCustomerId'];

/** A `startDate` or `endDate` that is no day of the calendar. */
export const DAY_NOT_A_DATE = refusal({
  id: 'searchads360.dayNotADate',
  scope: 'searchads360',
  operations: READS,
  status: 400,
  reason: 'invalid',
  location: 'startDate, endDate',
  when: '`startDate` or `endDate` is within the facts’ bounds but no day written as yyyymmdd (20251131)',
  evidence: [
    'fact:searchads360-v2:operations/conversion.get/parameters/startDate/schema/minimum',
    'decision:0057',
  ],
});

/** A path's engine account that the advertiser does not have. */
export const ENGINE_ACCOUNT_NOT_FOUND = refusal({
  id: 'searchads360.engineAccountNotFound',
  scope: 'searchads360',
  operations: ['conversion.get'],
  status: 404,
  reason: 'notFound',
  location: 'engineAccountId',
  when: 'the path’s engine account is not one of the advertiser’s (strict mode, a seeded or example advertiser, or an account of another advertiser)',
  evidence: ['decision:0057'],
});

/** A path's customer id that is no engine account the emulator knows. */
export const CUSTOMER_ID_NOT_FOUND = refusal({
  id: 'searchads360.customerIdNotFound',
  scope: 'searchads360',
  operations: ['conversion.getByCustomerId'],
  status: 404,
  reason: 'notFound',
  location: 'customerId',
  when: 'the path’s customer id is the customer id of no engine account the emulator knows (strict mode)',
  evidence: ['decision:0057'],
});

/** The header with the migration of a deprecated operation, in words. */
export const DEPRECATION_NOTE_HEADER = 'x-emulator-deprecation';

/** The two deprecation headers of an operation marked deprecated, from its x-deprecation. */
export function deprecationHeaders(context: Context<unknown>): Record<string, string> {
  const { op, spec } = context;
  if (!op.deprecated) return {};
  const operation = follow(
    spec.document,
    `#/paths/${pointerToken(op.path)}/${op.method.toLowerCase()}`,
    op.where,
  );
  const deprecation = isObject(operation) ? operation['x-deprecation'] : undefined;
  const since =
    isObject(deprecation) && typeof deprecation.since === 'string' ? deprecation.since : undefined;
  const replacement =
    isObject(deprecation) && isObject(deprecation.replacement) ? deprecation.replacement : {};
  const quarter = since ? /^(\d{4})-Q([1-4])$/.exec(since) : null;
  const headers: Record<string, string> = {
    deprecation: quarter ? `@${Date.UTC(Number(quarter[1]), (Number(quarter[2]) - 1) * 3, 1) / 1000}` : '?1',
  };
  const migration = typeof replacement.migration === 'string' ? ` ${replacement.migration}` : '';
  headers[DEPRECATION_NOTE_HEADER] =
    `${op.id} is deprecated${since ? ` since ${since}` : ''}.${migration}`.replace(/\s+/g, ' ');
  return headers;
}

/** A `yyyymmdd` day of a read, or 400. */
function checkedDay(name: string, value: number): number {
  if (!isDay(value))
    throw refuse(
      DAY_NOT_A_DATE,
      `Invalid value for parameter ${name}: ${value} is not a day written as yyyymmdd`,
      {
        location: name,
      },
    );
  return value;
}

/** The days and the slice a conversion read asks for. */
interface ListQuery {
  startDate: number;
  endDate: number;
  startRow: number;
  rowCount: number;
}

/**
 * The slice of the engine account's conversions the query asks for, narrowed by the `filters`
 * given (a conversion field's name to the value it must have).
 */
function listConversions(
  query: ListQuery,
  world: SearchAds360State,
  place: EngineAccountPlace,
  filters: Record<string, string | undefined>,
): JsonObject[] {
  const zone = timeZoneOf(place.advertiser);
  // The window, in the advertiser's time zone: from the first millisecond of startDate up to
  // (not including) the first of the day after endDate.
  const start = dayStart(checkedDay('startDate', query.startDate), zone);
  const end = dayStart(nextDay(checkedDay('endDate', query.endDate)), zone);
  const wanted = Object.entries(filters).filter(
    (filter): filter is [string, string] => filter[1] !== undefined,
  );
  const all = Object.values(own(world.conversions, place.advertiser.id) ?? {}).filter((conversion) => {
    if (conversion.engineAccountId !== place.engineAccount.id) return false;
    const time = Number(conversion.conversionTimestamp);
    if (time < start || time >= end) return false;
    return wanted.every(([name, value]) => conversion[name] === value);
  });
  const { startRow, rowCount } = query;
  return inAnswerOrder(all).slice(startRow, startRow + rowCount);
}

/**
 * Stored conversions in the order the reads answer them: conversion time, then dsConversionId
 * (the inspector lists an advertiser's in this order too).
 */
export function inAnswerOrder(conversions: readonly JsonObject[]): JsonObject[] {
  // Keys read once per conversion, not once per comparison (a BigInt each time cost most of a read).
  const keyed = conversions.map((conversion) => ({
    conversion,
    time: Number(conversion.conversionTimestamp),
    id: BigInt(String(conversion.dsConversionId)),
  }));
  keyed.sort((a, b) => a.time - b.time || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return keyed.map((entry) => entry.conversion);
}

const answer = (context: Context<unknown>, conversions: JsonObject[]) => ({
  body: {
    kind: CONVERSION_LIST_KIND,
    // Google leaves an empty list out, as the spec's empty saved-column list does. Stored
    // conversions are replaced, never changed, so their kept JSON is answered (json.ts).
    ...(conversions.length > 0 ? { conversion: storedItems(conversions) } : {}),
  },
  headers: deprecationHeaders(context),
});

const get: SearchAds360Handler<'conversion.get'> = (context) => {
  const world = readWorld(context.store.state, context.spec);
  const { agencyId, advertiserId, engineAccountId } = context.request.path;
  const open = openIds(context);
  const { agency, advertiser } = advertiserOfPath(world, agencyId, advertiserId, open);
  // Default mode: an engine account no one named yet holds no conversions (nothing is written).
  const engineAccount =
    own(advertiser.engineAccounts, engineAccountId) ??
    (open && (advertiser.createdOnFirstUse || !findEngineAccount(world, engineAccountId))
      ? { id: engineAccountId, entities: [], clicks: {} }
      : undefined);
  if (!engineAccount)
    throw refuse(
      ENGINE_ACCOUNT_NOT_FOUND,
      `Engine account ${engineAccountId} is not found for advertiser ${advertiserId}.`,
      { location: 'engineAccountId' },
    );
  const { query } = context.request;
  const { campaignId, adGroupId, adId, criterionId, customerId } = query;
  const conversions = listConversions(
    query,
    world,
    { agency, advertiser, engineAccount },
    { campaignId, adGroupId, adId, criterionId, customerId },
  );
  return answer(context, conversions);
};

const getByCustomerId: SearchAds360Handler<'conversion.getByCustomerId'> = (context) => {
  const world = readWorld(context.store.state, context.spec);
  const { customerId } = context.request.path;
  const place: EngineAccountPlace | undefined =
    findCustomer(world, customerId) ??
    // Default mode: a customer id no one named yet has no conversions (nothing is written).
    (openIds(context)
      ? {
          agency: { id: '', advertisers: {} },
          advertiser: { id: '', floodlightActivities: [], savedColumns: [], engineAccounts: {} },
          engineAccount: { id: '', customerId, entities: [], clicks: {} },
        }
      : undefined);
  if (!place)
    throw refuse(CUSTOMER_ID_NOT_FOUND, `Customer id ${customerId} is not found.`, {
      location: 'customerId',
    });
  // The previous platform's ids check the account: ids of another account match no conversion.
  const { query } = context.request;
  const mismatch =
    (query.agencyId !== undefined && query.agencyId !== place.agency.id) ||
    (query.advertiserId !== undefined && query.advertiserId !== place.advertiser.id) ||
    (query.engineAccountId !== undefined && query.engineAccountId !== place.engineAccount.id);
  const { campaignId, adGroupId, adId, criterionId } = query;
  const conversions = listConversions(query, world, place, { campaignId, adGroupId, adId, criterionId });
  return answer(context, mismatch ? [] : conversions);
};

export const conversionReadHandlers: SearchAds360Handlers = {
  'conversion.get': get,
  'conversion.getByCustomerId': getByCustomerId,
};
