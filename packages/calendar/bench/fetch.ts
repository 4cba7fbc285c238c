// The floor of the cold-start benchmark: the same request with a bare fetch, no client at all.
const response = await fetch(`${process.env.BENCH_BASE_URL}/calendars/primary/events?maxResults=10`, {
  headers: { Authorization: `Bearer ${process.env.BENCH_TOKEN}` },
});
const page = (await response.json()) as { items?: unknown[] };
console.log(page.items?.length ?? 0);
