/**
 * The Search Ads 360 view: an advertiser (grouped by agency), its conversions in a table sorted
 * by any column and filtered by text and state (with each one's day in the advertiser's time
 * zone, the day the API's reads date it on), a conversion's JSON and its history (the
 * inserts and updates of the journal that wrote it), its availabilities, and its engine
 * accounts' entities with their rows of the ID-mapping file. The data is the module's own
 * views (`/__emulator/apis/searchads360/<view>`), so it is what a client would be answered.
 * The place is in the address: `#/searchads360/<advertiserId>/<conversionTimestamp>:<conversionId>`.
 */

import type { JournalEntry, JournalSummary } from '../../core/journal.js';
import { type Child, getJson, h, main } from '../../ui/kit.js';
import type { AdvertisersView, AvailabilitiesView, ConversionsView, EntitiesView } from './inspect.js';
import { availabilitiesTable, decimal, entitiesTable, utc, value } from './inspector-tables.js';

const VIEWS = '/apis/searchads360';
/** The operations that write a conversion: its history. */
const WRITES = ['conversion.insert', 'conversion.update'];

type Conversion = ConversionsView['conversions'][number];

/** A column of the conversions table: its heading, its cell's text, and what it sorts by. */
interface Column {
  key: string;
  label: string;
  text(conversion: Conversion): string;
  /** What the column sorts by, when not its text (numbers as digits sort as numbers). */
  sortBy?(conversion: Conversion): string;
}

/**
 * Each shown conversion's day in its advertiser's time zone (`yyyy-mm-dd`), by its key: the day
 * the API's reads date it on, as the `conversions` view computed it.
 */
let days: Record<string, string> = {};

const COLUMNS: Column[] = [
  { key: 'conversionId', label: 'Conversion id', text: (c) => value(c, 'conversionId') },
  {
    key: 'conversionTimestamp',
    label: 'Time (UTC)',
    text: (c) => utc(value(c, 'conversionTimestamp')),
    sortBy: (c) => value(c, 'conversionTimestamp'),
  },
  {
    key: 'day',
    label: "Day (advertiser's time zone)",
    text: (c) => days[keyOf(c)] ?? '',
    sortBy: (c) => value(c, 'conversionTimestamp'),
  },
  { key: 'type', label: 'Type', text: (c) => value(c, 'type') },
  { key: 'state', label: 'State', text: (c) => value(c, 'state') },
  {
    key: 'revenue',
    label: 'Revenue',
    text: (c) =>
      c.revenueMicros === undefined
        ? ''
        : `${decimal(value(c, 'revenueMicros'), 6)} ${value(c, 'currencyCode')}`.trim(),
    sortBy: (c) => value(c, 'revenueMicros'),
  },
  {
    key: 'quantity',
    label: 'Quantity / count',
    text: (c) => decimal(value(c, c.countMillis !== undefined ? 'countMillis' : 'quantityMillis'), 3),
    sortBy: (c) => value(c, c.countMillis !== undefined ? 'countMillis' : 'quantityMillis'),
  },
  {
    key: 'activity',
    label: 'Floodlight activity',
    // Its id is in the conversion's JSON; an activity known by its id alone shows the id.
    text: (c) => value(c, 'segmentationName') || value(c, 'segmentationId'),
  },
  { key: 'clickId', label: 'Click id', text: (c) => value(c, 'clickId') },
  { key: 'engineAccountId', label: 'Engine account', text: (c) => value(c, 'engineAccountId') },
  {
    key: 'campaign',
    label: 'Campaign / ad group',
    text: (c) => [value(c, 'campaignId'), value(c, 'adGroupId')].filter(Boolean).join(' / '),
  },
  { key: 'attributionModel', label: 'Attribution model', text: (c) => value(c, 'attributionModel') },
  { key: 'dsConversionId', label: 'dsConversionId', text: (c) => value(c, 'dsConversionId') },
  {
    key: 'modified',
    label: 'Modified (UTC)',
    text: (c) => utc(value(c, 'conversionModifiedTimestamp')),
    sortBy: (c) => value(c, 'conversionModifiedTimestamp'),
  },
];

/** How the conversions table is sorted and filtered; kept while the view is redrawn. */
const look = { sort: undefined as string | undefined, descending: false, filter: '', state: '' };

/** A conversion's key within its advertiser, as the API keeps it. */
const keyOf = (c: Conversion) => `${value(c, 'conversionTimestamp')}:${value(c, 'conversionId')}`;

interface Place {
  advertiser?: string;
  conversion?: string;
}

function place(): Place {
  const [, , advertiser, conversion] = location.hash.split('/');
  return {
    ...(advertiser ? { advertiser: decodeURIComponent(advertiser) } : {}),
    ...(conversion ? { conversion: decodeURIComponent(conversion) } : {}),
  };
}

function go(to: Place): void {
  const parts = [to.advertiser, to.conversion].filter((p): p is string => p !== undefined);
  location.hash = ['#', 'searchads360', ...parts.map(encodeURIComponent)].join('/');
}

const ORDER = new Intl.Collator('en', { numeric: true });

/** The conversions shown: filtered by state and text (any cell), then sorted (a stable sort). */
function shown(conversions: Conversion[]): Conversion[] {
  const needle = look.filter.trim().toLowerCase();
  const kept = conversions.filter(
    (c) =>
      (!look.state || c.state === look.state) &&
      (!needle || COLUMNS.some((column) => column.text(c).toLowerCase().includes(needle))),
  );
  const column = COLUMNS.find((c) => c.key === look.sort);
  if (!column) return kept;
  const by = column.sortBy ?? column.text;
  const sign = look.descending ? -1 : 1;
  return kept.sort((a, b) => sign * ORDER.compare(by(a), by(b)));
}

/** Draws the conversions table into `target` (sorting and filtering redraw it alone). */
function drawConversions(
  target: HTMLElement,
  count: HTMLElement,
  conversions: Conversion[],
  advertiser: string,
  selected: string | undefined,
): void {
  const list = shown(conversions);
  count.textContent = `${list.length} of ${conversions.length} shown`;
  const headings = COLUMNS.map((column) => {
    const sorted = look.sort === column.key;
    const th = h(
      'th',
      {
        class: 'sortable',
        'data-column': column.key,
        title: 'Sort by this column',
        ...(sorted ? { 'aria-sort': look.descending ? 'descending' : 'ascending' } : {}),
      },
      column.label + (sorted ? (look.descending ? ' ▼' : ' ▲') : ''),
    );
    th.addEventListener('click', () => {
      look.descending = sorted ? !look.descending : false;
      look.sort = column.key;
      drawConversions(target, count, conversions, advertiser, selected);
    });
    return th;
  });
  const rows = list.map((c) => {
    const row = h(
      'tr',
      {
        class: `row${keyOf(c) === selected ? ' selected' : ''}`,
        'data-conversion-id': value(c, 'conversionId'),
        'data-key': keyOf(c),
        'data-state': value(c, 'state'),
      },
      ...COLUMNS.map((column) => h('td', { 'data-column': column.key }, column.text(c))),
    );
    row.addEventListener('click', () => go({ advertiser, conversion: keyOf(c) }));
    return row;
  });
  target.replaceChildren(h('thead', {}, h('tr', {}, ...headings)), h('tbody', {}, ...rows));
  if (conversions.length > 0 && list.length === 0)
    target.append(
      h('tbody', {}, h('tr', {}, h('td', { colspan: String(COLUMNS.length), class: 'muted' }, 'none match'))),
    );
}

/** One write of a conversion, as the journal recorded the request. */
interface Write {
  entry: JournalEntry;
  /** What the request sent for the conversion; absent when the body was cut at the cap. */
  sent?: unknown;
}

/** The rows a batch's 400 refused; undefined when it refused the whole request (no row written). */
function refusedRows(entry: JournalEntry): Set<number> | undefined {
  try {
    const errors = JSON.parse(entry.responseBody ?? '').error?.errors as { location?: string }[];
    const rows = new Set<number>();
    for (const error of errors ?? []) {
      const row = /^conversion\[(\d+)\]/.exec(error.location ?? '');
      if (!row) return undefined;
      rows.add(Number(row[1]));
    }
    return rows.size > 0 ? rows : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The inserts and updates that wrote `conversion`, oldest first: the journal's entries that
 * mention its conversionId, each with the row it sent for the conversion. A batch is best
 * effort: its 400 names the rows it refused, and wrote the others.
 */
async function historyOf(conversion: Conversion): Promise<{ writes: Write[]; capacity: number }> {
  const id = value(conversion, 'conversionId');
  const journal = await getJson<{ entries: JournalSummary[]; capacity: number }>(
    `/journal?${new URLSearchParams({ operation: 'conversion.', mentions: id })}`,
  );
  const candidates = journal.entries.filter(
    (e) => WRITES.includes(e.operationId ?? '') && (e.status < 300 || e.status === 400),
  );
  // An entry may have left the bounded journal since the list was read.
  const entries = await Promise.all(
    candidates.map((e) => getJson<JournalEntry>(`/journal/${e.id}`).catch(() => undefined)),
  );
  const same = (row: Record<string, unknown>) =>
    String(row.conversionId) === id &&
    String(row.advertiserId) === value(conversion, 'advertiserId') &&
    String(row.conversionTimestamp) === value(conversion, 'conversionTimestamp');
  const writes: Write[] = [];
  for (const entry of entries) {
    if (!entry) continue;
    if (entry.truncated?.includes('request')) {
      // Its rows cannot be read; a request that succeeded and names the conversion wrote it.
      if (entry.status < 300) writes.push({ entry });
      continue;
    }
    let rows: unknown;
    try {
      rows = JSON.parse(entry.requestBody ?? '').conversion;
    } catch {
      continue;
    }
    if (!Array.isArray(rows)) continue;
    const refused = entry.status >= 300 ? refusedRows(entry) : new Set<number>();
    if (!refused) continue;
    rows.forEach((row, i) => {
      if (row && typeof row === 'object' && same(row) && !refused.has(i)) writes.push({ entry, sent: row });
    });
  }
  return { writes, capacity: journal.capacity };
}

async function detailOf(conversion: Conversion): Promise<HTMLElement> {
  const { writes, capacity } = await historyOf(conversion);
  const history = h(
    'div',
    { id: 'conversion-history' },
    h('h2', {}, `History (${writes.length})`),
    h(
      'p',
      { class: 'muted' },
      `From the journal of requests: the conversion.insert and conversion.update calls that wrote it, among the last ${capacity} requests the journal keeps. A conversion a seed wrote, or written before those requests, has none.`,
    ),
  );
  if (writes.length > 0)
    history.append(
      h(
        'table',
        { id: 'conversion-writes' },
        h(
          'thead',
          {},
          h('tr', {}, ...['Time', 'Operation', 'User', 'Status', 'Sent'].map((t) => h('th', {}, t))),
        ),
        h(
          'tbody',
          {},
          ...writes.map(({ entry, sent }) =>
            h(
              'tr',
              { 'data-operation': entry.operationId ?? '', 'data-entry': String(entry.id) },
              h(
                'td',
                {},
                new Date(entry.at)
                  .toISOString()
                  .replace('T', ' ')
                  .replace(/\.\d+Z$/, 'Z'),
              ),
              h('td', {}, entry.operationId ?? ''),
              h('td', {}, entry.user ?? ''),
              h(
                'td',
                { class: entry.status >= 400 ? 'status-error' : '' },
                entry.status >= 400 ? `${entry.status} (this row written)` : String(entry.status),
              ),
              h(
                'td',
                {},
                sent === undefined
                  ? h('span', { class: 'muted' }, "the request body was cut at the journal's cap")
                  : h('pre', {}, JSON.stringify(sent, null, 2)),
              ),
            ),
          ),
        ),
      ),
    );
  return h(
    'div',
    { class: 'sa-detail', id: 'conversion-detail' },
    h(
      'div',
      {},
      h('h2', {}, `Conversion ${value(conversion, 'conversionId')}`),
      h('pre', { id: 'conversion-json' }, JSON.stringify(conversion, null, 2)),
    ),
    history,
  );
}

export async function render(): Promise<void> {
  const at = place();
  const { agencies } = await getJson<AdvertisersView>(`${VIEWS}/advertisers`);
  const all = agencies.flatMap((agency) => agency.advertisers.map((advertiser) => advertiser.id));
  const advertiser = at.advertiser ?? all[0];
  const select = h('select', { id: 'sa-advertiser' }) as HTMLSelectElement;
  if (all.length === 0) select.append(h('option', { value: '' }, 'no advertisers'));
  for (const agency of agencies)
    select.append(
      h(
        'optgroup',
        { label: `Agency ${agency.name ? `${agency.name} (${agency.id})` : agency.id}` },
        ...agency.advertisers.map((a) =>
          h(
            'option',
            { value: a.id },
            `${a.name ? `${a.name} (${a.id})` : a.id} · ${a.conversions} conversions${a.createdOnFirstUse ? ' · created on first use' : ''}`,
          ),
        ),
      ),
    );
  if (advertiser) select.value = advertiser;
  select.addEventListener('change', () => go({ advertiser: select.value }));
  const summary = agencies.flatMap((a) => a.advertisers).find((a) => a.id === advertiser);
  const content: Child[] = [
    h(
      'div',
      { class: 'toolbar' },
      'Advertiser ',
      select,
      summary
        ? h(
            'span',
            { class: 'muted', id: 'sa-advertiser-summary' },
            [
              summary.currencyCode && `currency ${summary.currencyCode}`,
              summary.customerId && `customer id ${summary.customerId}`,
              summary.attributionModel && `attribution ${summary.attributionModel}`,
              `time zone ${summary.timeZone}`,
              `${summary.engineAccounts} engine accounts`,
              `${summary.floodlightActivities} Floodlight activities`,
            ]
              .filter(Boolean)
              .join(' · '),
          )
        : '',
    ),
  ];
  if (!advertiser) {
    main.replaceChildren(...content.filter((c): c is Node | string => Boolean(c)));
    return;
  }
  const query = `?${new URLSearchParams({ advertiserId: advertiser })}`;
  let views: [ConversionsView, AvailabilitiesView, EntitiesView];
  try {
    views = await Promise.all([
      getJson<ConversionsView>(`${VIEWS}/conversions${query}`),
      getJson<AvailabilitiesView>(`${VIEWS}/availabilities${query}`),
      getJson<EntitiesView>(`${VIEWS}/entities${query}`),
    ]);
  } catch (error) {
    content.push(h('div', { class: 'error-box' }, String((error as Error).message)));
    main.replaceChildren(...content.filter((c): c is Node | string => Boolean(c)));
    return;
  }
  const [{ conversions, days: conversionDays }, availabilities, entities] = views;
  days = conversionDays;

  const filter = h('input', {
    id: 'conversion-filter',
    type: 'search',
    placeholder: 'filter: text in any cell',
    value: look.filter,
  }) as HTMLInputElement;
  const state = h(
    'select',
    { id: 'conversion-state' },
    ...['', 'ACTIVE', 'REMOVED'].map((s) => h('option', { value: s }, s || 'any state')),
  ) as HTMLSelectElement;
  state.value = look.state;
  const count = h('span', { class: 'muted', id: 'conversion-count' });
  const conversionTable = h('table', { id: 'conversions' });
  const selected = conversions.find((c) => keyOf(c) === at.conversion);
  const redraw = () =>
    drawConversions(conversionTable, count, conversions, advertiser, selected && keyOf(selected));
  filter.addEventListener('input', () => {
    look.filter = filter.value;
    redraw();
  });
  state.addEventListener('change', () => {
    look.state = state.value;
    redraw();
  });
  redraw();
  const detail = selected
    ? await detailOf(selected)
    : h(
        'div',
        { id: 'conversion-detail' },
        h('p', { class: 'muted' }, 'Select a conversion to see its JSON and its history.'),
      );
  content.push(
    h('h2', {}, `Conversions (${conversions.length})`),
    h('div', { class: 'filters' }, filter, state, count),
    h('div', { class: 'scroll' }, conversionTable),
    detail,
    h('h2', {}, `Availabilities (${availabilities.availabilities.length})`),
    availabilitiesTable(availabilities),
    h('h2', {}, 'Entities: the ID-mapping file (reports.getIdMappingFile)'),
    h(
      'p',
      { class: 'muted' },
      'An engine account is in the file when it has a customer id; an entity when it and every entity above it (its campaign, its ad group) have a new id.',
    ),
    entitiesTable(entities),
  );
  main.replaceChildren(...content.filter((c): c is Node | string => Boolean(c)));
}
