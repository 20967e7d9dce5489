// What one OTLP/HTTP span export costs the gateway's process (issue 40): a batch of
// 195,000 bytes (512 spans of a traced HTTP grant call) sent by
//  - the SDK's OTLP/HTTP transport (`sdkProtobufSpanExporter`, what main's exporter was
//    for every export: the request framed, then piped as a stream, chunked),
//  - our POST (otlp-http-send.ts, a Content-Length) of the request copied into one
//    Buffer as main's exporter framed it (`encodeEncodedRequest`): the transport alone,
//  - our exporter (`protobufSpanExporter`: the same POST writing the framing and the
//    batch's own bytes, no copy),
//  - a bare keep-alive `http.request` with a Content-Length writing a ready Buffer (the
//    floor: no framing, no retry, no result),
// all to bench/servers/otlp-sink.mjs in a process of its own; CPU (process.cpuUsage) a
// POST, in turns, ROUNDS rounds of 200 each.
//
//   node bench/span-export-post.mjs [DIST] [ROUNDS]   (DIST: a build's dist/, default ./dist)
//
// A build without sdkProtobufSpanExporter (main before this branch) has only the SDK's
// transport: its protobufSpanExporter is measured as that, and "ours" is left out.
import { spawn } from 'node:child_process';
import http from 'node:http';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';

const dist = resolve(process.argv[2] ?? 'dist');
const at = (file) => import(pathToFileURL(resolve(dist, 'telemetry', file)).href);
const { protobufSpanExporter, sdkProtobufSpanExporter } = await at('otlp-span-exporter.js');
const ROUNDS = Number(process.argv[3] ?? 8);
const { EncodedSpans, encodeEncodedRequest } = await at('otlp-span-encoder.js');
const { OtlpHttpSender } = await at('otlp-http-send.js').catch(() => ({}));

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
const signal = { url: url.href, headers: {}, timeoutMs: 10_000, protocol: 'http/protobuf' };
const sdkExporter = (sdkProtobufSpanExporter ?? protobufSpanExporter)(signal, scope);
const ourExporter = sdkProtobufSpanExporter ? protobufSpanExporter(signal, scope) : undefined;
const sender = OtlpHttpSender
  ? new OtlpHttpSender({ ...signal, contentType: 'application/x-protobuf' })
  : undefined;
// The sink decodes nothing: the batch's bytes need not be spans to be sent.
const batch = new EncodedSpans(256 * 1024);
batch.reserve(BYTES);
batch.length = BYTES;
batch.count = 512;
const body = Buffer.alloc(BYTES, 7);
const agent = new http.Agent({ keepAlive: true });

const via = (exporter) => () => new Promise((res) => exporter.export(batch, res));
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

// A full collection before each window, not timed, and one at its end, timed: what a
// contender allocated (a fresh 195 KB request a POST, for the copying ones) is collected
// in its own window, not in the next contender's.
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc');

async function time(send, n) {
  gc();
  const t0 = process.cpuUsage();
  for (let i = 0; i < n; i++) await send();
  gc();
  const u = process.cpuUsage(t0);
  return (u.user + u.system) / n;
}
const contenders = [
  ["the SDK's transport (main's exporter)", via(sdkExporter)],
  ...(sender
    ? [['our POST, the request copied', () => sender.send([encodeEncodedRequest(batch, scope)])]]
    : []),
  ...(ourExporter ? [['our exporter (otlp-http-send.ts)', via(ourExporter)]] : []),
  ['bare keep-alive http.request', bare],
];
for (const [, send] of contenders) await time(send, 50);
const results = contenders.map(() => []);
for (let r = 0; r < ROUNDS; r++)
  for (const [i, [, send]] of contenders.entries()) results[i].push(await time(send, 200));
const med = (v) => v.slice().sort((x, y) => x - y)[v.length >> 1];
const list = (v) => v.map((x) => x.toFixed(0)).join(' ');
const width = Math.max(...contenders.map(([name]) => name.length)) + 1;
for (const [i, [name]] of contenders.entries())
  console.log(
    `${`${name}:`.padEnd(width)} ${med(results[i]).toFixed(0)} µs a POST  [${list(results[i])}]`,
  );
// Ratios taken round by round (the same seconds of machine load), then their median.
for (let i = 1; i < contenders.length; i++) {
  const ratios = results[i].map((x, r) => x / results[0][r]);
  console.log(
    `${contenders[i][0]} ÷ the SDK's transport: ${med(ratios).toFixed(2)}  [${ratios.map((x) => x.toFixed(2)).join(' ')}]`,
  );
}
sink.kill();
process.exit(0);
