/**
 * The inspector's script (runs in the browser; served as /__emulator/ui/app.js with the modules
 * it imports). Views by the address's hash, one module each in views/: requests (the journal),
 * calendar, searchads360, notifications, control. Everything is read from the control plane
 * (`/__emulator/...`) of the page's own origin; live updates come from `/__emulator/stream`
 * (server-sent events).
 */
import { API, refreshLive, show, showError } from './kit.js';
import { renderCalendar } from './views/calendar.js';
import { renderControl } from './views/control.js';
import { renderNotifications } from './views/notifications.js';
import { renderRequests } from './views/requests.js';
import { renderSearchAds360 } from './views/searchads360.js';

const views: Record<string, () => Promise<void>> = {
  requests: renderRequests,
  calendar: renderCalendar,
  searchads360: renderSearchAds360,
  notifications: renderNotifications,
  control: renderControl,
};

function route(): void {
  const asked = location.hash.split('/')[1] ?? 'requests';
  const name = views[asked] ? asked : 'requests';
  for (const link of document.querySelectorAll('nav a'))
    link.classList.toggle('active', link.getAttribute('data-view') === name);
  document.body.dataset.view = name;
  void show(views[name] as () => Promise<void>)
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
for (const event of ['request', 'delivery', 'reset']) stream.addEventListener(event, refreshLive);
