/**
 * The Calendar view: users and their calendar lists; for a calendar, a week of its events in its
 * time zone (an event's detail with the changes the journal saw), its sharing rules, and its sync
 * state (what a sync token would replay).
 */
import type { JournalEntry, JournalSummary } from '../../core/journal.js';
import {
  type Child,
  emulatorNow,
  getJson,
  h,
  invoke,
  type Json,
  main,
  refreshSoon,
  table,
} from '../../ui/kit.js';
import { sharingView, syncView } from './inspector-lists.js';

/** The height of an hour in the week view, in pixels (--hour in inspector-style.ts). */
const HOUR_PX = 40;

/** What is shown of a calendar: its week, its sharing rules or its sync state. */
const TABS = { week: 'Week', sharing: 'Sharing (ACL)', sync: 'Sync' } as const;
type Tab = keyof typeof TABS;

interface CalendarState {
  user?: string;
  calendar?: string;
  week?: string;
  tab?: Tab;
}

/** The calendar view's place, kept in the hash: #/calendar/<user>/<calendar>/<YYYY-MM-DD>/<tab>. */
function calendarState(): CalendarState {
  const [, , user, calendar, week, tab] = location.hash.split('/');
  return {
    ...(user ? { user: decodeURIComponent(user) } : {}),
    ...(calendar ? { calendar: decodeURIComponent(calendar) } : {}),
    ...(week && /^\d{4}-\d{2}-\d{2}$/.test(week) ? { week } : {}),
    ...(tab && Object.hasOwn(TABS, tab) ? { tab: tab as Tab } : {}),
  };
}

function hashOf(state: CalendarState): string {
  const parts = [state.user, state.calendar, state.week, state.tab === 'week' ? undefined : state.tab];
  // A part is kept only after all those before it (the week needs its calendar).
  const end = parts.indexOf(undefined);
  const kept = end < 0 ? parts : parts.slice(0, end);
  return ['#', 'calendar', ...kept.map((p) => encodeURIComponent(p as string))].join('/');
}

function go(state: CalendarState): void {
  location.hash = hashOf(state);
}

/**
 * The user the view opens on when the address names none (or one the emulator no longer has):
 * the only user; else the user of the latest request in the journal; else the first.
 */
async function defaultUser(users: string[]): Promise<string | undefined> {
  if (users.length <= 1) return users[0];
  const { entries } = await getJson<{ entries: JournalSummary[] }>('/journal');
  const latest = entries.findLast((entry) => entry.user !== undefined && users.includes(entry.user));
  return latest?.user ?? users[0];
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

/**
 * The instant a day starts in a time zone: the rule the API places an all-day date by
 * (decision 0055; apis/calendar/time.ts `instantOfEventTime`, which this page cannot import),
 * used here for the week's bounds only. Events are placed from what the API answers.
 */
function midnightInZone(date: string, timeZone: string): number {
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

/**
 * The local date and minutes of an answered `dateTime`: the API writes every time of the week
 * in the calendar's zone (the list asks for it with `timeZone`), so its text is the reading of
 * that zone's clock.
 */
function localOfAnswer(dateTime: string): { date: string; minutes: number } {
  return {
    date: dateTime.slice(0, 10),
    minutes: Number(dateTime.slice(11, 13)) * 60 + Number(dateTime.slice(14, 16)),
  };
}

const two = (n: number) => String(n).padStart(2, '0');
const hhmm = (minutes: number) => `${two(Math.floor(minutes / 60))}:${two(minutes % 60)}`;

/** The event whose detail is open, by id: shown as the latest read of the week has it. */
let selectedEventId: string | undefined;

/**
 * Draws the view at the place the address names. What it leaves out is filled with what a
 * person most likely wants (the user of `defaultUser`, that user's primary calendar, this week
 * in the emulator's clock) and written back into the address in place, so that a reload and
 * the back button keep it.
 */
export async function render(): Promise<void> {
  const asked = location.hash;
  const state = calendarState();
  const { users } = await getJson<{ users: string[] }>('/users');
  if (!state.user || !users.includes(state.user)) {
    const user = await defaultUser(users);
    if (user) {
      state.user = user;
      delete state.calendar;
      delete state.week;
    }
  }
  const userSelect = h('select', { id: 'user' }) as HTMLSelectElement;
  if (users.length === 0) userSelect.append(h('option', { value: '' }, 'no users'));
  for (const user of users) userSelect.append(h('option', { value: user }, user));
  userSelect.value = state.user ?? '';
  userSelect.addEventListener('change', () => go({ user: userSelect.value }));
  const toolbar = h('div', { class: 'toolbar' }, 'User ', userSelect);
  const content: Child[] = [toolbar];
  if (state.user) {
    const user = state.user;
    const list = await invoke(user, 'calendarList.list', {});
    const items = (list.items as Json[] | undefined) ?? [];
    if (!items.some((item) => item.id === state.calendar)) {
      const primary = items.find((item) => item.primary === true) ?? items[0];
      if (primary) state.calendar = String(primary.id);
      else delete state.calendar;
      delete state.week;
    }
    const chosen = items.find((item) => item.id === state.calendar);
    if (chosen && !state.week) state.week = monday(localParts(emulatorNow(), zoneOf(chosen)).date);
    // The address completed with what was chosen, unless it was changed meanwhile (a click, a
    // link): then the drawing that follows this one reads the new one.
    if (location.hash === asked && hashOf(state) !== asked)
      history.replaceState(history.state, '', hashOf(state));
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
    const entry = chosen;
    if (entry) {
      const tab = state.tab ?? 'week';
      const week = state.week ?? monday(localParts(emulatorNow(), zoneOf(entry)).date);
      const tabs = h(
        'div',
        { class: 'tabs', id: 'calendar-tabs' },
        ...Object.entries(TABS).map(([name, label]) => {
          const button = h('button', { 'data-tab': name, class: name === tab ? 'active' : '' }, label);
          button.addEventListener('click', () =>
            go({ user, calendar: String(entry.id), week, tab: name as Tab }),
          );
          return button;
        }),
      );
      content.push(tabs);
      if (tab === 'sharing') content.push(await sharingView(user, String(entry.id)));
      else if (tab === 'sync') content.push(await syncView(user, String(entry.id)));
      else content.push(await weekView(user, entry, state));
    }
  }
  main.replaceChildren(...content.filter((c): c is Node | string => Boolean(c)));
}

/** A calendar's time zone, as its calendar list entry gives it. */
const zoneOf = (calendar: Json): string => String(calendar.timeZone ?? 'UTC');

async function weekView(user: string, calendar: Json, state: CalendarState): Promise<HTMLElement> {
  const timeZone = zoneOf(calendar);
  const start = monday(state.week ?? localParts(emulatorNow(), timeZone).date);
  const days = Array.from({ length: 7 }, (_, i) => addDays(start, i));
  const calendarId = String(calendar.id);
  // The week's bounds in the calendar's zone, where the API places all-day dates too: an event is
  // listed exactly when it overlaps the week, and is answered in that zone.
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
        timeMin: new Date(midnightInZone(start, timeZone)).toISOString(),
        timeMax: new Date(midnightInZone(addDays(start, 7), timeZone)).toISOString(),
        timeZone,
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
    nav('This week', monday(localParts(emulatorNow(), timeZone).date), 'week-today'),
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
      selectedEventId = String(event.id);
      refreshSoon();
    });
    if (selectedEventId === event.id) element.classList.add('selected');
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
      const local = localOfAnswer(startOf.dateTime);
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
  const event = events.find((candidate) => candidate.id === selectedEventId);
  if (event) {
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
        h('h2', {}, 'Changes in the journal'),
        await eventHistory(calendarId, event),
      ),
    );
  }
  return wrapper;
}

/** The ids whose writes changed an event: its own, and its series' for an instance. */
const historyIds = (event: Json): string[] => [
  String(event.id),
  ...(event.recurringEventId ? [String(event.recurringEventId)] : []),
];

/**
 * The writes the journal saw to an event of this calendar (or to its series), oldest first,
 * each with the etag and sequence it left: read from GET /journal?mentions=<id> and each
 * entry's answer. Bounded as the journal is; a seeded event's creation is not among them.
 */
async function eventHistory(calendarId: string, event: Json): Promise<HTMLElement> {
  // A write names the calendar by its id, as its move's destination, or as `primary` when it is
  // the primary calendar of the user who wrote (whose id is that user's email).
  const ofCalendar = (entry: JournalSummary) => {
    let path = entry.path;
    try {
      path = decodeURIComponent(entry.path);
    } catch {
      // Malformed escapes: searched as they are.
    }
    return (
      path.includes(`/calendars/${calendarId}/`) ||
      path.includes(`destination=${calendarId}`) ||
      (entry.user === calendarId && path.includes('/calendars/primary/'))
    );
  };
  const found = new Map<number, JournalSummary>();
  for (const id of historyIds(event)) {
    const { entries } = await getJson<{ entries: JournalSummary[] }>(
      `/journal?mentions=${encodeURIComponent(id)}&status=ok`,
    );
    for (const entry of entries)
      if (entry.method !== 'GET' && entry.operationId?.startsWith('events.') && ofCalendar(entry))
        found.set(entry.id, entry);
  }
  const writes = [...found.values()].sort((a, b) => a.id - b.id).slice(-20);
  if (writes.length === 0)
    return h(
      'p',
      { class: 'muted', id: 'event-history' },
      'No write to this event is in the journal (a seeded event, or one older than the journal keeps).',
    );
  const rows = await Promise.all(
    writes.map(async (summary) => {
      let after: Json = {};
      try {
        const entry = await getJson<JournalEntry>(`/journal/${summary.id}`);
        after = entry.responseBody ? (JSON.parse(entry.responseBody) as Json) : {};
      } catch {
        // Dropped from the journal since it was listed, or a body cut at the cap: shown without.
      }
      return h(
        'tr',
        { 'data-journal-id': String(summary.id), 'data-operation': summary.operationId ?? '' },
        h('td', {}, new Date(summary.at).toLocaleString()),
        h('td', {}, summary.operationId ?? ''),
        h('td', {}, summary.user ?? ''),
        h('td', {}, String(summary.status)),
        h(
          'td',
          {},
          after.id === event.id || after.id === event.recurringEventId ? String(after.etag ?? '') : '',
        ),
        h('td', {}, after.sequence !== undefined ? String(after.sequence) : ''),
        h('td', {}, after.status !== undefined ? String(after.status) : ''),
      );
    }),
  );
  return table(
    'event-history',
    ['Time', 'Operation', 'User', 'Status', 'Etag after', 'Sequence', 'Event status'],
    rows,
  );
}
