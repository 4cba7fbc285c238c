/** settings.list, settings.get and colors.get: read-only, from the spec's examples. */

import { maxResults } from '../../core/context.js';
import { refusal, refuse } from '../../core/errors.js';
import { own } from '../../core/own.js';
import { etagFor } from '../../core/state.js';
import type { Context } from './context.js';
import type { CalendarHandlers } from './handler-types.js';
import { fingerprint, paginate, readSyncToken } from './tokens.js';

/** settings.get of an id that is no setting. */
export const SETTING_NOT_FOUND = refusal({
  id: 'calendar.settingNotFound',
  scope: 'calendar',
  operations: ['settings.get'],
  status: 404,
  reason: 'notFound',
  when: 'the setting id is not one of the user’s settings (those settings.list answers)',
  evidence: ['fact:conventions:errors/reasons/notFound', 'decision:0056'],
});

function setting(context: Context<unknown>, id: string, value: string) {
  return {
    kind: 'calendar#setting',
    etag: etagFor(context.store.state, context.store.user(context.user.email).settingsRevision),
    id,
    value,
  };
}

export const settingsHandlers: CalendarHandlers = {
  'settings.list'(context) {
    const { store, request } = context;
    const user = store.user(context.user.email);
    const scope = `settings:${context.user.email}`;
    const { syncToken, pageToken } = request.query;
    const since = syncToken !== undefined ? readSyncToken(store.state, syncToken, scope) : undefined;
    const page = paginate({
      state: store.state,
      scope,
      items: Object.entries(user.settings),
      revisionOf: () => user.settingsRevision,
      keyOf: ([id]) => [id],
      maxResults: maxResults(context),
      ...(pageToken !== undefined ? { pageToken } : {}),
      ...(since !== undefined ? { since } : {}),
      fingerprint: fingerprint(request.query, ['syncToken']),
    });
    return {
      body: {
        kind: 'calendar#settings',
        etag: etagFor(store.state, user.settingsRevision),
        items: page.items.map(([id, value]) => setting(context, id, value)),
        ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}),
        ...(page.nextSyncToken ? { nextSyncToken: page.nextSyncToken } : {}),
      },
    };
  },

  'settings.get'(context) {
    const { setting: id } = context.request.path;
    const value = own(context.store.user(context.user.email).settings, id);
    if (value === undefined) throw refuse(SETTING_NOT_FOUND, `No setting ${id}`);
    return { body: setting(context, id, value) };
  },

  'colors.get'(context) {
    return { body: context.store.defaults.colors };
  },
};
