/** The Requests view: the journal of requests, live, filterable, each opening its bodies. */
import type { JournalEntry, JournalSummary } from '../../core/journal.js';
import { getJson, h, headersBlock, main, pretty, refreshSoon } from '../kit.js';

/** What the journal's endpoints answer: the types of the server's journal (type-only, erased). */
type Summary = JournalSummary;
type Entry = JournalEntry;

const filters = { operation: '', status: '', user: '' };
let selectedRequest: number | undefined;

export async function renderRequests(): Promise<void> {
  const query = new URLSearchParams(Object.entries(filters).filter(([, value]) => value !== ''));
  const journal = await getJson<{ entries: Summary[]; capacity: number; bodyBytesLimit: number }>(
    `/journal?${query}`,
  );
  const filterInput = (name: keyof typeof filters, placeholder: string) => {
    const input = h('input', { id: `filter-${name}`, placeholder, value: filters[name] }) as HTMLInputElement;
    input.addEventListener('change', () => {
      filters[name] = input.value.trim();
      refreshSoon();
    });
    return input;
  };
  const rows = journal.entries
    .slice()
    .reverse()
    .map((entry) => {
      const row = h(
        'tr',
        {
          class: `row${entry.id === selectedRequest ? ' selected' : ''}`,
          'data-id': String(entry.id),
          'data-operation': entry.operationId ?? '',
          'data-status': String(entry.status),
        },
        h('td', {}, new Date(entry.at).toLocaleTimeString()),
        h('td', {}, entry.method),
        h('td', {}, entry.path + (entry.batch ? ` (in ${entry.batch})` : '')),
        h('td', {}, entry.user ?? ''),
        h('td', {}, entry.operationId ?? ''),
        h('td', { class: entry.status >= 400 ? 'status-error' : '' }, String(entry.status)),
        h('td', {}, entry.durationMs !== undefined ? `${entry.durationMs} ms` : ''),
        h('td', {}, entry.quotaUnits !== undefined ? String(entry.quotaUnits) : ''),
        h(
          'td',
          { class: 'status-error' },
          entry.error ? `${entry.error.reason ?? ''} ${entry.error.message ?? ''}` : '',
        ),
      );
      row.addEventListener('click', () => {
        selectedRequest = entry.id;
        refreshSoon();
      });
      return row;
    });
  const detail = h('div', { class: 'panel', id: 'request-detail' });
  if (selectedRequest !== undefined) {
    try {
      const entry = await getJson<Entry>(`/journal/${selectedRequest}`);
      detail.append(
        h('h2', {}, `${entry.method} ${entry.path}`),
        h('p', {}, `${entry.status} ${entry.operationId ?? ''} ${entry.user ?? ''}`),
        entry.error
          ? h(
              'div',
              { class: 'error-box', id: 'request-error' },
              `${entry.error.reason ?? ''}: ${entry.error.message ?? ''}`,
            )
          : '',
        entry.truncated
          ? h('p', { class: 'muted' }, `cut at the journal's cap: ${entry.truncated.join(', ')}`)
          : '',
        h('h2', {}, 'Request headers'),
        headersBlock(entry.requestHeaders),
        h('h2', {}, 'Request body'),
        h('pre', { id: 'request-body' }, pretty(entry.requestBody)),
        h('h2', {}, 'Response headers'),
        headersBlock(entry.responseHeaders),
        h('h2', {}, 'Response body'),
        h('pre', { id: 'response-body' }, pretty(entry.responseBody)),
      );
    } catch (error) {
      detail.append(h('p', { class: 'muted' }, String((error as Error).message)));
    }
  } else detail.append(h('p', { class: 'muted' }, 'Select a request to see its bodies.'));
  main.replaceChildren(
    h(
      'div',
      { class: 'filters' },
      filterInput('operation', 'operation'),
      filterInput('status', 'status: 404, 4xx, error'),
      filterInput('user', 'user'),
      h(
        'span',
        { class: 'muted' },
        `${journal.entries.length} shown; the journal keeps the last ${journal.capacity} requests and ${Math.round(journal.bodyBytesLimit / 1024 / 1024)} MiB of bodies`,
      ),
    ),
    h(
      'div',
      { class: 'split' },
      h(
        'table',
        { id: 'journal' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ...['Time', 'Method', 'Path', 'User', 'Operation', 'Status', 'Duration', 'Units', 'Error'].map(
              (t) => h('th', {}, t),
            ),
          ),
        ),
        h('tbody', {}, ...rows),
      ),
      detail,
    ),
  );
}
