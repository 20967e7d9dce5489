// Where a traced request's span layer spends its CPU (issue 40), one build, in one
// process: the spans bench/span-layer.mjs makes for one HTTP grant call (a server span
// with the MCP and HTTP server attributes, a client child and its traceparent, the
// status and coverage attributes, both ended), taken further one part at a time, the
// parts in turns so the machine's load falls on each alike:
//
//   attributes  the attribute objects the gateway builds for the two spans (conventions.ts)
//   record      + the spans recorded (span-recorder.ts), ended into nothing
//   encode      + each span encoded as it ends into its batch's bytes (span-batcher.ts),
//                 the exporter dropping each batch
//   request     + each batch framed as an OTLP request (the resource, the scope, the spans)
//   export      + each batch POSTed to a loopback collector that answers 200 (the gateway's path)
//
//   node bench/span-layer-parts.mjs [DIST]       (DIST: a build's dist/, default ./dist)
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const dist = resolve(process.argv[2] ?? 'dist');
const at = (file) => import(pathToFileURL(resolve(dist, 'telemetry', file)).href);
const conv = await at('conventions.js');
const { SpanRecorder } = await at('span-recorder.js');
const { encodeEncodedRequest } = await at('otlp-span-encoder.js');
const { protobufSpanExporter } = await at('otlp-span-exporter.js');
const { SpanBatcher } = await at('span-batcher.js');
const { resourceOf } = await at('otel-resource.js');

// The collector in a process of its own, as it is for the gateway: what it spends
// receiving is not the gateway's.
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

const resource = resourceOf({ serviceName: 'bench', resourceAttributes: {} }, '0.0.0');
const scope = {
  resourceAttributes: resource.attributes,
  resourceSchemaUrl: resource.schemaUrl,
  scopeName: 'mcp-beaver',
};
const SAMPLER = { root: 'always_on', parentBased: true, ratio: 1 };
const BATCH = {
  maxQueueSize: 2048,
  maxExportBatchSize: 512,
  scheduledDelayMs: 5000,
  exportTimeoutMs: 30000,
};
const done = (cb) => cb({ code: 0 });
const exporters = {
  encode: { export: (_spans, cb) => done(cb), shutdown: async () => {} },
  request: {
    export: (spans, cb) => {
      encodeEncodedRequest(spans, scope);
      done(cb);
    },
    shutdown: async () => {},
  },
  export: protobufSpanExporter(
    { url, headers: {}, timeoutMs: 10_000, protocol: 'http/protobuf' },
    scope,
  ),
};
/** The batcher of each part that has one: flushed every 512 spans (below). */
const processors = new Map();
const recorderOf = (ended) =>
  new SpanRecorder({ sampler: SAMPLER, resource, scope: 'mcp-beaver', ended });
const parts = {
  attributes: null,
  record: recorderOf({ onEnd() {} }),
  ...Object.fromEntries(
    Object.entries(exporters).map(([k, exporter]) => {
      const processor = new SpanBatcher(exporter, BATCH);
      const recorder = recorderOf(processor);
      processors.set(recorder, processor);
      return [k, recorder];
    }),
  ),
};

const CLIENT_ATTRIBUTES = conv.httpClientAttributes('GET', 'http://127.0.0.1:9', '/items/{id}');
function one(recorder, i) {
  const mcp = conv.mcpServerAttributes({
    method: 'tools/call',
    target: 'get_item',
    protocolVersion: '2026-07-28',
    requestId: i,
  });
  const http = conv.httpServerAttributes({ protocol: 'http', ip: '127.0.0.1', port: 8080 });
  const coverage = conv.coverageAttributes('get_item', {
    truncated: false,
    bytes: 120,
    items_omitted: 0,
  });
  if (recorder === null) return mcp && http && coverage;
  const span = recorder.serverSpan({}, 'tools/call get_item', mcp);
  span.setAttributes(http);
  const tp = span.traceparent();
  // The gateway names and attributes a grant's client span once (client-span.ts).
  const c = span.child('GET /items/{id}', 'client', CLIENT_ATTRIBUTES);
  c.traceparent();
  c.tracestate();
  c.setAttribute('http.response.status_code', 200);
  c.end();
  span.setAttributes(coverage);
  span.end();
  return tp;
}

const tick = () => new Promise((r) => setImmediate(r));
async function block(recorder, n) {
  const t0 = process.cpuUsage();
  for (let i = 0; i < n; i++) {
    one(recorder, i);
    // Every batch (256 requests, 512 spans) exported before the next is made, as a
    // gateway's exports keep up with its requests: faster than that, the queue (2048)
    // would drop spans, and what is dropped costs nothing to encode or send.
    if (i % 256 === 255) await processors.get(recorder)?.forceFlush();
    else if (i % 32 === 0) await tick();
  }
  const u = process.cpuUsage(t0);
  return (u.user + u.system) / n;
}
const N = 50_000;
const names = Object.keys(parts);
for (const k of names) await block(parts[k], N);
const out = Object.fromEntries(names.map((k) => [k, []]));
for (let r = 0; r < 6; r++)
  for (const k of r % 2 ? [...names].reverse() : names) out[k].push(await block(parts[k], N));
const med = (a) => a.slice().sort((x, y) => x - y)[a.length >> 1];
let prev = 0;
for (const k of names) {
  const m = med(out[k]);
  console.log(
    `${k.padEnd(10)} ${m.toFixed(2).padStart(6)} µs/request (+${(m - prev).toFixed(2)})  ${out[k].map((x) => x.toFixed(1)).join(' ')}`,
  );
  prev = m;
}
sink.kill();
process.exit(0);
