/**
 * The http/protobuf span export's own POST (otlp-http-send.ts, issue 40) against a real
 * collector on 127.0.0.1: it sends what the SDK's transport sends (the same body and
 * headers, with a Content-Length), and keeps the SDK's rules: retries of 429/502/503/504
 * at Retry-After, no retry of other statuses, the timeout, the bound on exports under
 * way, https with the configured CA and client certificate, and gzip left to the SDK.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { OTLPExporterError } from '@opentelemetry/otlp-exporter-base';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { afterEach, describe, expect, it } from 'vitest';
import { retryAfterMs, USER_AGENT } from '../../src/telemetry/otlp-http-send.js';
import {
  EncodedSpans,
  encodeEncodedRequest,
  encodeSpanInto,
  type EncodingScope,
} from '../../src/telemetry/otlp-span-encoder.js';
import {
  protobufSpanExporter,
  sdkProtobufSpanExporter,
} from '../../src/telemetry/otlp-span-exporter.js';
import type { EncodedSpansExporter } from '../../src/telemetry/span-batcher.js';
import { SpanRecorder } from '../../src/telemetry/span-recorder.js';
import { telemetryConfigFrom, type SignalExport } from '../../src/telemetry/telemetry-config.js';
import { localhostCertificate } from '../helpers/localhost-certificate.js';

interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  /** Milliseconds since the collector started. */
  readonly at: number;
}

/** How the collector answers its `n`th request (0 first); 200 and nothing by default. */
type Answer = (n: number, res: ServerResponse) => void;

interface Collector {
  /** The traces URL, http:// or https://. */
  readonly url: string;
  readonly received: Received[];
  close(): Promise<void>;
}

const ok: Answer = (_n, res) => {
  res.writeHead(200, { 'content-type': 'application/x-protobuf', 'content-length': 0 });
  res.end();
};

let open: Collector[] = [];
const scratch: string[] = [];
afterEach(async () => {
  await Promise.all(open.map((c) => c.close()));
  open = [];
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function startCollector(
  answer: Answer = ok,
  tls?: { key: string; cert: string; requestCert?: boolean; ca?: string },
): Promise<Collector> {
  const received: Received[] = [];
  const started = Date.now();
  const held: ServerResponse[] = [];
  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({
        headers: req.headers,
        body: Buffer.concat(chunks),
        at: Date.now() - started,
      });
      held.push(res);
      answer(received.length - 1, res);
    });
  };
  const server: Server = tls
    ? createTlsServer({ ...tls, rejectUnauthorized: tls.requestCert ?? false }, handle)
    : createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const collector: Collector = {
    url: `${tls ? 'https' : 'http'}://127.0.0.1:${port}/v1/traces`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of held) if (!res.writableEnded) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  open.push(collector);
  return collector;
}

const resource = resourceFromAttributes({ 'service.name': 'beaver-test' });
const scope: EncodingScope = {
  resourceAttributes: resource.attributes,
  resourceSchemaUrl: resource.schemaUrl,
  scopeName: 'mcp-beaver',
};

/** A batch of a few ended spans, encoded as the batcher encodes them. */
function batchOf(count = 3): EncodedSpans {
  const batch = new EncodedSpans(1024);
  const recorder = new SpanRecorder({
    sampler: { root: 'always_on', parentBased: true, ratio: 1 },
    resource,
    scope: 'mcp-beaver',
    ended: { onEnd: (span) => encodeSpanInto(span, batch) },
  });
  for (let i = 0; i < count; i++)
    recorder.serverSpan({}, 'tools/call get_item', { 'jsonrpc.request.id': String(i) }).end();
  return batch;
}

const signalOf = (url: string, more: Partial<SignalExport> = {}): SignalExport => ({
  url,
  headers: {},
  protocol: 'http/protobuf',
  timeoutMs: 10_000,
  ...more,
});

const exportOnce = (exporter: EncodedSpansExporter, batch: EncodedSpans): Promise<ExportResult> =>
  new Promise((resolve) => exporter.export(batch, resolve));

/** A self-signed certificate for 127.0.0.1 and its files, or undefined without openssl. */
function certificateFiles():
  { key: string; cert: string; keyFile: string; certFile: string } | undefined {
  const pair = localhostCertificate();
  if (!pair) return undefined;
  const dir = mkdtempSync(join(tmpdir(), 'mcpb-otlp-tls-'));
  scratch.push(dir);
  const keyFile = join(dir, 'key.pem');
  const certFile = join(dir, 'cert.pem');
  writeFileSync(keyFile, pair.key);
  writeFileSync(certFile, pair.cert);
  return { ...pair, keyFile, certFile };
}

describe('the http/protobuf span export’s POST', () => {
  it('sends the body and headers the SDK’s transport sends, with a Content-Length instead of chunks', async () => {
    const collector = await startCollector();
    const signal = signalOf(collector.url, {
      headers: { authorization: 'Bearer abc', 'x-tenant': 't1' },
    });
    const batch = batchOf();
    const sdk = sdkProtobufSpanExporter(signal, scope);
    const ours = protobufSpanExporter(signal, scope);
    expect((await exportOnce(sdk, batch)).code).toBe(ExportResultCode.SUCCESS);
    expect((await exportOnce(ours, batch)).code).toBe(ExportResultCode.SUCCESS);
    await Promise.all([sdk.shutdown(), ours.shutdown()]);

    const [viaSdk, viaOurs] = collector.received;
    expect(viaOurs!.body.equals(viaSdk!.body)).toBe(true);
    expect(viaOurs!.body.equals(Buffer.from(encodeEncodedRequest(batch, scope)))).toBe(true);
    const { 'transfer-encoding': chunked, ...sdkHeaders } = viaSdk!.headers;
    const { 'content-length': length, ...ourHeaders } = viaOurs!.headers;
    expect(chunked).toBe('chunked');
    expect(length).toBe(String(viaOurs!.body.length));
    expect(ourHeaders).toEqual(sdkHeaders);
    expect(ourHeaders).toMatchObject({
      authorization: 'Bearer abc',
      'x-tenant': 't1',
      'content-type': 'application/x-protobuf',
      'user-agent': USER_AGENT,
    });
  });

  it('retries a 503 when its Retry-After says, and the spans are accepted once', async () => {
    const collector = await startCollector((n, res) => {
      if (n > 0) return ok(n, res);
      res.writeHead(503, { 'retry-after': '2', 'content-length': 0 });
      res.end();
    });
    const result = await exportOnce(
      protobufSpanExporter(signalOf(collector.url), scope),
      batchOf(),
    );
    expect(result.code).toBe(ExportResultCode.SUCCESS);
    const [refused, accepted] = collector.received;
    expect(collector.received).toHaveLength(2);
    expect(accepted!.body.equals(refused!.body)).toBe(true);
    // Two seconds, not the first backoff (1 s ± 20 %).
    expect(accepted!.at - refused!.at).toBeGreaterThanOrEqual(1_900);
  });

  it('fails a 400 at once with the collector’s answer, and does not retry it', async () => {
    const collector = await startCollector((_n, res) => {
      res.writeHead(400, { 'content-type': 'text/plain' });
      res.end('no such thing');
    });
    const result = await exportOnce(
      protobufSpanExporter(signalOf(collector.url), scope),
      batchOf(),
    );
    expect(result.code).toBe(ExportResultCode.FAILED);
    expect(result.error).toBeInstanceOf(OTLPExporterError);
    expect(result.error).toMatchObject({ code: 400, data: 'no such thing' });
    // The result comes after the last attempt: there was one.
    expect(collector.received).toHaveLength(1);
  });

  it('gives up on a collector that never answers at the timeout, without holding the caller', async () => {
    const collector = await startCollector(() => undefined);
    const exporter = protobufSpanExporter(signalOf(collector.url, { timeoutMs: 300 }), scope);
    let returned = false;
    const result = new Promise<ExportResult>((resolve) => {
      exporter.export(batchOf(), resolve);
      returned = true;
    });
    expect(returned).toBe(true);
    const { code, error } = await result;
    expect(code).toBe(ExportResultCode.FAILED);
    expect(error?.message).toBe('Request timed out');
    // No retry: the first backoff would end after the deadline.
    expect(collector.received).toHaveLength(1);
  });

  it('refuses an export beyond 30 under way, as the SDK’s bounded queue does', async () => {
    const collector = await startCollector(() => undefined);
    const exporter = protobufSpanExporter(signalOf(collector.url, { timeoutMs: 500 }), scope);
    const batch = batchOf(1);
    const underWay = Array.from({ length: 30 }, () => exportOnce(exporter, batch));
    const refused = await exportOnce(exporter, batch);
    expect(refused.code).toBe(ExportResultCode.FAILED);
    expect(refused.error?.message).toBe('Concurrent export limit reached');
    const ended = await Promise.all(underWay);
    expect(ended.every((r) => r.error?.message === 'Request timed out')).toBe(true);
  });

  it('reaches an https collector through the CA of OTEL_EXPORTER_OTLP_CERTIFICATE', async (ctx) => {
    const files = certificateFiles();
    if (!files) return ctx.skip('openssl is not installed');
    const collector = await startCollector(ok, { key: files.key, cert: files.cert });
    const env = { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: collector.url };
    const untrusted = telemetryConfigFrom(env)!.traces!;
    const trusted = telemetryConfigFrom({
      ...env,
      OTEL_EXPORTER_OTLP_CERTIFICATE: files.certFile,
    })!.traces!;
    const refused = await exportOnce(protobufSpanExporter(untrusted, scope), batchOf());
    expect(refused.code).toBe(ExportResultCode.FAILED);
    const result = await exportOnce(protobufSpanExporter(trusted, scope), batchOf());
    expect(result.code).toBe(ExportResultCode.SUCCESS);
    expect(collector.received).toHaveLength(1);
  });

  it('presents the client certificate of the _CLIENT_KEY and _CLIENT_CERTIFICATE files', async (ctx) => {
    const files = certificateFiles();
    if (!files) return ctx.skip('openssl is not installed');
    // The collector asks for a client certificate and trusts only the one it was given.
    const collector = await startCollector(ok, {
      key: files.key,
      cert: files.cert,
      requestCert: true,
      ca: files.cert,
    });
    const env = {
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: collector.url,
      OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE: files.certFile,
    };
    // A refused handshake may read as a reset connection, which is retried: not here.
    const anonymous = { ...telemetryConfigFrom(env)!.traces!, timeoutMs: 500 };
    const known = telemetryConfigFrom({
      ...env,
      OTEL_EXPORTER_OTLP_TRACES_CLIENT_KEY: files.keyFile,
      OTEL_EXPORTER_OTLP_TRACES_CLIENT_CERTIFICATE: files.certFile,
    })!.traces!;
    expect((await exportOnce(protobufSpanExporter(anonymous, scope), batchOf())).code).toBe(
      ExportResultCode.FAILED,
    );
    expect((await exportOnce(protobufSpanExporter(known, scope), batchOf())).code).toBe(
      ExportResultCode.SUCCESS,
    );
    expect(collector.received).toHaveLength(1);
  });

  it('leaves gzip to the SDK’s transport: the collector gets the same request, compressed', async () => {
    const collector = await startCollector();
    const signal = telemetryConfigFrom({
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: collector.url,
      OTEL_EXPORTER_OTLP_TRACES_COMPRESSION: 'gzip',
    })!.traces!;
    const batch = batchOf();
    expect((await exportOnce(protobufSpanExporter(signal, scope), batch)).code).toBe(
      ExportResultCode.SUCCESS,
    );
    const [received] = collector.received;
    expect(received!.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(received!.body).equals(Buffer.from(encodeEncodedRequest(batch, scope)))).toBe(
      true,
    );
  });

  it('reads Retry-After as the SDK does: whole seconds, at once when zero, or an HTTP date', () => {
    const now = Date.parse('2026-12-07T10:00:00Z');
    expect(retryAfterMs(undefined, now)).toBeUndefined();
    expect(retryAfterMs('3', now)).toBe(3_000);
    expect(retryAfterMs('1.5', now)).toBe(1_000);
    expect(retryAfterMs('0', now)).toBe(-1);
    expect(retryAfterMs('Mon, 07 Dec 2026 10:00:04 GMT', now)).toBe(4_000);
    expect(retryAfterMs('Mon, 07 Dec 2026 09:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs('soon', now)).toBe(0);
  });
});
