// The token endpoint of the upstream-credential benchmark (issue 43): answers every POST
// with one Bearer token living a day, so the gateway obtains it once and every measured
// call runs on the cached token. It counts the requests it answered (GET /count), so the
// section can check that the measured calls asked it nothing.
import { createServer } from 'node:http';

const TOKEN = `bench-obtained-token-${'x'.repeat(40)}`;
const ANSWER = JSON.stringify({ access_token: TOKEN, token_type: 'Bearer', expires_in: 86400 });
let answered = 0;

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ answered }));
    }
    answered++;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(ANSWER);
  });
});
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}` })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
