// What one OTLP/HTTP span export costs the gateway's process (issue 40): a batch of
// 195,000 bytes (512 spans of a traced HTTP grant call) sent by our exporter
// (otlp-span-exporter.ts: the request framed, then the SDK's OTLP/HTTP transport, which
// pipes the body as a stream, chunked) against the same number of bytes sent by a bare
// keep-alive `http.request` with a Content-Length, both to bench/servers/otlp-sink.mjs in
// a process of its own; CPU (process.cpuUsage) a POST, in turns, six rounds of 100.
//
//   node bench/span-export-post.mjs [DIST]      (DIST: a build's dist/, default ./dist)
import { spawn } from 'node:child_process';
import http from 'node:http';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const dist = resolve(process.argv[2] ?? 'dist');
const at = (file) => import(pathToFileURL(resolve(dist, 'telemetry', file)).href);
const { protobufSpanExporter } = await at('otlp-span-exporter.js');
const { EncodedSpans } = await at('otlp-span-encoder.js');

const sink = spawn(
  process.execPath,
  [fileURLToPath(new URL('servers/otlp-sink.mjs', import.meta.url))],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);
const base = await new Promise((res) => {
  let buf = '';
  sink.stdout.on('data', (d) => {
    buf += d;
    const m = /"url":"([^"]+)"/.exec(buf);
    if (m) res(m[1]);
  });
});
const url = new URL(`${base}/v1/traces`);

const BYTES = 195_000;
const scope = { resourceAttributes: { 'service.name': 'bench' }, scopeName: 'mcp-beaver' };
const exporter = protobufSpanExporter(
  { url: url.href, headers: {}, timeoutMs: 10_000, protocol: 'http/protobuf' },
  scope,
);
// The sink decodes nothing: the batch's bytes need not be spans to be sent.
const batch = new EncodedSpans(256 * 1024);
batch.reserve(BYTES);
batch.length = BYTES;
batch.count = 512;
const body = Buffer.alloc(BYTES, 7);
const agent = new http.Agent({ keepAlive: true });

const viaExporter = () => new Promise((res) => exporter.export(batch, res));
const bare = () =>
  new Promise((res, rej) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/x-protobuf', 'content-length': body.length },
      },
      (r) => {
        r.on('data', () => {});
        r.on('end', res);
      },
    );
    req.on('error', rej);
    req.end(body);
  });

async function time(send, n) {
  const t0 = process.cpuUsage();
  for (let i = 0; i < n; i++) await send();
  const u = process.cpuUsage(t0);
  return (u.user + u.system) / n;
}
await time(viaExporter, 50);
await time(bare, 50);
const a = [];
const b = [];
for (let r = 0; r < 6; r++) {
  a.push(await time(viaExporter, 100));
  b.push(await time(bare, 100));
}
const med = (v) => v.slice().sort((x, y) => x - y)[v.length >> 1];
const list = (v) => v.map((x) => x.toFixed(0)).join(' ');
console.log(`our exporter (the SDK's transport): ${med(a).toFixed(0)} µs a POST  [${list(a)}]`);
console.log(`bare keep-alive http.request:       ${med(b).toFixed(0)} µs a POST  [${list(b)}]`);
sink.kill();
process.exit(0);
