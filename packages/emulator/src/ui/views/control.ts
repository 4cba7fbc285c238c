/**
 * The Control view: reset, load and download the state, load a seed, set or turn off the rate
 * limit, health and quota, each through the control endpoints (README, Control plane).
 */
import { API, type Child, getJson, h, type Json, main, refreshSoon } from '../kit.js';

/** What `GET /__emulator/rate-limit` answers. */
interface RateLimitState {
  enabled: boolean;
  units?: number;
  windowMs?: number;
  status?: Record<string, number>;
  used?: Record<string, Record<string, number>>;
}

/** What `POST /__emulator/seed` answers. */
interface SeedSummary {
  entries: Record<string, number>;
  tokens: number;
  users: number;
}

interface Note {
  text: string;
  error: boolean;
}

/**
 * What the last seed load and rate-limit change said. Kept here, not in the page: the view is
 * drawn again after each (and at live updates), which would take a message in it away.
 */
const notes: { seed?: Note; rateLimit?: Note } = {};

const noteElement = (id: string, note: Note): HTMLElement =>
  h('p', { id, class: note.error ? 'error-box' : 'muted' }, note.text);

const JSON_HEADERS = { 'content-type': 'application/json' };

function describeSeed(name: string, summary: SeedSummary): string {
  const entries = Object.entries(summary.entries).map(([at, count]) => `${at}: ${count}`);
  return `Seeded from ${name} (${entries.join(', ') || 'nothing'}); ${summary.tokens} token${
    summary.tokens === 1 ? '' : 's'
  } added; ${summary.users} user${summary.users === 1 ? '' : 's'} in all.`;
}

function describeLimit(limit: RateLimitState): string {
  if (!limit.enabled) return 'Off: no request is refused for its rate.';
  const window = limit.windowMs === 60_000 ? 'minute' : `${limit.windowMs} ms`;
  const answers = Object.entries(limit.status ?? {})
    .map(([api, status]) => `${api} ${status}`)
    .join(', ');
  return `On: ${limit.units} quota units per user and API per ${window}; over it ${answers}.`;
}

/** The status chosen for every API, or '' when each answers as its live service does. */
function chosenStatus(limit: RateLimitState): string {
  const statuses = new Set(Object.values(limit.status ?? {}));
  return statuses.size === 1 ? String([...statuses][0]) : '';
}

/** The seed file input: its document goes to POST /__emulator/seed, the answer to the note. */
function seedInput(): HTMLElement {
  return jsonFileInput('seed-file', async (chosen) => {
    try {
      const summary = await getJson<SeedSummary>('/seed', {
        method: 'POST',
        headers: JSON_HEADERS,
        body: await chosen.text(),
      });
      notes.seed = { text: describeSeed(chosen.name, summary), error: false };
    } catch (error) {
      notes.seed = { text: `${chosen.name} was not loaded: ${(error as Error).message}`, error: true };
    }
    refreshSoon();
  });
}

/** A file input for a JSON document: `upload` gets each file chosen. */
function jsonFileInput(id: string, upload: (chosen: File) => Promise<void>): HTMLInputElement {
  const input = h('input', { type: 'file', id, accept: 'application/json,.json' }) as HTMLInputElement;
  input.addEventListener('change', () => {
    const chosen = input.files?.[0];
    if (chosen) void upload(chosen);
  });
  return input;
}

/** The rate limit as it is, and its controls: Apply (PUT /__emulator/rate-limit), Turn off (DELETE). */
function rateLimitSection(limit: RateLimitState): Child[] {
  const units = h('input', {
    type: 'number',
    id: 'rate-limit-units',
    min: '1',
    step: '1',
    value: String(limit.units ?? 60),
  }) as HTMLInputElement;
  const status = h(
    'select',
    { id: 'rate-limit-status' },
    h('option', { value: '' }, "each API's own"),
    h('option', { value: '403' }, '403'),
    h('option', { value: '429' }, '429'),
  ) as HTMLSelectElement;
  status.value = chosenStatus(limit);
  const change = async (init: RequestInit, done: string) => {
    try {
      await getJson('/rate-limit', init);
      notes.rateLimit = { text: done, error: false };
    } catch (error) {
      notes.rateLimit = { text: String((error as Error).message), error: true };
    }
    refreshSoon();
  };
  const apply = h('button', { id: 'rate-limit-apply' }, 'Apply');
  apply.addEventListener('click', () =>
    change(
      {
        method: 'PUT',
        headers: JSON_HEADERS,
        body: JSON.stringify({
          units: Number(units.value),
          ...(status.value ? { status: Number(status.value) } : {}),
        }),
      },
      'Rate limit set.',
    ),
  );
  const off = h('button', { id: 'rate-limit-off' }, 'Turn off') as HTMLButtonElement;
  off.disabled = !limit.enabled;
  off.addEventListener('click', () => change({ method: 'DELETE' }, 'Rate limit turned off.'));
  return [
    h('h2', {}, 'Rate limit'),
    h('p', { id: 'rate-limit-state', 'data-enabled': String(limit.enabled) }, describeLimit(limit)),
    limit.enabled && h('pre', { id: 'rate-limit-used' }, JSON.stringify(limit.used ?? {}, null, 2)),
    h(
      'div',
      { class: 'toolbar' },
      h('label', { for: 'rate-limit-units' }, 'Units per user and API per minute'),
      units,
      h('label', { for: 'rate-limit-status' }, 'Status'),
      status,
      apply,
      off,
      ' PUT|DELETE /__emulator/rate-limit',
    ),
    notes.rateLimit && noteElement('rate-limit-message', notes.rateLimit),
  ];
}

export async function renderControl(): Promise<void> {
  const [health, quota, limit, session] = await Promise.all([
    getJson<Json>('/health'),
    getJson<Json>('/quota'),
    getJson<RateLimitState>('/rate-limit'),
    getJson<{ required: boolean }>('/ui/session'),
  ]);
  // Signed in with the admin credential (the control plane asks for it): a way out.
  const signOut = h('button', { id: 'sign-out' }, 'Sign out');
  signOut.addEventListener('click', async () => {
    await fetch(`${API}/ui/session`, { method: 'DELETE', credentials: 'same-origin' });
    location.reload();
  });
  const message = h('p', { id: 'control-message', class: 'muted' });
  const reset = h('button', { id: 'reset' }, 'Reset the emulator');
  reset.addEventListener('click', async () => {
    if (!window.confirm('Empty the state, the quota counters, the channels and the journal?')) return;
    await getJson('/reset', { method: 'POST' });
    message.textContent = 'Reset done.';
    refreshSoon();
  });
  const file = jsonFileInput('state-file', async (chosen) => {
    try {
      await getJson('/state', { method: 'PUT', headers: JSON_HEADERS, body: await chosen.text() });
      message.textContent = `Loaded ${chosen.name}.`;
    } catch (error) {
      message.textContent = String((error as Error).message);
    }
  });
  main.replaceChildren(
    h(
      'div',
      { class: 'actions' },
      session.required ? h('div', {}, signOut, ' DELETE /__emulator/ui/session') : '',
      h('div', {}, reset, ' POST /__emulator/reset'),
      h('div', {}, 'Load a dumped state (PUT /__emulator/state): ', file),
      h('div', {}, 'Load a seed file (POST /__emulator/seed): ', seedInput()),
      notes.seed && noteElement('seed-result', notes.seed),
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
      ...rateLimitSection(limit),
      h('h2', {}, 'Health'),
      h('pre', { id: 'health' }, JSON.stringify(health, null, 2)),
      h('h2', {}, 'Quota'),
      h('pre', { id: 'quota' }, JSON.stringify(quota, null, 2)),
    ),
  );
}
