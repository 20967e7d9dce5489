// Our OTLP/protobuf span encoder against the SDK's serializer (issue 40), in one process,
// in turns: the same 512 span records (256 traced HTTP grant calls: a server span with
// the MCP and HTTP server attributes and coverage, a client child), encoded by each.
// The two write the same bytes (test/telemetry/otlp-span-encoder.test.ts).
//
//   node bench/span-encoder.mjs [DIST]       (DIST: a build's dist/, default ./dist)
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';

const dist = resolve(process.argv[2] ?? 'dist');
const at = (file) => import(pathToFileURL(resolve(dist, 'telemetry', file)).href);
const conv = await at('conventions.js');
const { SpanRecorder } = await at('span-recorder.js');
const { encodeTraceRequest } = await at('otlp-span-encoder.js');
const { resourceOf } = await at('otel-resource.js');

const resource = resourceOf({ serviceName: 'bench', resourceAttributes: {} }, '0.0.0');
const scope = { resourceAttributes: resource.attributes, scopeName: 'mcp-beaver' };
const spans = [];
const recorder = new SpanRecorder({
  sampler: { root: 'always_on', parentBased: true, ratio: 1 },
  resource,
  scope: 'mcp-beaver',
  ended: { onEnd: (span) => spans.push(span) },
});
const CLIENT = conv.httpClientAttributes('GET', 'http://127.0.0.1:9', '/items/{id}');
for (let i = 0; i < 256; i++) {
  const server = recorder.serverSpan(
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
  const client = server.child('GET /items/{id}', 'client', CLIENT);
  client.setAttribute('http.response.status_code', 200);
  client.end();
  server.setAttributes(
    conv.coverageAttributes('get_item', { truncated: false, bytes: 120, items_omitted: 0 }),
  );
  server.end();
}

const encoders = {
  sdk: () => ProtobufTraceSerializer.serializeRequest(spans),
  ours: () => encodeTraceRequest(spans, scope),
};
function cpuPerBatch(encode, n) {
  const t0 = process.cpuUsage();
  for (let i = 0; i < n; i++) encode();
  const u = process.cpuUsage(t0);
  return (u.user + u.system) / n;
}
for (const encode of Object.values(encoders)) cpuPerBatch(encode, 500);
const runs = { sdk: [], ours: [] };
for (let r = 0; r < 8; r++)
  for (const k of r % 2 ? ['ours', 'sdk'] : ['sdk', 'ours'])
    runs[k].push(cpuPerBatch(encoders[k], 300));
const med = (a) => a.slice().sort((x, y) => x - y)[a.length >> 1];
const bytes = encoders.ours().length;
for (const k of ['sdk', 'ours'])
  console.log(
    `${k.padEnd(5)} ${med(runs[k]).toFixed(0)} µs per batch of ${spans.length} spans (${bytes} bytes), ${(med(runs[k]) / 256).toFixed(2)} µs per request`,
  );
const ratios = runs.ours.map((x, i) => x / runs.sdk[i]);
console.log(
  `ours ÷ sdk ${med(ratios).toFixed(2)} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`,
);
