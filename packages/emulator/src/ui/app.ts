/**
 * The inspector's script (runs in the browser; served as /__emulator/ui/app.js). Views by the
 * address's hash: requests (the journal), calendar (users, their calendar lists, a week of a
 * calendar in its time zone), notifications (channels, deliveries), control (reset, state).
 * Everything is read from the control plane (`/__emulator/...`) of the page's own origin;
 * live updates come from `/__emulator/stream` (server-sent events). Text is always set as
 * text, never as HTML.
 */
import type { JournalEntry, JournalSummary } from '../core/journal.js';

const API = '/__emulator';
const HOUR_PX = 40;

type Json = Record<string, unknown>;
type Child = Node | string | null | undefined | false;

function h(tag: string, attrs: Record<string, string> = {}, ...children: Child[]): HTMLElement {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) element.setAttribute(name, value);
  for (const child of children) if (child) element.append(child);
  return element;
}

async function getJson<T>(path: string, init?: RequestInit): Promise<T> {
  const response = await fetch(`${API}${path}`, { credentials: 'same-origin', ...init });
  const text = await response.text();
  const body = text ? JSON.parse(text) : undefined;
  if (!response.ok) {
    const message = (body as { error?: { message?: string } } | undefined)?.error?.message ?? text;
    throw new Error(`${response.status}: ${message}`);
  }
  return body as T;
}

/** An operation of the emulator run as `user` (reads only: POST /__emulator/invoke). */
async function invoke(user: string, operationId: string, path: Json, query: Json = {}): Promise<Json> {
  const result = await getJson<{ status: number; body?: Json }>('/invoke', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ user, operationId, path, query }),
  });
  return result.body ?? {};
}

const main = document.getElementById('main') as HTMLElement;
let render: () => Promise<void> = async () => {};
let refreshTimer: number | undefined;

/** Re-renders the current view soon (live updates come in bursts). */
function refreshSoon(): void {
  if (refreshTimer !== undefined) return;
  refreshTimer = window.setTimeout(() => {
    refreshTimer = undefined;
    void render().catch(showError);
  }, 150);
}

function showError(error: unknown): void {
  main.prepend(h('div', { class: 'error-box' }, String((error as Error).message ?? error)));
}

function pretty(text: string | undefined): string {
  if (text === undefined) return '(none)';
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

function headersBlock(headers: Record<string, string>): HTMLElement {
  return h(
    'pre',
    {},
    Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}`)
      .join('\n'),
  );
}

// ---- Requests ----------------------------------------------------------------------------------

/** What the journal's endpoints answer: the types of the server's journal (type-only, erased). */
type Summary = JournalSummary;
type Entry = JournalEntry;

const filters = { operation: '', status: '', user: '' };
let selectedRequest: number | undefined;

async function renderRequests(): Promise<void> {
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

// ---- Calendar ----------------------------------------------------------------------------------

interface CalendarState {
  user?: string;
  calendar?: string;
  week?: string;
  event?: string;
}

/** The calendar view's place, kept in the hash: #/calendar/<user>/<calendar>/<YYYY-MM-DD>. */
function calendarState(): CalendarState {
  const [, , user, calendar, week] = location.hash.split('/');
  return {
    ...(user ? { user: decodeURIComponent(user) } : {}),
    ...(calendar ? { calendar: decodeURIComponent(calendar) } : {}),
    ...(week ? { week } : {}),
  };
}

function go(state: CalendarState): void {
  const parts = [state.user, state.calendar, state.week].filter((p): p is string => p !== undefined);
  location.hash = ['#', 'calendar', ...parts.map(encodeURIComponent)].join('/');
}

const addDays = (date: string, days: number): string => {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d + days)).toISOString().slice(0, 10);
};

/** The Monday of the week of `date`. */
function monday(date: string): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const weekday = (new Date(Date.UTC(y, m - 1, d)).getUTCDay() + 6) % 7;
  return addDays(date, -weekday);
}

/** The date and time of an instant in a time zone. */
function localParts(ms: number, timeZone: string): { date: string; minutes: number } {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(new Date(ms))
      .map((part) => [part.type, part.value]),
  );
  return {
    date: `${parts.year}-${parts.month}-${parts.day}`,
    minutes: Number(parts.hour) * 60 + Number(parts.minute),
  };
}

/** The instant of a local midnight in a time zone. */
function midnight(date: string, timeZone: string): number {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const guess = Date.UTC(y, m - 1, d);
  const offset = (at: number) => {
    const local = localParts(at, timeZone);
    const [ly, lm, ld] = local.date.split('-').map(Number) as [number, number, number];
    return Date.UTC(ly, lm - 1, ld) + local.minutes * 60_000 - Math.floor(at / 60_000) * 60_000;
  };
  let at = guess - offset(guess);
  at = guess - offset(at);
  return at;
}

const two = (n: number) => String(n).padStart(2, '0');
const hhmm = (minutes: number) => `${two(Math.floor(minutes / 60))}:${two(minutes % 60)}`;

let selectedEvent: Json | undefined;

async function renderCalendar(): Promise<void> {
  const state = calendarState();
  const { users } = await getJson<{ users: string[] }>('/users');
  const userSelect = h(
    'select',
    { id: 'user' },
    h('option', { value: '' }, users.length ? 'a user…' : 'no users'),
  ) as HTMLSelectElement;
  for (const user of users) userSelect.append(h('option', { value: user }, user));
  userSelect.value = state.user && users.includes(state.user) ? state.user : '';
  userSelect.addEventListener('change', () =>
    go({ ...(userSelect.value ? { user: userSelect.value } : {}) }),
  );
  const toolbar = h('div', { class: 'toolbar' }, 'User ', userSelect);
  const content: Child[] = [toolbar];
  if (state.user && users.includes(state.user)) {
    const user = state.user;
    const list = await invoke(user, 'calendarList.list', {});
    const items = (list.items as Json[] | undefined) ?? [];
    const calendars = h(
      'table',
      { id: 'calendar-list' },
      h('thead', {}, h('tr', {}, ...['Calendar', 'Id', 'Role', 'Time zone'].map((t) => h('th', {}, t)))),
      h(
        'tbody',
        {},
        ...items.map((item) => {
          const row = h(
            'tr',
            {
              class: `row${item.id === state.calendar ? ' selected' : ''}`,
              'data-calendar': String(item.id),
            },
            h('td', {}, String(item.summaryOverride ?? item.summary ?? '')),
            h('td', {}, String(item.id)),
            h('td', {}, String(item.accessRole ?? '')),
            h('td', {}, String(item.timeZone ?? '')),
          );
          row.addEventListener('click', () =>
            go({ user, calendar: String(item.id), ...(state.week ? { week: state.week } : {}) }),
          );
          return row;
        }),
      ),
    );
    content.push(h('h2', {}, `Calendar list of ${user}`), calendars);
    const entry = items.find((item) => item.id === state.calendar);
    if (entry) content.push(await weekView(user, entry, state));
  }
  main.replaceChildren(...content.filter((c): c is Node | string => Boolean(c)));
}

async function weekView(user: string, calendar: Json, state: CalendarState): Promise<HTMLElement> {
  const timeZone = String(calendar.timeZone ?? 'UTC');
  const start = monday(state.week ?? localParts(Date.now(), timeZone).date);
  const days = Array.from({ length: 7 }, (_, i) => addDays(start, i));
  const calendarId = String(calendar.id);
  // A day more on each side: all-day events are filtered from midnight UTC (README), then by date here.
  const events: Json[] = [];
  let pageToken: string | undefined;
  do {
    const page = await invoke(
      user,
      'events.list',
      { calendarId },
      {
        singleEvents: true,
        orderBy: 'startTime',
        maxResults: 2500,
        timeMin: new Date(midnight(addDays(start, -1), timeZone)).toISOString(),
        timeMax: new Date(midnight(addDays(start, 8), timeZone)).toISOString(),
        ...(pageToken ? { pageToken } : {}),
      },
    );
    events.push(...((page.items as Json[] | undefined) ?? []));
    pageToken = page.nextPageToken as string | undefined;
  } while (pageToken);

  const nav = (label: string, week: string, id: string) => {
    const button = h('button', { id }, label);
    button.addEventListener('click', () => go({ user, calendar: calendarId, week }));
    return button;
  };
  const jump = h('input', { type: 'date', id: 'week-date', value: start }) as HTMLInputElement;
  jump.addEventListener(
    'change',
    () => jump.value && go({ user, calendar: calendarId, week: monday(jump.value) }),
  );
  const toolbar = h(
    'div',
    { class: 'toolbar' },
    nav('‹ Previous week', addDays(start, -7), 'week-previous'),
    nav('This week', monday(localParts(Date.now(), timeZone).date), 'week-today'),
    nav('Next week ›', addDays(start, 7), 'week-next'),
    jump,
    h('span', { id: 'week-title' }, `Week of ${start} in ${timeZone}`),
  );

  const grid = h('div', { class: 'week', id: 'week' });
  grid.append(h('div', { class: 'head' }));
  for (const day of days) {
    const label = new Date(`${day}T12:00:00Z`).toLocaleDateString('en-GB', {
      weekday: 'short',
      day: 'numeric',
      month: 'short',
      timeZone: 'UTC',
    });
    grid.append(h('div', { class: 'head', 'data-day': day }, label));
  }
  const allday = h('div', { class: 'allday', id: 'allday' });
  grid.append(h('div', { class: 'allday-label' }, 'all day'), allday);
  const gutter = h('div', { class: 'gutter' });
  for (let hour = 1; hour < 24; hour++) {
    const label = h('span', { class: 'hour', 'data-hour': String(hour) }, `${two(hour)}:00`);
    label.style.top = `${hour * HOUR_PX}px`;
    gutter.append(label);
  }
  grid.append(gutter);
  const columns = new Map(days.map((day) => [day, h('div', { class: 'day', 'data-day': day })]));
  for (const column of columns.values()) grid.append(column);

  const block = (event: Json, attrs: Record<string, string>, text: string) => {
    const element = h('div', { class: 'event', 'data-event-id': String(event.id), ...attrs }, text);
    element.title = text;
    element.addEventListener('click', () => {
      selectedEvent = event;
      refreshSoon();
    });
    if (selectedEvent && selectedEvent.id === event.id) element.classList.add('selected');
    return element;
  };
  for (const event of events) {
    if (event.status === 'cancelled') continue;
    const startOf = event.start as { date?: string; dateTime?: string } | undefined;
    const endOf = event.end as { date?: string; dateTime?: string } | undefined;
    const summary = String(event.summary ?? '(no title)');
    if (startOf?.date) {
      const first = startOf.date;
      const last = addDays(endOf?.date ?? addDays(first, 1), -1);
      const from = days.findIndex((day) => day >= first);
      const to = days.findLastIndex((day) => day <= last);
      if (from < 0 || to < 0 || from > to) continue;
      const element = block(event, { 'data-day': days[from] as string, 'data-all-day': 'true' }, summary);
      element.style.gridColumn = `${from + 1} / ${to + 2}`;
      allday.append(element);
    } else if (startOf?.dateTime) {
      const begin = Date.parse(startOf.dateTime);
      const end = endOf?.dateTime ? Date.parse(endOf.dateTime) : begin + 3_600_000;
      const local = localParts(begin, timeZone);
      const column = columns.get(local.date);
      if (!column) continue;
      const minutes = Math.max(30, Math.min((end - begin) / 60_000, 24 * 60 - local.minutes));
      const element = block(
        event,
        { 'data-day': local.date, 'data-start': hhmm(local.minutes) },
        `${hhmm(local.minutes)} ${summary}`,
      );
      element.style.top = `${(local.minutes / 60) * HOUR_PX}px`;
      element.style.height = `${(minutes / 60) * HOUR_PX}px`;
      column.append(element);
    }
  }
  const wrapper = h('div', {}, toolbar, grid);
  if (selectedEvent && events.some((event) => event.id === selectedEvent?.id)) {
    const event = selectedEvent;
    wrapper.append(
      h(
        'div',
        { id: 'event-detail' },
        h('h2', {}, String(event.summary ?? '(no title)')),
        h(
          'dl',
          { class: 'kv' },
          h('dt', {}, 'id'),
          h('dd', {}, String(event.id)),
          h('dt', {}, 'etag'),
          h('dd', { id: 'event-etag' }, String(event.etag)),
          h('dt', {}, 'sequence'),
          h('dd', { id: 'event-sequence' }, String(event.sequence ?? 0)),
          h('dt', {}, 'updated'),
          h('dd', {}, String(event.updated ?? '')),
          ...(event.recurringEventId
            ? [h('dt', {}, 'recurring event'), h('dd', {}, String(event.recurringEventId))]
            : []),
        ),
        h('pre', { id: 'event-json' }, JSON.stringify(event, null, 2)),
      ),
    );
  }
  return wrapper;
}

// ---- Notifications -----------------------------------------------------------------------------

async function renderNotifications(): Promise<void> {
  const [{ channels }, { deliveries }] = await Promise.all([
    getJson<{ channels: Json[] }>('/channels'),
    getJson<{ deliveries: (Json & { headers: Record<string, string> })[] }>('/deliveries'),
  ]);
  main.replaceChildren(
    h('h2', {}, `Open channels (${channels.length})`),
    h(
      'table',
      { id: 'channels' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ...['Id', 'Address', 'Expires', 'Resource', 'Owner', 'Messages'].map((t) => h('th', {}, t)),
        ),
      ),
      h(
        'tbody',
        {},
        ...channels.map((c) =>
          h(
            'tr',
            { 'data-channel': String(c.id) },
            h('td', {}, String(c.id)),
            h('td', {}, String(c.address)),
            h('td', {}, String(c.expiration)),
            h('td', {}, String(c.resourceUri)),
            h('td', {}, String(c.owner)),
            h('td', {}, String(c.messages)),
          ),
        ),
      ),
    ),
    h('h2', {}, `Deliveries (${deliveries.length})`),
    h(
      'table',
      { id: 'deliveries' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ...['Time', 'Channel', 'State', 'No.', 'Attempt', 'Receiver', 'Headers'].map((t) => h('th', {}, t)),
        ),
      ),
      h(
        'tbody',
        {},
        ...deliveries
          .slice()
          .reverse()
          .map((d) =>
            h(
              'tr',
              { 'data-delivery': String(d.id), 'data-state': String(d.state) },
              h('td', {}, new Date(String(d.at)).toLocaleTimeString()),
              h('td', {}, String(d.channelId)),
              h('td', {}, String(d.state)),
              h('td', {}, String(d.number)),
              h('td', {}, String(d.attempt)),
              h(
                'td',
                { class: d.status === undefined || Number(d.status) >= 400 ? 'status-error' : '' },
                d.status !== undefined ? String(d.status) : String(d.error),
              ),
              h('td', {}, headersBlock(d.headers)),
            ),
          ),
      ),
    ),
  );
}

// ---- Control -----------------------------------------------------------------------------------

async function renderControl(): Promise<void> {
  const [health, quota] = await Promise.all([getJson<Json>('/health'), getJson<Json>('/quota')]);
  const message = h('p', { id: 'control-message', class: 'muted' });
  const reset = h('button', { id: 'reset' }, 'Reset the emulator');
  reset.addEventListener('click', async () => {
    if (!window.confirm('Empty the state, the quota counters, the channels and the journal?')) return;
    await getJson('/reset', { method: 'POST' });
    message.textContent = 'Reset done.';
    refreshSoon();
  });
  const file = h('input', {
    type: 'file',
    id: 'state-file',
    accept: 'application/json,.json',
  }) as HTMLInputElement;
  file.addEventListener('change', async () => {
    const chosen = file.files?.[0];
    if (!chosen) return;
    try {
      await getJson('/state', {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: await chosen.text(),
      });
      message.textContent = `Loaded ${chosen.name}.`;
    } catch (error) {
      message.textContent = String((error as Error).message);
    }
  });
  main.replaceChildren(
    h(
      'div',
      { class: 'actions' },
      h('div', {}, reset, ' POST /__emulator/reset'),
      h('div', {}, 'Load a dumped state (PUT /__emulator/state): ', file),
      h(
        'div',
        {},
        h(
          'a',
          { href: `${API}/state`, download: 'emulator-state.json', id: 'download-state' },
          'Download the state',
        ),
        ' GET /__emulator/state',
      ),
      message,
      h('h2', {}, 'Health'),
      h('pre', { id: 'health' }, JSON.stringify(health, null, 2)),
      h('h2', {}, 'Quota'),
      h('pre', { id: 'quota' }, JSON.stringify(quota, null, 2)),
    ),
  );
}

// ---- Routing and live updates ------------------------------------------------------------------

const views: Record<string, () => Promise<void>> = {
  requests: renderRequests,
  calendar: renderCalendar,
  notifications: renderNotifications,
  control: renderControl,
};

function route(): void {
  const name = location.hash.split('/')[1] ?? 'requests';
  const view = views[name] ?? renderRequests;
  for (const link of document.querySelectorAll('nav a'))
    link.classList.toggle('active', link.getAttribute('data-view') === (views[name] ? name : 'requests'));
  document.body.dataset.view = views[name] ? name : 'requests';
  render = view;
  void render()
    .then(() => {
      document.body.dataset.rendered = String(Date.now());
    })
    .catch(showError);
}

window.addEventListener('hashchange', route);
route();

const live = document.getElementById('live') as HTMLElement;
const stream = new EventSource(`${API}/stream`);
stream.addEventListener('open', () => {
  live.textContent = 'live';
  live.classList.add('on');
});
stream.addEventListener('error', () => {
  live.textContent = 'reconnecting';
  live.classList.remove('on');
});
for (const event of ['request', 'delivery', 'reset']) stream.addEventListener(event, refreshSoon);
