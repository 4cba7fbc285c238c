/**
 * conversion.updateAvailability: for each Floodlight activity of the batch, the moment up to
 * which its conversions are uploaded, recorded per advertiser and activity (a later call for
 * the same activity replaces the moment, also within one batch: rows are applied in order).
 * Best effort per row, like the conversion batches (decision 0035); the answer has each
 * availability as recorded, with the activity's id and name and the advertiser's customer id
 * when it has one. `segmentationType` defaults to FLOODLIGHT, as Google's reference says.
 * Decision 0057 has the evidence of each refusal.
 */

import { refusal } from '../../core/errors.js';
import { slot } from '../../core/slice.js';
import type { JsonObject } from '../../core/spec.js';
import { nextRevision } from '../../core/state.js';
import {
  ACTIVITY_REQUIRED,
  activityOf,
  advertiserOfRow,
  BatchProblems,
  batchRows,
  field,
  isCount,
} from './batch.js';
import { openIds } from './context.js';
import type { BatchHandler, SearchAds360Handlers } from './handler-types.js';
import { readWorld, worldWithRowAdvertisers, writableWorld } from './state.js';

const AVAILABILITY = '#/components/schemas/Availability';

/** An availability without its moment. */
export const AVAILABILITY_TIMESTAMP_REQUIRED = refusal({
  id: 'searchads360.availabilityTimestampRequired',
  scope: 'searchads360',
  operations: ['conversion.updateAvailability'],
  status: 400,
  reason: 'required',
  location: 'availabilities[i].availabilityTimestamp',
  when: 'an availability lacks `availabilityTimestamp`',
  evidence: ['decision:0057'],
});

/** An availabilityTimestamp that is not milliseconds since 1970 in digits. */
export const AVAILABILITY_TIMESTAMP_INVALID = refusal({
  id: 'searchads360.availabilityTimestampInvalid',
  scope: 'searchads360',
  operations: ['conversion.updateAvailability'],
  status: 400,
  reason: 'invalid',
  location: 'availabilities[i].availabilityTimestamp',
  when: '`availabilityTimestamp` is not an unsigned whole number of milliseconds since 1970 (a negative one)',
  evidence: [
    'fact:searchads360-v2:schemas/Availability/properties/availabilityTimestamp/format',
    'decision:0057',
  ],
});

/** A customer id that is not the advertiser's. */
export const AVAILABILITY_CUSTOMER_MISMATCH = refusal({
  id: 'searchads360.availabilityCustomerIdMismatch',
  scope: 'searchads360',
  operations: ['conversion.updateAvailability'],
  status: 400,
  reason: 'invalid',
  location: 'availabilities[i].customerId',
  when: '`customerId` is not the advertiser’s customer id in the new platform (a seeded or example advertiser’s, or the first an advertiser created on first use was given)',
  evidence: ['decision:0057'],
});

const updateAvailability: BatchHandler<'conversion.updateAvailability', 'availabilities'> = (context) => {
  const problems = new BatchProblems('availabilities', 'availabilities');
  const rows = batchRows(context.request.body.availabilities, context.request.rowProblems, problems).map(
    (row) => (row ? context.tools.writable(row, AVAILABILITY) : undefined),
  );
  const open = openIds(context);
  const world = open
    ? worldWithRowAdvertisers(context.store, context.spec, rows)
    : readWorld(context.store.state, context.spec);
  const recorded: { advertiserId: string; activityId: string; availability: JsonObject }[] = [];
  const check = (row: JsonObject | undefined, i: number): void => {
    if (!row) return;
    const timestamp = field(row, 'availabilityTimestamp');
    if (!timestamp) problems.required(i, 'availabilityTimestamp', AVAILABILITY_TIMESTAMP_REQUIRED);
    else if (!isCount(timestamp))
      problems.add(
        i,
        'availabilityTimestamp',
        AVAILABILITY_TIMESTAMP_INVALID,
        `availabilityTimestamp must be milliseconds since 1970 in digits, not "${timestamp}"`,
      );
    const advertiser = advertiserOfRow(world, row, i, problems, open);
    if (!advertiser) return;
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
        AVAILABILITY_CUSTOMER_MISMATCH,
        `Advertiser ${advertiser.id} has customer id ${advertiser.customerId ?? '(none)'}, not ${customerId}.`,
      );
    const activity = activityOf(advertiser, row, i, problems, ACTIVITY_REQUIRED);
    if (problems.has(i) || !activity || !timestamp) return;
    recorded.push({
      advertiserId: advertiser.id,
      activityId: activity.id,
      availability: {
        agencyId: field(row, 'agencyId') ?? '',
        advertiserId: advertiser.id,
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
