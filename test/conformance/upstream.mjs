// A tiny upstream HTTP API for the conformance run (test/conformance/run.sh).
// Listens on 127.0.0.1 only, on UPSTREAM_PORT (default 0: any free port), and prints
// one line `upstream listening <port>` on stdout once it accepts connections.
import { createServer } from 'node:http';

const routes = {
  // tools-call-simple-text: the tool test_simple_text answers with text.
  'GET /simple-text': [200, { text: 'This is a simple text response for testing.' }],
  // tools-call-error: the tool test_error_handling fails upstream; the gateway
  // answers with an isError result carrying a message.
  'GET /error': [500, { error: 'This tool intentionally returns an error for testing' }],
};

// Routes with one variable segment, behind the resource templates.
const patterns = [
  // resources-templates-read: test://template/{id}/data reads this through a grant.
  [
    /^GET \/template\/([^/]+)\/data$/,
    (id) => [200, { id, templateTest: true, data: `Data for ID: ${id}` }],
  ],
  [/^GET \/items\/([^/]+)$/, (kind) => [200, { kind }]],
];

function answer(key) {
  if (routes[key]) return routes[key];
  for (const [re, make] of patterns) {
    const m = re.exec(key);
    if (m) return make(decodeURIComponent(m[1]));
  }
  return [404, { error: 'not found' }];
}

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const path = (req.url ?? '/').split('?')[0];
    const [status, body] = answer(`${req.method} ${path}`);
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  });
});

server.listen(Number(process.env.UPSTREAM_PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(`upstream listening ${server.address().port}\n`);
});

const stop = () => server.close(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
