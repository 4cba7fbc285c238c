/** The Calendar view: users, their calendar lists, a week of a calendar in its time zone, an event's detail. */
import { type Child, getJson, h, invoke, type Json, main, refreshSoon } from '../kit.js';

/** The height of an hour in the week view, in pixels (the style sheet's --hour). */
const HOUR_PX = 40;

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

export async function renderCalendar(): Promise<void> {
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
