/** The x-sync rule shared by the syncable lists. */

import { refusal, refuse } from '../../core/errors.js';
import type { Context } from './context.js';

/** A sync token sent with a parameter the list's `x-sync` says cannot go with one. */
export const SYNC_TOKEN_WITH_FILTER = refusal({
  id: 'calendar.syncTokenWithIncompatibleParameter',
  scope: 'calendar',
  operations: ['events.list', 'calendarList.list'],
  status: 400,
  reason: 'invalid',
  location:
    'the parameter (iCalUID, orderBy, privateExtendedProperty, q, sharedExtendedProperty, timeMin, timeMax, updatedMin; minAccessRole)',
  when: '`syncToken` together with a parameter its list’s `x-sync` names incompatible (events.list: iCalUID, orderBy, privateExtendedProperty, q, sharedExtendedProperty, timeMin, timeMax, updatedMin; calendarList.list: minAccessRole)',
  evidence: ['decision:0055'],
});

/** Refuses the parameters x-sync says cannot go with a sync token. */
export function refuseWithSync(context: Context<{ query: Readonly<Record<string, unknown>> }>): void {
  const sync = context.op.sync;
  if (!sync) return;
  for (const name of sync.incompatibleParameters) {
    if (context.request.query[name] !== undefined)
      throw refuse(
        SYNC_TOKEN_WITH_FILTER,
        `${name} cannot be combined with ${sync.syncTokenParameter}; list without ${name} to sync incrementally`,
        { location: name },
      );
  }
}
