/**
 * conversion.updateAvailability: for each Floodlight activity of the batch, the moment up to
 * which its conversions are uploaded, recorded per advertiser and activity (a later call for
 * the same activity replaces the moment, also within one batch: rows are applied in order).
 * Best effort per row, like the conversion batches (decision 0035); the answer has each availability as recorded,
 * with the activity's id and name and the advertiser's customer id when it has one.
 */

import { own } from '../../core/own.js';
import type { JsonObject } from '../../core/spec.js';
import { nextRevision } from '../../core/state.js';
import { slot } from '../../core/storage.js';
import { activityOf, BatchProblems, batchRows, field, isCount } from './batch.js';
import type { BatchHandler, SearchAds360Handlers } from './handler-types.js';
import { readWorld, worldWithRowAdvertisers, writableWorld } from './state.js';

const AVAILABILITY = '#/components/schemas/Availability';

const updateAvailability: BatchHandler<'conversion.updateAvailability', 'availabilities'> = (context) => {
  const problems = new BatchProblems('availabilities', 'availabilities');
  const rows = batchRows(context.request.body.availabilities, context.request.rowProblems, problems).map(
    (row) => (row ? context.tools.writable(row, AVAILABILITY) : undefined),
  );
  const world = context.openIds
    ? worldWithRowAdvertisers(context.store, context.spec, rows)
    : readWorld(context.store.state, context.spec);
  const recorded: { advertiserId: string; activityId: string; availability: JsonObject }[] = [];
  const check = (row: JsonObject | undefined, i: number): void => {
    if (!row) return;
    for (const name of ['agencyId', 'advertiserId', 'segmentationType', 'availabilityTimestamp'])
      if (!field(row, name)) problems.required(i, name);
    const timestamp = field(row, 'availabilityTimestamp');
    if (timestamp && !isCount(timestamp))
      problems.add(
        i,
        'availabilityTimestamp',
        'invalid',
        `availabilityTimestamp must be milliseconds since 1970 in digits, not "${timestamp}"`,
      );
    const agencyId = field(row, 'agencyId');
    const advertiserId = field(row, 'advertiserId');
    if (!agencyId || !advertiserId) return;
    const agency = own(world.agencies, agencyId);
    const advertiser = own(agency?.advertisers, advertiserId);
    if (!agency) {
      problems.add(i, 'agencyId', 'notFound', `Agency ${agencyId} is not found.`);
      return;
    }
    if (!advertiser) {
      problems.add(
        i,
        'advertiserId',
        'notFound',
        `Advertiser ${advertiserId} is not found in agency ${agencyId}.`,
      );
      return;
    }
    const customerId = field(row, 'customerId');
    // An advertiser created on first use takes the customer id its first availability names.
    if (customerId && advertiser.createdOnFirstUse && !advertiser.customerId && /^\d+$/.test(customerId)) {
      advertiser.customerId = customerId;
      problems.created(i, () => delete advertiser.customerId);
    }
    if (customerId && customerId !== advertiser.customerId)
      problems.add(
        i,
        'customerId',
        'invalid',
        `Advertiser ${advertiserId} has customer id ${advertiser.customerId ?? '(none)'}, not ${customerId}.`,
      );
    const activity = activityOf(advertiser, row, i, problems);
    if (problems.has(i) || !activity || !timestamp) return;
    recorded.push({
      advertiserId,
      activityId: activity.id,
      availability: {
        agencyId,
        advertiserId,
        ...(advertiser.customerId ? { customerId: advertiser.customerId } : {}),
        segmentationType: 'FLOODLIGHT',
        segmentationId: activity.id,
        ...(activity.name ? { segmentationName: activity.name } : {}),
        availabilityTimestamp: timestamp,
      },
    });
  };
  rows.forEach((row, i) => {
    check(row, i);
    problems.settle(i);
  });
  // The valid rows are recorded whatever the others are (best effort), then the refused are named.
  if (recorded.length > 0) {
    const writable = writableWorld(context.store, context.spec);
    nextRevision(context.store.state);
    for (const { advertiserId, activityId, availability } of recorded) {
      slot(writable.availabilities, advertiserId)[activityId] = availability;
    }
  }
  problems.throwIfAny(rows.length, 'recorded');
  return { body: { availabilities: recorded.map((r) => r.availability) } };
};

export const availabilityHandlers: SearchAds360Handlers = {
  'conversion.updateAvailability': Object.assign(updateAvailability, { batchList: 'availabilities' }),
};
