// The ceiling of the throughput benchmark: a node:http server that does nothing but answer
// fixed bytes, the emulator's own answers captured before the rounds (argv: the GET answer's
// file, the POST answer's file). It reads each request body, as the emulator must, answers
// with the headers a JSON answer needs, and writes its answers as the emulator does: together,
// at the end of the event loop's turn (decision 0033), which is the faster way under load. No
// Node server can answer the same bytes faster on the same machine and load generator.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const [getFile, postFile] = process.argv.slice(2);
const answers = { GET: readFileSync(getFile), POST: readFileSync(postFile) };
const ready = [];
const sendReady = () => {
  for (const [response, body] of ready.splice(0)) {
    response.writeHead(200, {
      'content-type': 'application/json; charset=UTF-8',
      'content-length': body.length,
    });
    response.end(body);
  }
};
const server = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    if (ready.length === 0) setImmediate(sendReady);
    ready.push([response, answers[request.method] ?? answers.GET]);
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening on http://127.0.0.1:${server.address().port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
