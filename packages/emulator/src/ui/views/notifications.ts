/** The Notifications view: open watch channels and every delivery with its headers and the receiver's status. */
import { getJson, h, headersBlock, type Json, main } from '../kit.js';

export async function renderNotifications(): Promise<void> {
  const [{ channels }, { deliveries }] = await Promise.all([
    getJson<{ channels: Json[] }>('/channels'),
    getJson<{ deliveries: (Json & { headers: Record<string, string> })[] }>('/deliveries'),
  ]);
  main.replaceChildren(
    h('h2', {}, `Open channels (${channels.length})`),
    h(
      'table',
      { id: 'channels' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ...['Id', 'Address', 'Expires', 'Resource', 'Owner', 'Messages'].map((t) => h('th', {}, t)),
        ),
      ),
      h(
        'tbody',
        {},
        ...channels.map((c) =>
          h(
            'tr',
            { 'data-channel': String(c.id) },
            h('td', {}, String(c.id)),
            h('td', {}, String(c.address)),
            h('td', {}, String(c.expiration)),
            h('td', {}, String(c.resourceUri)),
            h('td', {}, String(c.owner)),
            h('td', {}, String(c.messages)),
          ),
        ),
      ),
    ),
    h('h2', {}, `Deliveries (${deliveries.length})`),
    h(
      'table',
      { id: 'deliveries' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ...['Time', 'Channel', 'State', 'No.', 'Attempt', 'Receiver', 'Headers'].map((t) => h('th', {}, t)),
        ),
      ),
      h(
        'tbody',
        {},
        ...deliveries
          .slice()
          .reverse()
          .map((d) =>
            h(
              'tr',
              { 'data-delivery': String(d.id), 'data-state': String(d.state) },
              h('td', {}, new Date(String(d.at)).toLocaleTimeString()),
              h('td', {}, String(d.channelId)),
              h('td', {}, String(d.state)),
              h('td', {}, String(d.number)),
              h('td', {}, String(d.attempt)),
              h(
                'td',
                { class: d.status === undefined || Number(d.status) >= 400 ? 'status-error' : '' },
                d.status !== undefined ? String(d.status) : String(d.error),
              ),
              h('td', {}, headersBlock(d.headers)),
            ),
          ),
      ),
    ),
  );
}
