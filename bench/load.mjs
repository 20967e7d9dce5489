// One measured window of load, in its own process: autocannon against one URL with
// the request given as JSON in argv[2]; prints one JSON line with the figures.
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
