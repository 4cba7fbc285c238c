// A minimal Calendar events.list answer on 127.0.0.1, in its own process so that its work
// does not share the client's event loop. Prints its port, then serves until killed.
import http from 'node:http';

const body = JSON.stringify({
  kind: 'calendar#events',
  etag: '"p33bsk5kq8dnjk0g"',
  summary: 'me@example.com',
  timeZone: 'Europe/Zurich',
  items: Array.from({ length: 10 }, (_, i) => ({
    kind: 'calendar#event',
    id: `event${i}`,
    etag: `"${3425891234567000 + i}"`,
    status: 'confirmed',
    summary: `Meeting ${i}`,
    start: { dateTime: '2026-12-01T10:00:00+01:00' },
    end: { dateTime: '2026-12-01T11:00:00+01:00' },
  })),
  nextSyncToken: 'CPDAlvWDx70CEPDAlvWDx70CGAU=',
});
const server = http.createServer((request, response) => {
  request.resume();
  response.writeHead(200, {
    'content-type': 'application/json; charset=UTF-8',
    'content-length': Buffer.byteLength(body),
  });
  response.end(body);
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  console.log(typeof address === 'object' && address ? address.port : 0);
});
