// A floor of the cold-start benchmark for Node: the same request with node:http, no client at all.
import { request } from 'node:http';

request(
  `${process.env.BENCH_BASE_URL}/calendars/primary/events?maxResults=10`,
  { headers: { Authorization: `Bearer ${process.env.BENCH_TOKEN}` } },
  async (response) => {
    let text = '';
    for await (const chunk of response) text += chunk;
    const page = JSON.parse(text) as { items?: unknown[] };
    console.log(page.items?.length ?? 0);
  },
).end();
