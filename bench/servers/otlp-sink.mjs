// The OTLP collector of the telemetry benchmark (issue 30): node:http accepting POST
// /v1/traces and /v1/metrics with 200 and an empty body, decoding nothing (what a
// collector does with the data is its own cost, not the gateway's). It counts requests
// and bytes per signal; GET /stats answers them as JSON.
import { createServer } from 'node:http';

const counts = {
  '/v1/traces': { requests: 0, bytes: 0 },
  '/v1/metrics': { requests: 0, bytes: 0 },
};

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/stats') {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ traces: counts['/v1/traces'], metrics: counts['/v1/metrics'] }));
    return;
  }
  const count = req.method === 'POST' ? counts[req.url] : undefined;
  req.on('data', (chunk) => {
    if (count) count.bytes += chunk.length;
  });
  req.on('end', () => {
    if (!count) {
      res.writeHead(404).end();
      return;
    }
    count.requests++;
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': 2 });
    res.end('{}');
  });
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}` })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
