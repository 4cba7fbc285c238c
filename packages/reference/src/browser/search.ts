/**
 * Search across both APIs on the landing page: operations (by id, summary, path and the
 * field names they use) and schemas (by name and fields), from dist/search-index.json.
 */
import { byId, el } from './dom.js';

interface SearchEntry {
  api: string;
  apiTitle: string;
  kind: 'operation' | 'schema';
  name: string;
  title: string;
  method?: string;
  path?: string;
  href: string;
  fields: string[];
}

interface Hit {
  entry: SearchEntry;
  score: number;
  matchedFields: string[];
}

/** Scores one entry for a query; undefined when it does not match at all. */
export function score(entry: SearchEntry, query: string): Hit | undefined {
  const q = query.toLowerCase();
  const name = entry.name.toLowerCase();
  let best = 0;
  if (name === q) best = 100;
  else if (name.startsWith(q) || name.split('.').pop()?.startsWith(q)) best = 80;
  else if (name.includes(q)) best = 60;
  if (entry.title.toLowerCase().includes(q)) best = Math.max(best, 40);
  if (entry.path?.toLowerCase().includes(q)) best = Math.max(best, 35);
  const matchedFields = entry.fields.filter((f) => f.toLowerCase().includes(q));
  if (matchedFields.some((f) => f.toLowerCase() === q))
    best = Math.max(best, entry.kind === 'operation' ? 50 : 45);
  else if (matchedFields.length > 0) best = Math.max(best, 20);
  return best > 0 ? { entry, score: best, matchedFields } : undefined;
}

let index: Promise<SearchEntry[]> | undefined;

function loadIndex(): Promise<SearchEntry[]> {
  index ??= fetch('search-index.json').then((r) => {
    if (!r.ok) throw new Error(`search-index.json: HTTP ${r.status}`);
    return r.json() as Promise<SearchEntry[]>;
  });
  return index;
}

function render(list: HTMLElement, hits: Hit[], query: string): void {
  list.replaceChildren(
    ...hits.slice(0, 25).map(({ entry, matchedFields }) => {
      const label = entry.kind === 'operation' ? `${entry.method} ${entry.name}` : `schema ${entry.name}`;
      const meta = [
        entry.apiTitle,
        entry.path,
        matchedFields.length > 0 ? `fields: ${matchedFields.slice(0, 5).join(', ')}` : '',
      ]
        .filter(Boolean)
        .join(' · ');
      return el(
        'li',
        { 'data-kind': entry.kind, 'data-name': entry.name },
        el('a', { href: entry.href }, label),
        ` ${entry.title} `,
        el('span', { class: 'meta' }, meta),
      );
    }),
  );
  if (query && hits.length === 0) list.replaceChildren(el('li', {}, `Nothing matches “${query}”.`));
}

async function onInput(input: HTMLInputElement, list: HTMLElement): Promise<void> {
  const query = input.value.trim();
  if (query.length < 2) {
    list.replaceChildren();
    return;
  }
  try {
    const hits = (await loadIndex())
      .map((entry) => score(entry, query))
      .filter((hit): hit is Hit => hit !== undefined)
      .sort((a, b) => b.score - a.score || a.entry.name.localeCompare(b.entry.name));
    if (input.value.trim() === query) render(list, hits, query);
  } catch (error) {
    list.replaceChildren(el('li', {}, `Search is unavailable: ${(error as Error).message}`));
  }
}

const input = byId<HTMLInputElement>('search');
const list = byId<HTMLElement>('search-results');
byId<HTMLFormElement>('search-form').addEventListener('submit', (event) => event.preventDefault());
input.addEventListener('input', () => void onInput(input, list));
if (input.value) void onInput(input, list);
