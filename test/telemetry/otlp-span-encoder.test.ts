/**
 * Our OTLP/protobuf span encoder against the SDK's serializer (issue 40): the same span
 * records, encoded by both, give the same bytes, and decoded with protobufjs from the
 * OTLP .proto text (the messages the encoder writes) they give the same fields, which are
 * the ones the spans were made with. The records are made by the real recorder.
 */
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import {
  EncodedSpans,
  encodedRequestParts,
  encodeEncodedRequest,
  encodeSpanInto,
  encodeTraceRequest,
  type EncodingScope,
} from '../../src/telemetry/otlp-span-encoder.js';
import { RecordedSpan, SpanRecorder } from '../../src/telemetry/span-recorder.js';
import type { SamplerConfig } from '../../src/telemetry/telemetry-config.js';

/** opentelemetry-proto's trace messages, as far as spans without events or links need. */
const OTLP_PROTO = `
syntax = "proto3";
package otlp;
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; string schema_url = 3; }
message Resource { repeated KeyValue attributes = 1; uint32 dropped_attributes_count = 2; }
message ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2; string schema_url = 3; }
message InstrumentationScope { string name = 1; string version = 2; repeated KeyValue attributes = 3; uint32 dropped_attributes_count = 4; }
message KeyValue { string key = 1; AnyValue value = 2; }
message AnyValue {
  oneof value { string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4; }
}
message Span {
  bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; bytes parent_span_id = 4;
  string name = 5; int32 kind = 6; fixed64 start_time_unix_nano = 7; fixed64 end_time_unix_nano = 8;
  repeated KeyValue attributes = 9; uint32 dropped_attributes_count = 10;
  uint32 dropped_events_count = 12; uint32 dropped_links_count = 14;
  Status status = 15; fixed32 flags = 16;
}
message Status { string message = 2; int32 code = 3; }
`;
const Request = protobuf.parse(OTLP_PROTO).root.lookupType('otlp.ExportTraceServiceRequest');

/** Decoded to plain JSON: bytes as hex, 64-bit integers as decimal strings. */
function decode(bytes: Uint8Array): Record<string, unknown> {
  const message = Request.decode(bytes);
  return JSON.parse(
    JSON.stringify(Request.toObject(message, { longs: String, bytes: String, defaults: false })),
    (key, value: unknown) =>
      typeof value === 'string' && /(_id|Id)$/.test(key)
        ? Buffer.from(value, 'base64').toString('hex')
        : value,
  ) as Record<string, unknown>;
}

const ALWAYS_ON: SamplerConfig = { root: 'always_on', parentBased: true, ratio: 1 };
const resource = resourceFromAttributes({
  'service.name': 'beaver-test',
  'service.version': '1.2.3',
  'telemetry.sdk.language': 'nodejs',
});
const scope: EncodingScope = {
  resourceAttributes: resource.attributes,
  resourceSchemaUrl: resource.schemaUrl,
  scopeName: 'mcp-beaver',
};

function recorder(sampler: SamplerConfig = ALWAYS_ON): { r: SpanRecorder; ended: RecordedSpan[] } {
  const ended: RecordedSpan[] = [];
  const r = new SpanRecorder({
    sampler,
    resource,
    scope: 'mcp-beaver',
    ended: { onEnd: (span) => ended.push(span) },
  });
  return { r, ended };
}

/** A trace of the shapes the gateway makes, and then some: every value type, a long name. */
function trace({ r, ended } = recorder()): RecordedSpan[] {
  const server = r.serverSpan(
    {
      traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
      tracestate: 'v=a,w=b',
    },
    'tools/call list_issues',
    {
      'mcp.method.name': 'tools/call',
      'jsonrpc.request.id': '7',
      'server.port': 8080,
      'mcp_beaver.coverage.truncated': false,
      unset: undefined,
    },
  );
  server.setAttributes({
    'mcp_beaver.coverage.bytes': 2 ** 40,
    ratio: 0.25,
    negative: -3,
    'non.ascii': 'grüße, 世界',
    'db.query.text': `SELECT ${'x, '.repeat(200)}y FROM t WHERE id = $1`,
    empty: '',
  });
  const client = server.child('GET /items/{id}', 'client', { 'http.request.method': 'GET' });
  client.setAttribute('http.response.status_code', 502);
  client.fail('UPSTREAM_STATUS');
  client.end();
  const wait = server.child('mcp_beaver.wait.connection', 'internal');
  wait.end();
  server.end();
  const root = r.serverSpan({}, 'POST /api/{tool}', { 'http.route': '/api/{tool}' }, 12.5);
  for (let i = 0; i < 140; i++) root.setAttribute(`k${i}`, i);
  root.end();
  return ended;
}

const sdkBytes = (spans: RecordedSpan[]): Uint8Array =>
  ProtobufTraceSerializer.serializeRequest(spans as unknown as ReadableSpan[])!;

describe('the OTLP/protobuf span encoder', () => {
  it('writes the bytes the SDK’s serializer writes for the same spans', () => {
    const spans = trace();
    const ours = encodeTraceRequest(spans, scope)!;
    expect(Buffer.from(ours).equals(Buffer.from(sdkBytes(spans)))).toBe(true);
  });

  it('decodes to the fields the spans were made with, as the SDK’s bytes do', () => {
    const spans = trace();
    const ours = decode(encodeTraceRequest(spans, scope)!);
    expect(ours).toEqual(decode(sdkBytes(spans)));

    const rs = (ours.resourceSpans as Record<string, unknown>[])[0]!;
    expect(rs.resource).toMatchObject({
      attributes: expect.arrayContaining([
        { key: 'service.name', value: { stringValue: 'beaver-test' } },
      ]),
    });
    const ss = (rs.scopeSpans as Record<string, unknown>[])[0]!;
    expect(ss.scope).toEqual({ name: 'mcp-beaver' });
    const [client, wait, server, root] = ss.spans as Record<string, unknown>[];
    const attrs = (span: Record<string, unknown> | undefined) =>
      Object.fromEntries(
        (span?.attributes as { key: string; value: Record<string, unknown> }[]).map((kv) => [
          kv.key,
          Object.values(kv.value)[0],
        ]),
      );
    expect(server).toMatchObject({
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      parentSpanId: '00f067aa0ba902b7',
      traceState: 'v=a,w=b',
      name: 'tools/call list_issues',
      kind: 2,
      status: {},
      flags: 0x301,
    });
    expect(attrs(server)).toEqual({
      'mcp.method.name': 'tools/call',
      'jsonrpc.request.id': '7',
      'server.port': '8080',
      'mcp_beaver.coverage.bytes': String(2 ** 40),
      'mcp_beaver.coverage.truncated': false,
      ratio: 0.25,
      negative: '-3',
      'non.ascii': 'grüße, 世界',
      'db.query.text': `SELECT ${'x, '.repeat(200)}y FROM t WHERE id = $1`,
      empty: '',
    });
    expect(client).toMatchObject({
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      parentSpanId: spans[2]!.spanId,
      name: 'GET /items/{id}',
      kind: 3,
      status: { code: 2 },
      flags: 0x101,
    });
    expect(attrs(client)).toMatchObject({ 'error.type': 'UPSTREAM_STATUS' });
    expect(wait).toMatchObject({ kind: 1, name: 'mcp_beaver.wait.connection' });
    expect(root?.parentSpanId).toBeUndefined();
    expect(root?.traceId).not.toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    expect((root?.attributes as unknown[]).length).toBe(128);
    expect(root?.droppedAttributesCount).toBe(13);
  });

  it('writes times as nanoseconds since the epoch, the span’s own clock between them', () => {
    const before = BigInt(Date.now() - 1000) * 1_000_000n;
    const spans = trace();
    const after = BigInt(Date.now() + 1000) * 1_000_000n;
    const decoded = decode(encodeTraceRequest(spans, scope)!);
    const all = (
      decoded.resourceSpans as { scopeSpans: { spans: Record<string, string>[] }[] }[]
    )[0]!.scopeSpans[0]!.spans;
    for (const span of all.slice(0, 3)) {
      const start = BigInt(span.startTimeUnixNano!);
      const end = BigInt(span.endTimeUnixNano!);
      expect(start > before && end < after && end >= start).toBe(true);
    }
  });

  it('encodes a batch of many spans as the SDK does, lengths past one and two varint bytes', () => {
    // One recorder, as the gateway has: the SDK groups spans by their scope object.
    const one = recorder();
    for (let i = 0; i < 300; i++) trace(one);
    const many = one.ended;
    expect(Buffer.from(encodeTraceRequest(many, scope)!).equals(Buffer.from(sdkBytes(many)))).toBe(
      true,
    );
  });

  it('writes each value a key has now, when the same key held another value on the spans before', () => {
    // A value that repeats is copied as it was last written; one that changes must not be.
    const one = recorder();
    const values = ['a', 'a', 'a', 'bb', 'bb', 'a', 7, 7, 2 ** 40, true, true, false, 'a'];
    for (const [i, value] of values.entries()) {
      const span = one.r.serverSpan({}, 'tools/call list_issues', {
        'mcp.method.name': 'tools/call',
      });
      span.setAttributes({ changing: value, 'jsonrpc.request.id': String(i) });
      span.end();
    }
    const ours = encodeTraceRequest(one.ended, scope)!;
    expect(Buffer.from(ours).equals(Buffer.from(sdkBytes(one.ended)))).toBe(true);
    const spans = (
      decode(ours).resourceSpans as {
        scopeSpans: {
          spans: { attributes: { key: string; value: Record<string, unknown> }[] }[];
        }[];
      }[]
    )[0]!.scopeSpans[0]!.spans;
    const written = spans.map((sp) => {
      const v = sp.attributes.find((a) => a.key === 'changing')!.value;
      return v.stringValue ?? v.boolValue ?? Number(v.intValue);
    });
    expect(written).toEqual(values);
  });

  it('writes nothing for no spans', () => {
    expect(encodeTraceRequest([], scope)!.length).toBe(0);
    expect(sdkBytes([]).length).toBe(0);
  });

  it('frames a batch encoded span by span in parts that join to the whole request, schema URLs after the spans', () => {
    const spans = trace();
    const batch = new EncodedSpans(64);
    for (const span of spans) encodeSpanInto(span, batch);
    const withUrls: EncodingScope = {
      ...scope,
      resourceSchemaUrl: 'https://opentelemetry.io/schemas/1.30.0',
      scopeSchemaUrl: 'https://example.test/scope-schema',
    };
    for (const s of [scope, withUrls]) {
      const parts = encodedRequestParts(batch, s);
      const joined = Buffer.concat(parts);
      expect(joined.equals(Buffer.from(encodeEncodedRequest(batch, s)))).toBe(true);
      expect(joined.equals(Buffer.from(encodeTraceRequest(spans, s)!))).toBe(true);
      // The batch's bytes are sent from its own buffer, not copied.
      expect(parts[1]!.buffer).toBe(batch.buf.buffer);
    }
    expect(
      Buffer.from(encodeTraceRequest(spans, scope)!).equals(Buffer.from(sdkBytes(spans))),
    ).toBe(true);
    const decoded = decode(Buffer.concat(encodedRequestParts(batch, withUrls))) as {
      resourceSpans: { schemaUrl: string; scopeSpans: { schemaUrl: string; spans: unknown[] }[] }[];
    };
    expect(decoded.resourceSpans[0]!.schemaUrl).toBe('https://opentelemetry.io/schemas/1.30.0');
    expect(decoded.resourceSpans[0]!.scopeSpans[0]!.schemaUrl).toBe(
      'https://example.test/scope-schema',
    );
    expect(decoded.resourceSpans[0]!.scopeSpans[0]!.spans).toHaveLength(spans.length);
    expect(encodedRequestParts(new EncodedSpans(64), scope)).toEqual([]);
  });
});
