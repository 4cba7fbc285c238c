/** The Control view: reset, load and download the state, health and quota, through the control endpoints. */
import { API, getJson, h, type Json, main, refreshSoon } from '../kit.js';

export async function renderControl(): Promise<void> {
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
