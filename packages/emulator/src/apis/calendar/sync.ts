/** The x-sync rule shared by the syncable lists. */

import { badRequest } from '../../core/errors.js';
import type { Context } from './context.js';

/** Refuses the parameters x-sync says cannot go with a sync token. */
export function refuseWithSync(context: Context<{ query: Readonly<Record<string, unknown>> }>): void {
  const sync = context.op.sync;
  if (!sync) return;
  for (const name of sync.incompatibleParameters) {
    if (context.request.query[name] !== undefined)
      throw badRequest(
        'invalid',
        `${name} cannot be combined with ${sync.syncTokenParameter}; list without ${name} to sync incrementally`,
        name,
      );
  }
}
