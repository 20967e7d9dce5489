/**
 * A real OTLP/HTTP collector on 127.0.0.1:0 for the telemetry tests: POST /v1/traces and
 * /v1/metrics, in protobuf (application/x-protobuf) and JSON (application/json), decoded
 * into plain spans and metric points. It can answer 503, or stop and start again on
 * the same port, for the collector-down tests. `startOtlpGrpcReceiver` is the same
 * collector over OTLP/gRPC (@grpc/grpc-js, the exporter's own dependency): the
 * TraceService and MetricsService `Export` methods, their requests the same protobuf.
 *
 * Protobuf is read with the binary reader @opentelemetry/otlp-transformer ships (the
 * one its exporters read collector answers with); the packages expose no request
 * decoder and no .proto files, so the OTLP messages are walked here by their field
 * numbers (opentelemetry-proto: trace/v1/trace.proto, metrics/v1/metrics.proto,
 * common/v1/common.proto).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  Server as GrpcServer,
  ServerCredentials,
  type ServiceDefinition,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { ProtobufReader } from '@opentelemetry/otlp-transformer/build/src/common/protobuf/protobuf-reader.js';

export type ReceivedValue = string | number | boolean | null;

export interface ReceivedSpan {
  readonly name: string;
  /** 1 internal, 2 server, 3 client (SpanKind in trace.proto). */
  readonly kind: number;
  readonly traceId: string;
  readonly spanId: string;
  /** '' for a root span. */
  readonly parentSpanId: string;
  readonly traceState: string;
  readonly attributes: Record<string, ReceivedValue>;
  /** 0 unset, 1 ok, 2 error. */
  readonly status: { readonly code: number; readonly message: string };
  readonly resource: Record<string, ReceivedValue>;
}

export interface ReceivedPoint {
  readonly attributes: Record<string, ReceivedValue>;
  /** A histogram point's explicit bucket boundaries (upper bounds, the last bucket open). */
  readonly bounds?: readonly number[];
}

export interface ReceivedMetric {
  readonly name: string;
  readonly points: readonly ReceivedPoint[];
  /** The resource the metric came with: which process exported it. */
  readonly resource: Record<string, ReceivedValue>;
}

export const KIND = { internal: 1, server: 2, client: 3 } as const;

export interface OtlpReceiver {
  /** http://127.0.0.1:port, the base URL (OTEL_EXPORTER_OTLP_ENDPOINT, --otlp). */
  readonly url: string;
  readonly spans: ReceivedSpan[];
  readonly metrics: ReceivedMetric[];
  /** Requests by path and content type, answered or not. */
  readonly requests: { readonly path: string; readonly contentType: string }[];
  /** Answer 503 to everything while true. */
  failing(on: boolean): void;
  /** Close the socket (connections are refused), and listen again on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
  waitForSpans(
    want: number | ((spans: readonly ReceivedSpan[]) => boolean),
    timeoutMs?: number,
  ): Promise<ReceivedSpan[]>;
  waitForMetrics(
    want: (metrics: readonly ReceivedMetric[]) => boolean,
    timeoutMs?: number,
  ): Promise<ReceivedMetric[]>;
  waitForRequests(n: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

// ---- protobuf ------------------------------------------------------------------------

type Fields = (field: number, wire: number, r: ProtobufReader, buf: Uint8Array) => boolean;

/** Walks one message; a field the callback does not take is skipped. */
function walk(buf: Uint8Array, take: Fields): void {
  const r = new ProtobufReader(buf);
  while (!r.isAtEnd()) {
    const { fieldNumber, wireType } = r.readTag();
    if (!take(fieldNumber, wireType, r, buf)) r.skip(wireType);
  }
}

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

function fixed64Double(r: ProtobufReader, buf: Uint8Array): number {
  const value = new DataView(buf.buffer, buf.byteOffset + r.pos, 8).getFloat64(0, true);
  r.pos += 8;
  return value;
}

function anyValue(buf: Uint8Array): ReceivedValue {
  let value: ReceivedValue = null;
  walk(buf, (f, w, r, b) => {
    if (f === 1 && w === 2) value = r.readString();
    else if (f === 2 && w === 0) value = r.readVarint() !== 0;
    else if (f === 3 && w === 0) value = r.readVarint();
    else if (f === 4 && w === 1) value = fixed64Double(r, b);
    else return false;
    return true;
  });
  return value;
}

function keyValue(buf: Uint8Array, into: Record<string, ReceivedValue>): void {
  let key = '';
  let value: ReceivedValue = null;
  walk(buf, (f, w, r) => {
    if (f === 1 && w === 2) key = r.readString();
    else if (f === 2 && w === 2) value = anyValue(r.readBytes());
    else return false;
    return true;
  });
  into[key] = value;
}

function resourceAttributes(buf: Uint8Array): Record<string, ReceivedValue> {
  const attributes: Record<string, ReceivedValue> = {};
  walk(buf, (f, w, r) => {
    if (f !== 1 || w !== 2) return false;
    keyValue(r.readBytes(), attributes);
    return true;
  });
  return attributes;
}

function protoSpan(buf: Uint8Array, resource: Record<string, ReceivedValue>): ReceivedSpan {
  const span = {
    name: '',
    kind: 0,
    traceId: '',
    spanId: '',
    parentSpanId: '',
    traceState: '',
    attributes: {} as Record<string, ReceivedValue>,
    status: { code: 0, message: '' },
    resource,
  };
  walk(buf, (f, w, r) => {
    if (w === 2 && f === 1) span.traceId = hex(r.readBytes());
    else if (w === 2 && f === 2) span.spanId = hex(r.readBytes());
    else if (w === 2 && f === 3) span.traceState = r.readString();
    else if (w === 2 && f === 4) span.parentSpanId = hex(r.readBytes());
    else if (w === 2 && f === 5) span.name = r.readString();
    else if (w === 0 && f === 6) span.kind = r.readVarint();
    else if (w === 2 && f === 9) keyValue(r.readBytes(), span.attributes);
    else if (w === 2 && f === 15)
      walk(r.readBytes(), (sf, sw, sr) => {
        if (sf === 2 && sw === 2) span.status.message = sr.readString();
        else if (sf === 3 && sw === 0) span.status.code = sr.readVarint();
        else return false;
        return true;
      });
    else return false;
    return true;
  });
  return span;
}

function protoTraces(buf: Uint8Array): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  walk(buf, (f, w, r) => {
    if (f !== 1 || w !== 2) return false; // ResourceSpans
    const resourceSpans = r.readBytes();
    let resource: Record<string, ReceivedValue> = {};
    const scopes: Uint8Array[] = [];
    walk(resourceSpans, (rf, rw, rr) => {
      if (rf === 1 && rw === 2) resource = resourceAttributes(rr.readBytes());
      else if (rf === 2 && rw === 2) scopes.push(rr.readBytes());
      else return false;
      return true;
    });
    for (const scope of scopes)
      walk(scope, (sf, sw, sr) => {
        if (sf !== 2 || sw !== 2) return false;
        spans.push(protoSpan(sr.readBytes(), resource));
        return true;
      });
    return true;
  });
  return spans;
}

/** HistogramDataPoint.explicit_bounds: repeated double, packed (wire 2) or not (wire 1). */
function readBounds(wire: number, r: ProtobufReader, buf: Uint8Array, into: number[]): boolean {
  if (wire === 1) into.push(fixed64Double(r, buf));
  else if (wire === 2) {
    const packed = r.readBytes();
    const view = new DataView(packed.buffer, packed.byteOffset, packed.byteLength);
    for (let at = 0; at + 8 <= packed.byteLength; at += 8) into.push(view.getFloat64(at, true));
  } else return false;
  return true;
}

/**
 * The attributes of each data point of a Gauge/Sum/Histogram/ExponentialHistogram/Summary,
 * and a Histogram's bucket boundaries (`histogram` true).
 */
function protoPoints(
  data: Uint8Array,
  attributesField: number,
  histogram: boolean,
): ReceivedMetric['points'] {
  const points: ReceivedPoint[] = [];
  walk(data, (f, w, r) => {
    if (f !== 1 || w !== 2) return false;
    const attributes: Record<string, ReceivedValue> = {};
    const bounds: number[] = [];
    walk(r.readBytes(), (pf, pw, pr, pbuf) => {
      if (histogram && pf === 7) return readBounds(pw, pr, pbuf, bounds);
      if (pf !== attributesField || pw !== 2) return false;
      keyValue(pr.readBytes(), attributes);
      return true;
    });
    points.push(histogram ? { attributes, bounds } : { attributes });
    return true;
  });
  return points;
}

/** Metric.data field → the attributes field of its data points. */
const POINT_ATTRIBUTES: Readonly<Record<number, number>> = { 5: 7, 7: 7, 9: 9, 10: 9, 11: 7 };

function protoMetrics(buf: Uint8Array): ReceivedMetric[] {
  const metrics: ReceivedMetric[] = [];
  walk(buf, (f, w, r) => {
    if (f !== 1 || w !== 2) return false; // ResourceMetrics
    let resource: Record<string, ReceivedValue> = {};
    walk(r.readBytes(), (rf, rw, rr) => {
      if (rf === 1 && rw === 2) {
        resource = resourceAttributes(rr.readBytes());
        return true;
      }
      if (rf !== 2 || rw !== 2) return false; // ScopeMetrics
      walk(rr.readBytes(), (sf, sw, sr) => {
        if (sf !== 2 || sw !== 2) return false; // Metric
        let name = '';
        let points: ReceivedMetric['points'] = [];
        walk(sr.readBytes(), (mf, mw, mr) => {
          if (mf === 1 && mw === 2) name = mr.readString();
          else if (mw === 2 && POINT_ATTRIBUTES[mf] !== undefined)
            points = protoPoints(mr.readBytes(), POINT_ATTRIBUTES[mf], mf === 9);
          else return false;
          return true;
        });
        metrics.push({ name, points, resource });
        return true;
      });
      return true;
    });
    return true;
  });
  return metrics;
}

// ---- JSON ----------------------------------------------------------------------------

interface JsonKeyValue {
  key: string;
  value?: Record<string, unknown>;
}

function jsonAttributes(list: JsonKeyValue[] | undefined): Record<string, ReceivedValue> {
  const attributes: Record<string, ReceivedValue> = {};
  for (const { key, value = {} } of list ?? []) {
    const v =
      value.stringValue ??
      value.boolValue ??
      (value.intValue !== undefined ? Number(value.intValue) : undefined) ??
      value.doubleValue ??
      null;
    attributes[key] = v as ReceivedValue;
  }
  return attributes;
}

/* eslint-disable @typescript-eslint/no-explicit-any -- the OTLP JSON shape, read loosely */
function jsonTraces(body: any): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const rs of body.resourceSpans ?? []) {
    const resource = jsonAttributes(rs.resource?.attributes);
    for (const ss of rs.scopeSpans ?? [])
      for (const s of ss.spans ?? [])
        spans.push({
          name: s.name,
          kind: Number(s.kind ?? 0),
          traceId: s.traceId,
          spanId: s.spanId,
          parentSpanId: s.parentSpanId ?? '',
          traceState: s.traceState ?? '',
          attributes: jsonAttributes(s.attributes),
          status: { code: Number(s.status?.code ?? 0), message: s.status?.message ?? '' },
          resource,
        });
  }
  return spans;
}

function jsonMetrics(body: any): ReceivedMetric[] {
  const metrics: ReceivedMetric[] = [];
  for (const rm of body.resourceMetrics ?? []) {
    const resource = jsonAttributes(rm.resource?.attributes);
    for (const sm of rm.scopeMetrics ?? [])
      for (const m of sm.metrics ?? []) {
        const data = m.gauge ?? m.sum ?? m.histogram ?? m.exponentialHistogram ?? m.summary ?? {};
        metrics.push({
          name: m.name,
          points: (data.dataPoints ?? []).map((p: any) => ({
            attributes: jsonAttributes(p.attributes),
            ...(m.histogram && { bounds: (p.explicitBounds ?? []).map(Number) }),
          })),
          resource,
        });
      }
  }
  return metrics;
}
/* eslint-enable @typescript-eslint/no-explicit-any */

// ---- the server ----------------------------------------------------------------------

async function until(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`OTLP receiver: timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const metrics: ReceivedMetric[] = [];
  const requests: { path: string; contentType: string }[] = [];
  let failing = false;
  let port = 0;
  let server: Server;

  const listen = async (): Promise<void> => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = req.url ?? '';
        const contentType = req.headers['content-type'] ?? '';
        requests.push({ path, contentType });
        if (failing || req.method !== 'POST') {
          res.statusCode = failing ? 503 : 405;
          res.end();
          return;
        }
        const body = Buffer.concat(chunks);
        const json = contentType.startsWith('application/json');
        try {
          if (path === '/v1/traces')
            spans.push(
              ...(json ? jsonTraces(JSON.parse(body.toString('utf8'))) : protoTraces(body)),
            );
          else if (path === '/v1/metrics')
            metrics.push(
              ...(json ? jsonMetrics(JSON.parse(body.toString('utf8'))) : protoMetrics(body)),
            );
          else {
            res.statusCode = 404;
            res.end();
            return;
          }
        } catch {
          res.statusCode = 400;
          res.end();
          return;
        }
        // An empty Export*ServiceResponse: full success.
        res.statusCode = 200;
        if (json) {
          res.setHeader('content-type', 'application/json');
          res.end('{}');
        } else {
          res.setHeader('content-type', 'application/x-protobuf');
          res.end();
        }
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    port = (server.address() as AddressInfo).port;
  };
  const close = (): Promise<void> =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });

  await listen();
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    metrics,
    requests,
    failing(on) {
      failing = on;
    },
    stop: close,
    start: listen,
    async waitForSpans(want, timeoutMs = 30_000) {
      const enough = typeof want === 'number' ? () => spans.length >= want : () => want(spans);
      await until(enough, timeoutMs, `spans (${typeof want === 'number' ? want : 'predicate'})`);
      return spans;
    },
    async waitForMetrics(want, timeoutMs = 30_000) {
      await until(() => want(metrics), timeoutMs, 'metrics (predicate)');
      return metrics;
    },
    async waitForRequests(n, timeoutMs = 30_000) {
      await until(() => requests.length >= n, timeoutMs, `${n} requests`);
    },
    close: () => (server.listening ? close() : Promise.resolve()),
  };
}

// ---- OTLP/gRPC -------------------------------------------------------------------------

/** What a gRPC collector received: spans, metrics, and each call's metadata (headers). */
export type OtlpGrpcReceiver = Pick<
  OtlpReceiver,
  'url' | 'spans' | 'metrics' | 'waitForSpans' | 'waitForMetrics' | 'close'
> & { readonly metadata: Record<string, string>[] };

/** A unary method taking and giving raw bytes: the message is decoded by hand above. */
function rawExport(service: string): ServiceDefinition {
  const bytes = (b: Buffer): Buffer => b;
  return {
    Export: {
      path: `/opentelemetry.proto.collector.${service}/Export`,
      requestStream: false,
      responseStream: false,
      requestSerialize: bytes,
      requestDeserialize: bytes,
      responseSerialize: bytes,
      responseDeserialize: bytes,
    },
  };
}

export async function startOtlpGrpcReceiver(): Promise<OtlpGrpcReceiver> {
  const spans: ReceivedSpan[] = [];
  const metrics: ReceivedMetric[] = [];
  const metadata: Record<string, string>[] = [];
  const server = new GrpcServer();
  const exportOf =
    (decode: (body: Buffer) => void): UntypedServiceImplementation['Export'] =>
    (
      call: { request: Buffer; metadata: { getMap(): Record<string, unknown> } },
      done: (e: null, r: Buffer) => void,
    ) => {
      metadata.push(
        Object.fromEntries(Object.entries(call.metadata.getMap()).map(([k, v]) => [k, String(v)])),
      );
      decode(call.request);
      // An empty Export*ServiceResponse: full success.
      done(null, Buffer.alloc(0));
    };
  server.addService(rawExport('trace.v1.TraceService'), {
    Export: exportOf((body) => spans.push(...protoTraces(body))),
  });
  server.addService(rawExport('metrics.v1.MetricsService'), {
    Export: exportOf((body) => metrics.push(...protoMetrics(body))),
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (err, bound) =>
      err ? reject(err) : resolve(bound),
    ),
  );
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    metrics,
    metadata,
    async waitForSpans(want, timeoutMs = 10_000) {
      const enough = typeof want === 'number' ? () => spans.length >= want : () => want(spans);
      await until(enough, timeoutMs, `spans (${typeof want === 'number' ? want : 'predicate'})`);
      return spans;
    },
    async waitForMetrics(want, timeoutMs = 10_000) {
      await until(() => want(metrics), timeoutMs, 'metrics (predicate)');
      return metrics;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.tryShutdown(() => resolve());
        // A client that holds its HTTP/2 session open must not hold the test up.
        setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, 1_000).unref();
      }),
  };
}
