/**
 * The http/protobuf span pipeline (issue 40): spans encoded as they end into their batch's
 * bytes (span-batcher.ts, otlp-span-encoder.ts) and POSTed by the SDK's HTTP export
 * (otlp-span-exporter.ts) to a real collector on 127.0.0.1. What reaches the collector is
 * byte for byte what the SDK's serializer writes for the same span records, and the batch
 * rules are the SDK BatchSpanProcessor's: batch size, queue bound with dropped spans
 * counted, the scheduled delay, one export at a time given up on after its timeout, flush
 * and shutdown.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { afterEach, describe, expect, it } from 'vitest';
import type { EncodingScope } from '../../src/telemetry/otlp-span-encoder.js';
import { protobufSpanExporter } from '../../src/telemetry/otlp-span-exporter.js';
import { SpanBatcher, type EncodedSpansExporter } from '../../src/telemetry/span-batcher.js';
import { RecordedSpan, SpanRecorder } from '../../src/telemetry/span-recorder.js';
import type { BatchConfig } from '../../src/telemetry/telemetry-config.js';

/** A collector that keeps each request's body; `hold` keeps answers back until `release`. */
interface Collector {
  readonly url: string;
  readonly bodies: Buffer[];
  hold(): void;
  release(): void;
  waitForBodies(n: number): Promise<Buffer[]>;
  close(): Promise<void>;
}

async function startCollector(): Promise<Collector> {
  const bodies: Buffer[] = [];
  let holding = false;
  const held: ServerResponse[] = [];
  const waiters: (() => void)[] = [];
  const answer = (res: ServerResponse): void => {
    res.writeHead(200, { 'content-type': 'application/x-protobuf', 'content-length': 0 });
    res.end();
  };
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks));
      for (const w of waiters.splice(0)) w();
      if (holding) held.push(res);
      else answer(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1/traces`,
    bodies,
    hold: () => (holding = true),
    release: () => {
      holding = false;
      for (const res of held.splice(0)) answer(res);
    },
    async waitForBodies(n) {
      while (bodies.length < n) await new Promise<void>((resolve) => waiters.push(resolve));
      return bodies;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of held.splice(0)) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const resource = resourceFromAttributes({
  'service.name': 'beaver-test',
  'telemetry.sdk.language': 'nodejs',
});
const scope: EncodingScope = {
  resourceAttributes: resource.attributes,
  resourceSchemaUrl: resource.schemaUrl,
  scopeName: 'mcp-beaver',
};
const BATCH: BatchConfig = {
  maxQueueSize: 2048,
  maxExportBatchSize: 512,
  scheduledDelayMs: 5_000,
  exportTimeoutMs: 30_000,
};

let collector: Collector | undefined;
let batcher: SpanBatcher | undefined;
afterEach(async () => {
  collector?.release();
  await batcher?.shutdown().catch(() => undefined);
  await collector?.close();
  collector = undefined;
  batcher = undefined;
});

/** The pipeline the gateway runs for http/protobuf, to a fresh collector; every ended span kept too. */
async function pipeline(batch: Partial<BatchConfig> = {}): Promise<{
  recorder: SpanRecorder;
  ended: RecordedSpan[];
  batcher: SpanBatcher;
  collector: Collector;
  /** Resolves once the exporter has answered `n` exports. */
  exported: (n: number) => Promise<void>;
}> {
  collector = await startCollector();
  const real = protobufSpanExporter(
    { url: collector.url, headers: {}, timeoutMs: 10_000, protocol: 'http/protobuf' },
    scope,
  );
  // The real exporter, its answers counted (as otel-telemetry.ts watches them to log).
  let answered = 0;
  const waiters: (() => void)[] = [];
  const exporter: EncodedSpansExporter = {
    export: (spans, done) =>
      real.export(spans, (result) => {
        done(result);
        answered++;
        for (const w of waiters.splice(0)) w();
      }),
    shutdown: () => real.shutdown(),
  };
  const exported = async (n: number): Promise<void> => {
    while (answered < n) await new Promise<void>((resolve) => waiters.push(resolve));
  };
  batcher = new SpanBatcher(exporter, { ...BATCH, ...batch });
  const b = batcher;
  const ended: RecordedSpan[] = [];
  const recorder = new SpanRecorder({
    sampler: { root: 'always_on', parentBased: true, ratio: 1 },
    resource,
    scope: 'mcp-beaver',
    ended: {
      onEnd(span) {
        ended.push(span);
        b.onEnd(span);
      },
    },
  });
  return { recorder, ended, batcher: b, collector, exported };
}

/** A traced call's spans, of every attribute type, with a caller's parent and tracestate. */
function call(recorder: SpanRecorder, i: number): void {
  const server = recorder.serverSpan(
    {
      traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
      tracestate: 'v=a',
    },
    'tools/call get_item',
    { 'mcp.method.name': 'tools/call', 'jsonrpc.request.id': String(i), 'server.port': 8080 },
  );
  const client = server.child('GET /items/{id}', 'client', { 'http.request.method': 'GET' });
  client.setAttribute('http.response.status_code', i % 2 ? 200 : 502);
  if (i % 2 === 0) client.fail('UPSTREAM_STATUS');
  client.end();
  server.setAttributes({ ratio: 0.5, truncated: false, 'non.ascii': 'grüße', big: 2 ** 40 });
  server.end();
}

/** One span, ended. */
function one(recorder: SpanRecorder, name = 'one'): void {
  recorder.serverSpan({}, name).end();
}

const sdkBytes = (spans: readonly RecordedSpan[]): Buffer =>
  Buffer.from(ProtobufTraceSerializer.serializeRequest(spans as unknown as ReadableSpan[])!);

describe('the http/protobuf span batcher', () => {
  it('sends each batch as the bytes the SDK’s serializer writes for the same spans', async () => {
    const p = await pipeline({ maxExportBatchSize: 64, maxQueueSize: 256 });
    for (let i = 0; i < 80; i++) call(p.recorder, i);
    await p.batcher.forceFlush();
    const bodies = await p.collector.waitForBodies(3);
    // 160 spans: two full batches of 64 as they filled, then the 32 left on the flush.
    expect(bodies.map((b) => b.length > 0)).toEqual([true, true, true]);
    expect(bodies[0]!.equals(sdkBytes(p.ended.slice(0, 64)))).toBe(true);
    expect(bodies[1]!.equals(sdkBytes(p.ended.slice(64, 128)))).toBe(true);
    expect(bodies[2]!.equals(sdkBytes(p.ended.slice(128)))).toBe(true);
  });

  it('reuses a batch’s buffer for later spans without changing what was sent', async () => {
    const p = await pipeline({ maxExportBatchSize: 8, maxQueueSize: 8 });
    for (let round = 1; round <= 4; round++) {
      // Four calls, eight spans: one batch, sent as it fills; the next round's spans go
      // into the buffer of a batch already sent.
      for (let i = 0; i < 4; i++) call(p.recorder, round * 4 + i);
      await p.exported(round);
    }
    expect(p.batcher.dropped).toBe(0);
    for (let b = 0; b < 4; b++)
      expect(p.collector.bodies[b]!.equals(sdkBytes(p.ended.slice(b * 8, b * 8 + 8)))).toBe(true);
  });

  it('exports a batch that never fills once the scheduled delay has passed', async () => {
    const p = await pipeline({ scheduledDelayMs: 20 });
    one(p.recorder, 'alone');
    const [body] = await p.collector.waitForBodies(1);
    expect(body!.equals(sdkBytes(p.ended))).toBe(true);
  });

  it('drops and counts the spans beyond the queue while an export is under way', async () => {
    const p = await pipeline({ maxExportBatchSize: 2, maxQueueSize: 4 });
    p.collector.hold();
    one(p.recorder, 'a');
    one(p.recorder, 'b');
    // The first batch is out and unanswered: four more wait, the fifth is dropped.
    await p.collector.waitForBodies(1);
    for (const name of ['c', 'd', 'e', 'f', 'g']) one(p.recorder, name);
    expect(p.batcher.dropped).toBe(1);
    p.collector.release();
    const bodies = await p.collector.waitForBodies(3);
    expect(bodies[1]!.equals(sdkBytes(p.ended.slice(2, 4)))).toBe(true);
    expect(bodies[2]!.equals(sdkBytes(p.ended.slice(4, 6)))).toBe(true);
    expect(p.ended.map((s) => s.name)).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g']);
  });

  it('gives up waiting for an export after its timeout, and the next batch goes out', async () => {
    const p = await pipeline({ maxExportBatchSize: 1, maxQueueSize: 4, exportTimeoutMs: 50 });
    p.collector.hold();
    one(p.recorder, 'first');
    await p.collector.waitForBodies(1);
    one(p.recorder, 'second');
    // The first export is never answered: the second is sent all the same.
    const bodies = await p.collector.waitForBodies(2);
    expect(bodies[1]!.equals(sdkBytes(p.ended.slice(1)))).toBe(true);
  });

  it('flushes what waits on shutdown, and takes no span that ends after it', async () => {
    const p = await pipeline();
    call(p.recorder, 1);
    await p.batcher.shutdown();
    expect(p.collector.bodies).toHaveLength(1);
    expect(p.collector.bodies[0]!.equals(sdkBytes(p.ended))).toBe(true);
    one(p.recorder, 'late');
    await p.batcher.forceFlush();
    expect(p.collector.bodies).toHaveLength(1);
  });
});
