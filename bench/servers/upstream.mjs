// The loopback upstream of the HTTP grant benchmarks: node:http answering every
// request with the same JSON document (no framework, no parsing). BODY_BYTES pads the
// document with a description to about that size (the peer benchmark uses 1 KB).
import { createServer } from 'node:http';

const item = {
  id: 42,
  name: 'widget',
  price_cents: 1999,
  tags: ['blue', 'small'],
  stock: { warehouse: 'north', count: 17 },
};
const pad = Number(process.env.BODY_BYTES ?? 0) - JSON.stringify(item).length - 18;
if (pad > 0) item.description = 'A small blue widget. '.repeat(Math.ceil(pad / 21)).slice(0, pad);
const BODY = Buffer.from(JSON.stringify(item));

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
