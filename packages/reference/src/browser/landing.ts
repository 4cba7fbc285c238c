/**
 * The landing page's curl examples name the origin the page is served from when that is the
 * mock (which answers /healthz with the APIs it serves); opened from a file or from a static
 * host, they keep `npm start`'s default origin and say so.
 */
import { byId, el } from './dom.js';

interface Health {
  status?: string;
  apis?: { basePath?: string }[];
}

async function servedByMock(): Promise<boolean> {
  if (location.protocol !== 'http:' && location.protocol !== 'https:') return false;
  try {
    const response = await fetch('/healthz', { headers: { accept: 'application/json' } });
    if (!response.ok) return false;
    const health = (await response.json()) as Health;
    return health.status === 'ok' && Array.isArray(health.apis) && health.apis.length > 0;
  } catch {
    return false;
  }
}

async function showOrigin(): Promise<void> {
  const note = byId<HTMLElement>('mock-origin-note');
  if (await servedByMock()) {
    for (const span of document.querySelectorAll<HTMLElement>('[data-origin]'))
      span.textContent = location.origin;
    note.replaceChildren(
      'The mock that serves this portal answers both APIs at their live base paths on ',
      el('code', {}, location.origin),
      ', for example:',
    );
    note.dataset.served = 'mock';
  } else {
    note.dataset.served = 'default';
  }
}

void showOrigin();
