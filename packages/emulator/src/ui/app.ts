/**
 * The inspector's script (runs in the browser; served as /__emulator/ui/js/ui/app.js with the modules
 * it imports). Views by the address's hash: the core's, one module each in views/ (requests,
 * the journal; notifications; control), and each API's page, which the API's folder holds
 * (`ApiModule.page`; served as js/apis/<name>/inspector-page.js beside this script's
 * js/ui/app.js, and loaded when first shown), with a tab between
 * Requests and Notifications. Everything is read from the control plane (`/__emulator/...`) of
 * the page's own origin; live updates come from `/__emulator/stream` (server-sent events).
 */
import { API, getJson, h, main, refreshLive, show, showError } from './kit.js';
import { renderControl } from './views/control.js';
import { renderNotifications } from './views/notifications.js';
import { renderRequests } from './views/requests.js';

const views: Record<string, () => Promise<void>> = {
  requests: renderRequests,
  notifications: renderNotifications,
  control: renderControl,
};

/** An API as `GET /apis` lists it: `page` is its tab's label, null when it has no page. */
interface ApiListing {
  name: string;
  page: { label: string } | null;
}

/** A tab for each API's page, before Notifications, and its view, which loads the page's script. */
async function addApiPages(): Promise<void> {
  const { apis } = await getJson<{ apis: ApiListing[] }>('/apis');
  const next = document.querySelector('nav a[data-view="notifications"]') as HTMLElement;
  for (const { name, page } of apis) {
    if (!page || name in views) continue;
    next.before(h('a', { href: `#/${name}`, 'data-view': name }, page.label), ' ');
    views[name] = async () => {
      const script = (await import(`../apis/${name}/inspector-page.js`)) as { render(): Promise<void> };
      await script.render();
    };
  }
}

/** How many times a view was drawn from the address: `data-rendered` of the body, for tests. */
let routed = 0;

function route(): void {
  const asked = location.hash.split('/')[1] ?? 'requests';
  const name = views[asked] ? asked : 'requests';
  for (const link of document.querySelectorAll('nav a'))
    link.classList.toggle('active', link.getAttribute('data-view') === name);
  document.body.dataset.view = name;
  void show(views[name] as () => Promise<void>)
    .then(() => {
      routed += 1;
      document.body.dataset.rendered = String(routed);
    })
    .catch(showError);
}

/** Who the page is to the control plane: `GET /ui/session` (core/inspector.ts). */
interface Session {
  required: boolean;
  configured: boolean;
  signedIn: boolean;
}

/** The sign-in asked for when the control plane needs the admin credential and the page has none. */
function signIn(session: Session): void {
  document.body.dataset.view = 'sign-in';
  if (!session.configured) {
    main.replaceChildren(
      h(
        'div',
        { class: 'error-box', id: 'locked' },
        'The control plane is locked: this emulator needs an admin credential and was started without one. Start it with GSPEC_EMULATOR_ADMIN_TOKEN or --admin-token-file FILE.',
      ),
    );
    return;
  }
  const token = h('input', {
    type: 'password',
    id: 'admin-token',
    autocomplete: 'current-password',
  }) as HTMLInputElement;
  const message = h('p', { id: 'sign-in-message', class: 'muted' });
  const form = h(
    'form',
    { id: 'sign-in', class: 'actions' },
    h('h2', {}, 'Sign in'),
    h('p', {}, 'This emulator asks for its admin credential before it shows its state.'),
    h('label', {}, 'Admin credential ', token),
    h('button', { type: 'submit', id: 'sign-in-submit' }, 'Sign in'),
    message,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const response = await fetch(`${API}/ui/session`, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: token.value }),
    });
    if (response.ok) location.reload();
    else message.textContent = 'That is not the admin credential.';
  });
  main.replaceChildren(form);
  token.focus();
}

/** Opens the stream of live updates, which redraw the current view. */
function listen(): void {
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
}

const session = await getJson<Session>('/ui/session');
if (session.required && !session.signedIn) signIn(session);
else {
  await addApiPages().catch(showError);
  window.addEventListener('hashchange', route);
  route();
  listen();
}
