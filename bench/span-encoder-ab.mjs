// Two small parts of a traced call, build against build, in one process, in turns
// (issue 40): encoding one span as it ends (otlp-span-encoder.ts `encodeSpanInto`, the
// http/protobuf path) over the two spans of a traced HTTP grant call — a server span with
// the MCP, HTTP, identity and coverage attributes (the request id changing every call),
// its client child — and the trace a call under a recording span continues
// (projection/trace-context.ts: `traceOf`, or on a build without it
// `continueTrace(span.traceparent())`, which it replaces).
//
//   node bench/span-encoder-ab.mjs BEFORE/dist AFTER/dist [more dists…]
//
// CPU time (process.cpuUsage) of 500 rounds of 256 calls' spans, eight times each build in
// turns; the median, and each time.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const dists = process.argv.slice(2);
if (dists.length === 0) throw new Error('usage: node bench/span-encoder-ab.mjs DIST [DIST…]');

const subjects = [];
for (const d of dists) {
  const at = (f) => import(pathToFileURL(resolve(d, f)).href);
  const conv = await at('telemetry/conventions.js');
  const { SpanRecorder } = await at('telemetry/span-recorder.js');
  const enc = await at('telemetry/otlp-span-encoder.js');
  const { resourceOf } = await at('telemetry/otel-resource.js');
  const traceContext = await at('projection/trace-context.js');
  const resource = resourceOf({ serviceName: 'bench', resourceAttributes: {} }, '0.0.0');
  const spans = [];
  const recorder = new SpanRecorder({
    sampler: { root: 'always_on', parentBased: true, ratio: 1 },
    resource,
    scope: 'mcp-beaver',
    ended: { onEnd: (s) => spans.push(s) },
  });
  const client = {
    ...conv.httpClientAttributes('GET', 'http://127.0.0.1:9', '/items/{id}'),
    'mcp_beaver.grant': 'get_item',
    'mcp_beaver.credential': 'none',
  };
  let server;
  for (let i = 0; i < 256; i++) {
    server = recorder.serverSpan(
      {},
      'tools/call get_item',
      conv.mcpServerAttributes({
        method: 'tools/call',
        target: 'get_item',
        protocolVersion: '2026-07-28',
        requestId: i,
      }),
    );
    server.setAttributes(
      conv.httpServerAttributes({ protocol: 'http', ip: '127.0.0.1', port: 8080 }),
    );
    const c = server.child('GET /items/{id}', 'client', client);
    c.setAttribute('http.response.status_code', 200);
    c.end();
    server.setAttributes(conv.identityAttributes('none', undefined));
    server.setAttributes(
      conv.coverageAttributes('get_item', { truncated: false, bytes: 120, items_omitted: 0 }),
    );
    server.end();
  }
  const batch = new enc.EncodedSpans(64 * 1024);
  const live = recorder.serverSpan({}, 'tools/call get_item');
  const trace = traceContext.traceOf
    ? () => traceContext.traceOf(live, undefined)
    : () => traceContext.continueTrace(live.traceparent());
  subjects.push({
    d,
    encode() {
      batch.clear();
      for (let i = 0; i < spans.length; i++) enc.encodeSpanInto(spans[i], batch);
      return spans.length;
    },
    trace() {
      let n = 0;
      for (let i = 0; i < 512; i++) n += trace().traceparent.length;
      return n > 0 ? 512 : 0;
    },
  });
}

/** ns of CPU a call of `part`, over `rounds` rounds. */
function time(s, part, rounds) {
  const t0 = process.cpuUsage();
  let calls = 0;
  for (let r = 0; r < rounds; r++) calls += s[part]();
  const u = process.cpuUsage(t0);
  return ((u.user + u.system) * 1000) / calls;
}
const med = (a) => a.slice().sort((x, y) => x - y)[a.length >> 1];
for (const part of ['encode', 'trace']) {
  for (const s of subjects) time(s, part, 1000);
  const out = subjects.map(() => []);
  for (let r = 0; r < 8; r++)
    for (const i of r % 2 ? [...subjects.keys()].reverse() : subjects.keys())
      out[i].push(time(subjects[i], part, 500));
  const what =
    part === 'encode' ? 'a span encoded as it ends' : 'the trace a traced call continues';
  subjects.forEach((s, i) =>
    console.log(
      `${what}, ${s.d}: ${med(out[i]).toFixed(0)} ns  [${out[i].map((x) => x.toFixed(0)).join(' ')}]`,
    ),
  );
}
