// The span layer of two builds, in one process, in turns (A B B A …): CPU per request
// for what a traced HTTP grant call makes (a server span with the MCP and HTTP server
// attributes, a client child and its traceparent, the status, the coverage attributes,
// both ended), batched and exported over OTLP/protobuf to a loopback sink that answers
// 200. In-process and interleaved, it holds on a machine too busy for section 11's
// windows to tell a few µs apart (issue 40).
//
//   node bench/span-layer.mjs BEFORE/dist AFTER/dist
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const [beforeDist, afterDist] = process.argv.slice(2);
if (!beforeDist || !afterDist)
  throw new Error('usage: node bench/span-layer.mjs BEFORE/dist AFTER/dist');
// The collector in a process of its own, as it is for the gateway: what it spends
// receiving is not the span layer's (in this process it was, for both builds alike).
const sink = spawn(
  process.execPath,
  [fileURLToPath(new URL('servers/otlp-sink.mjs', import.meta.url))],
  {
    stdio: ['ignore', 'pipe', 'inherit'],
  },
);
const base = await new Promise((res) => {
  let buf = '';
  sink.stdout.on('data', (d) => {
    buf += d;
    const m = /"url":"([^"]+)"/.exec(buf);
    if (m) res(m[1]);
  });
});
const url = `${base}/v1/traces`;
const config = {
  serviceName: 'bench',
  resourceAttributes: {},
  traces: { url, headers: {}, protocol: 'http/protobuf', timeoutMs: 10000 },
  sampler: { root: 'always_on', parentBased: true, ratio: 1 },
  batch: {
    maxQueueSize: 2048,
    maxExportBatchSize: 512,
    scheduledDelayMs: 5000,
    exportTimeoutMs: 30000,
  },
  metricIntervalMs: 60000,
  metricTimeoutMs: 30000,
};
const builds = {};
for (const [name, dir] of [
  ['before', beforeDist],
  ['after', afterDist],
]) {
  const at = (file) => pathToFileURL(resolve(dir, 'telemetry', file)).href;
  const { createOtelTelemetry } = await import(at('otel-telemetry.js'));
  const conv = await import(at('conventions.js'));
  builds[name] = { t: await createOtelTelemetry(config), conv };
}
function one({ t, conv }, i) {
  const span = t.serverSpan(
    'tools/call get_item',
    {},
    {
      ...conv.mcpServerAttributes({
        method: 'tools/call',
        target: 'get_item',
        protocolVersion: '2026-07-28',
        requestId: i,
      }),
      ...conv.httpServerAttributes({ protocol: 'http', ip: '127.0.0.1', port: 8080 }),
    },
  );
  const tp = span.traceparent();
  const c = span.child(
    'GET /items/{id}',
    'client',
    conv.httpClientAttributes('GET', 'http://127.0.0.1:9', '/items/{id}'),
  );
  c.traceparent();
  c.tracestate();
  c.setAttribute('http.response.status_code', 200);
  c.end();
  span.setAttributes(
    conv.coverageAttributes('get_item', { truncated: false, bytes: 120, items_omitted: 0 }),
  );
  span.end();
  return tp;
}
const tick = () => new Promise((r) => setImmediate(r));
async function block(b, n) {
  const t0 = process.cpuUsage();
  for (let i = 0; i < n; i++) {
    one(b, i);
    if (i % 32 === 0) await tick();
  }
  const u = process.cpuUsage(t0);
  return (u.user + u.system) / n;
}
for (const b of Object.values(builds)) await block(b, 20000);
const out = { before: [], after: [] };
for (let r = 0; r < 6; r++)
  for (const k of r % 2 ? ['after', 'before'] : ['before', 'after'])
    out[k].push(await block(builds[k], 20000));
const med = (a) => a.slice().sort((x, y) => x - y)[a.length >> 1];
for (const k of ['before', 'after'])
  console.log(k, med(out[k]).toFixed(2), 'µs/request', out[k].map((x) => x.toFixed(1)).join(' '));
console.log('after ÷ before', (med(out.after) / med(out.before)).toFixed(3));
await Promise.all(Object.values(builds).map((b) => b.t.shutdown()));
// Both builds write the same bytes for the same spans: what arrived says whether the
// batch queue (2048) dropped spans when the exports fell behind.
const received = await (await fetch(`${base}/stats`)).json();
console.log(
  'collector received',
  received.traces.requests,
  'trace exports,',
  (received.traces.bytes / 1e6).toFixed(1),
  'MB',
);
sink.kill();
