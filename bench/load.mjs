// One measured window of load, in its own process: autocannon against one URL with
// the request given as JSON in argv[2] (`rate`, when set, paces it to that many requests a
// second over all connections); prints one JSON line with the figures.
import autocannon from 'autocannon';

const cfg = JSON.parse(process.argv[2]);
const result = await autocannon({
  url: cfg.url,
  method: cfg.method ?? 'POST',
  headers: cfg.headers ?? {},
  ...(cfg.body !== undefined && { body: cfg.body }),
  connections: cfg.connections,
  pipelining: 1,
  duration: cfg.duration,
  timeout: 10,
  // Paced: the same calls a second for subjects whose CPU per call is compared (a Node
  // server's CPU per request rises as its rate falls: fewer events a wake-up).
  ...(cfg.rate !== undefined && { overallRate: cfg.rate }),
});
process.stdout.write(
  `${JSON.stringify({
    rps: result.requests.average,
    total: result.requests.total,
    seconds: result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    bytes: result.throughput.total,
  })}\n`,
);
