// The loopback upstream of the HTTP grant benchmarks: node:http answering every
// request with the same JSON document (no framework, no parsing). BODY_BYTES pads the
// document with a description to about that size (the peer benchmark uses 1 KB); a
// path `/bytes/<n>` answers the same document padded to about n bytes instead (the
// body-size section asks for 1 KB, 100 KB and 1 MB of one upstream).
import { createServer } from 'node:http';

const item = {
  id: 42,
  name: 'widget',
  price_cents: 1999,
  tags: ['blue', 'small'],
  stock: { warehouse: 'north', count: 17 },
};

/** The document padded to about `bytes` (unpadded when it is already that long). */
function documentOf(bytes) {
  const pad = bytes - JSON.stringify(item).length - 18;
  const doc =
    pad > 0
      ? { ...item, description: 'A small blue widget. '.repeat(Math.ceil(pad / 21)).slice(0, pad) }
      : item;
  return Buffer.from(JSON.stringify(doc));
}

const BODY = documentOf(Number(process.env.BODY_BYTES ?? 0));
/** Bodies by requested size, made on first request; at most a few sizes are asked for. */
const sized = new Map();
const MAX_SIZED = 8 * 1024 * 1024;

function bodyFor(url) {
  const m = /^\/bytes\/(\d+)$/.exec(url);
  if (!m) return BODY;
  const n = Math.min(Number(m[1]), MAX_SIZED);
  let body = sized.get(n);
  if (!body) sized.set(n, (body = documentOf(n)));
  return body;
}

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const body = bodyFor(req.url ?? '/');
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
    res.end(body);
  });
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}` })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
