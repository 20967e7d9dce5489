// The loopback upstream of the HTTP grant benchmark: node:http answering every
// request with the same small JSON document (no framework, no parsing).
import { createServer } from 'node:http';

const BODY = Buffer.from(
  JSON.stringify({
    id: 42,
    name: 'widget',
    price_cents: 1999,
    tags: ['blue', 'small'],
    stock: { warehouse: 'north', count: 17 },
  }),
);

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': BODY.length });
    res.end(BODY);
  });
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}` })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
