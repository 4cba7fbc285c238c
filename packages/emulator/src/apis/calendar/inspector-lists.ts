import { h, invoke, type Json, refreshSoon, table } from '../../ui/kit.js';

/** The calendar's sharing rules, deleted ones included, as acl.list answers its owner. */
export async function sharingView(user: string, calendarId: string): Promise<HTMLElement> {
  let rules: Json[];
  try {
    rules = await listAll(user, 'acl.list', calendarId, { showDeleted: true });
  } catch (error) {
    return h(
      'div',
      { class: 'error-box', id: 'acl-error' },
      `${(error as Error).message} (acl.list answers only those who may change the calendar's sharing)`,
    );
  }
  return h(
    'div',
    {},
    h('h2', {}, `Sharing rules of ${calendarId}, as acl.list answers ${user}`),
    table(
      'acl',
      ['Rule id', 'Scope', 'Role', 'Etag'],
      rules.map((rule) => {
        const scope = (rule.scope ?? {}) as Json;
        return h(
          'tr',
          { 'data-rule': String(rule.id), class: rule.role === 'none' ? 'muted' : '' },
          h('td', {}, String(rule.id)),
          h('td', {}, `${String(scope.type ?? '')}${scope.value ? `: ${String(scope.value)}` : ''}`),
          h('td', {}, rule.role === 'none' ? 'none (deleted)' : String(rule.role ?? '')),
          h('td', {}, String(rule.etag ?? '')),
        );
      }),
    ),
  );
}

/** Every item of a syncable list, page after page, and the sync token of its last page. */
async function listPages(
  user: string,
  operationId: string,
  calendarId: string,
  query: Json,
): Promise<{ items: Json[]; nextSyncToken?: string }> {
  const items: Json[] = [];
  let pageToken: string | undefined;
  let last: Json;
  do {
    last = await invoke(user, operationId, { calendarId }, { ...query, ...(pageToken ? { pageToken } : {}) });
    items.push(...((last.items as Json[] | undefined) ?? []));
    pageToken = last.nextPageToken as string | undefined;
  } while (pageToken);
  return { items, ...(last.nextSyncToken ? { nextSyncToken: String(last.nextSyncToken) } : {}) };
}

const listAll = async (user: string, operationId: string, calendarId: string, query: Json) =>
  (await listPages(user, operationId, calendarId, query)).items;

/** The sync token the view replays from; kept while the page is open, per calendar. */
const syncTokens = new Map<string, string>();

/**
 * The calendar's sync state: the token a full sync ends with now, and what events.list would
 * replay to a client holding a given token (every change after it, deletions included), as
 * the API answers it. "Take the current token", write through a client, then look.
 */
export async function syncView(user: string, calendarId: string): Promise<HTMLElement> {
  const current = (await listPages(user, 'events.list', calendarId, { maxResults: 2500 })).nextSyncToken;
  const held = syncTokens.get(calendarId) ?? '';
  const input = h('input', {
    id: 'sync-token',
    placeholder: 'a sync token',
    size: '60',
    value: held,
  }) as HTMLInputElement;
  input.addEventListener('change', () => {
    syncTokens.set(calendarId, input.value.trim());
    refreshSoon();
  });
  const take = h('button', { id: 'sync-take' }, 'Take the current token');
  take.addEventListener('click', () => {
    if (current) syncTokens.set(calendarId, current);
    refreshSoon();
  });
  const panel = h(
    'div',
    {},
    h('h2', {}, `Sync state of ${calendarId}'s events`),
    h(
      'dl',
      { class: 'kv' },
      h('dt', {}, 'nextSyncToken of a full sync now'),
      h('dd', { id: 'sync-current' }, current ?? '(none)'),
    ),
    h('div', { class: 'toolbar' }, 'Replay from ', input, take),
  );
  if (!held) {
    panel.append(
      h(
        'p',
        { class: 'muted' },
        'Give a sync token to see the changes events.list would replay to its holder.',
      ),
    );
    return panel;
  }
  let replay: { items: Json[]; nextSyncToken?: string };
  try {
    replay = await listPages(user, 'events.list', calendarId, { syncToken: held, maxResults: 2500 });
  } catch (error) {
    panel.append(h('div', { class: 'error-box', id: 'sync-error' }, (error as Error).message));
    return panel;
  }
  panel.append(
    h(
      'p',
      { id: 'sync-count' },
      `${replay.items.length} change${replay.items.length === 1 ? '' : 's'} since this token`,
    ),
    table(
      'sync-changes',
      ['Event id', 'Status', 'Summary', 'Updated', 'Sequence', 'Etag'],
      replay.items.map((item) =>
        h(
          'tr',
          { 'data-event-id': String(item.id), 'data-status': String(item.status ?? '') },
          h('td', {}, String(item.id)),
          h('td', { class: item.status === 'cancelled' ? 'status-error' : '' }, String(item.status ?? '')),
          h('td', {}, String(item.summary ?? '')),
          h('td', {}, String(item.updated ?? '')),
          h('td', {}, item.sequence !== undefined ? String(item.sequence) : ''),
          h('td', {}, String(item.etag ?? '')),
        ),
      ),
    ),
  );
  return panel;
}
