/**
 * What every view of the inspector shares: making elements (text is always set as text, never
 * as HTML), reading the control plane of the page's own origin, running a read as a user, and
 * redrawing the current view.
 */

export const API = '/__emulator';

export type Json = Record<string, unknown>;
export type Child = Node | string | null | undefined | false;

export function h(tag: string, attrs: Record<string, string> = {}, ...children: Child[]): HTMLElement {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) element.setAttribute(name, value);
  for (const child of children) if (child) element.append(child);
  return element;
}

/**
 * How far the emulator's clock is ahead of the page's, in milliseconds, as the `Date` header of
 * its last answer tells (0 until one is read).
 */
let clockOffset = 0;

/**
 * Now in the emulator's clock: the page's own clock, moved by the offset the emulator's `Date`
 * headers show. A header is to the second, so within two seconds the clocks are taken to agree
 * and the page's finer one is used as it is.
 */
export function emulatorNow(): number {
  return Date.now() + clockOffset;
}

function readClock(response: Response): void {
  const date = Date.parse(response.headers.get('date') ?? '');
  if (Number.isNaN(date)) return;
  const offset = date - Date.now();
  clockOffset = Math.abs(offset) < 2000 ? 0 : offset;
}

export async function getJson<T>(path: string, init?: RequestInit): Promise<T> {
  const response = await fetch(`${API}${path}`, { credentials: 'same-origin', ...init });
  readClock(response);
  const text = await response.text();
  const body = text ? JSON.parse(text) : undefined;
  if (!response.ok) {
    const message = (body as { error?: { message?: string } } | undefined)?.error?.message ?? text;
    throw new Error(`${response.status}: ${message}`);
  }
  return body as T;
}

/** An operation of the emulator run as `user` (reads only: POST /__emulator/invoke). */
export async function invoke(user: string, operationId: string, path: Json, query: Json = {}): Promise<Json> {
  const result = await getJson<{ status: number; body?: Json }>('/invoke', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ user, operationId, path, query }),
  });
  return result.body ?? {};
}

export const main = document.getElementById('main') as HTMLElement;
let render: () => Promise<void> = async () => {};
let refreshTimer: number | undefined;

/** The drawing under way, and the one asked for meanwhile. */
let drawing: Promise<void> | undefined;
let queued: Promise<void> | undefined;

/**
 * Draws the current view, one drawing at a time: a view reads the address and the control plane
 * before it replaces `main`, so two at once could end in either order, and a live refresh of
 * the view before a click would cover the view the click asked for. Asked while one is under
 * way, it draws once more after it, the view current then.
 */
function draw(): Promise<void> {
  if (!drawing) {
    drawing = render().finally(() => {
      drawing = undefined;
    });
    return drawing;
  }
  queued ??= drawing
    .catch(() => undefined)
    .then(() => {
      queued = undefined;
      return draw();
    });
  return queued;
}

/** Makes `view` the one drawn, and draws it. */
export function show(view: () => Promise<void>): Promise<void> {
  render = view;
  return draw();
}

/** Draws the current view again soon (after a click; live updates come in bursts). */
export function refreshSoon(): void {
  if (refreshTimer !== undefined) return;
  refreshTimer = window.setTimeout(() => {
    refreshTimer = undefined;
    void draw().catch(showError);
  }, 150);
}

/**
 * Draws the current view again for a live update, unless the user is typing in one of its
 * fields (redrawing would take the field away): then once the field is left.
 */
export function refreshLive(): void {
  const active = document.activeElement;
  if (active && main.contains(active) && /^(INPUT|SELECT|TEXTAREA)$/.test(active.tagName)) {
    active.addEventListener('blur', refreshSoon, { once: true });
    return;
  }
  refreshSoon();
}

export function showError(error: unknown): void {
  main.prepend(h('div', { class: 'error-box' }, String((error as Error).message ?? error)));
}

export function pretty(text: string | undefined): string {
  if (text === undefined) return '(none)';
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

export function headersBlock(headers: Record<string, string>): HTMLElement {
  return h(
    'pre',
    {},
    Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}`)
      .join('\n'),
  );
}

/** A table with a header row. */
export function table(id: string, headings: string[], rows: Node[]): HTMLElement {
  return h(
    'table',
    { id },
    h('thead', {}, h('tr', {}, ...headings.map((t) => h('th', {}, t)))),
    h('tbody', {}, ...rows),
  );
}
