/**
 * The Requests view: the journal of requests, live, filterable, each opening its bodies. The
 * table and the detail pane sit side by side (stacked on a narrow screen); each row is one
 * line, its long cells cut with an ellipsis and whole in their tooltip and in the pane.
 */
import type { JournalEntry, JournalSummary } from '../../core/journal.js';
import { getJson, h, headersBlock, main, pretty, refreshSoon } from '../kit.js';

/** What the journal's endpoints answer: the types of the server's journal (type-only, erased). */
type Summary = JournalSummary;
type Entry = JournalEntry;

const filters = { operation: '', status: '', user: '' };
let selectedRequest: number | undefined;

/** The table's columns: heading and class (the style sheet sizes each by its class). */
const COLUMNS = [
  ['Time', 'time'],
  ['Method', 'method'],
  ['Path', 'path'],
  ['User', 'user'],
  ['Operation', 'operation'],
  ['Status', 'status'],
  ['Duration', 'duration'],
  ['Units', 'units'],
  ['Error', 'error'],
] as const;

/** A cell of one line: what does not fit is cut, and the whole text (or `title`) is its tooltip. */
const cell = (text: string, className = '', title = text): HTMLElement =>
  h('td', { ...(className ? { class: className } : {}), ...(title ? { title } : {}) }, text);

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
        cell(
          new Date(entry.at).toLocaleTimeString(undefined, { hourCycle: 'h23' }),
          '',
          new Date(entry.at).toLocaleString(),
        ),
        cell(entry.method),
        cell(entry.path + (entry.batch ? ` (in ${entry.batch})` : '')),
        cell(entry.user ?? ''),
        cell(entry.operationId ?? ''),
        cell(String(entry.status), entry.status >= 400 ? 'status-error' : ''),
        cell(entry.durationMs !== undefined ? `${entry.durationMs} ms` : ''),
        cell(entry.quotaUnits !== undefined ? String(entry.quotaUnits) : ''),
        cell(
          entry.error ? `${entry.error.reason ?? ''} ${entry.error.message ?? ''}`.trim() : '',
          'status-error',
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
        h(
          'p',
          {},
          `${entry.status} ${entry.operationId ?? ''} ${entry.user ?? ''} at ${new Date(entry.at).toLocaleString()}`,
        ),
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
      { class: 'requests' },
      h(
        'table',
        { id: 'journal', class: 'lines' },
        h('colgroup', {}, ...COLUMNS.map(([, name]) => h('col', { class: `col-${name}` }))),
        h('thead', {}, h('tr', {}, ...COLUMNS.map(([label]) => h('th', { title: label }, label)))),
        h('tbody', {}, ...rows),
      ),
      detail,
    ),
  );
}
