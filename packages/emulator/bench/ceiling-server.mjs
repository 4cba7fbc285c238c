// The ceiling of the throughput benchmark: a node:http server that does nothing but answer
// fixed bytes, the emulator's own answers captured before the rounds (argv: the GET answer's
// file, the POST answer's file). It reads each request body, as the emulator must, and
// answers with the headers a JSON answer needs. No Node server can answer the same bytes
// faster on the same machine and load generator.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const [getFile, postFile] = process.argv.slice(2);
const answers = { GET: readFileSync(getFile), POST: readFileSync(postFile) };
const server = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    const body = answers[request.method] ?? answers.GET;
    response.writeHead(200, {
      'content-type': 'application/json; charset=UTF-8',
      'content-length': body.length,
    });
    response.end(body);
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening on http://127.0.0.1:${server.address().port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
