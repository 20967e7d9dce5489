/**
 * OTLP/protobuf for the gateway's own span records (span-recorder.ts): the bytes of an
 * ExportTraceServiceRequest (opentelemetry-proto: collector/trace/v1/trace_service.proto,
 * trace/v1/trace.proto, common/v1/common.proto), field for field and byte for byte what
 * the SDK's ProtobufTraceSerializer writes for the same spans (test/telemetry/
 * otlp-span-encoder.test.ts compares them).
 *
 * Why not the SDK's serializer (issue 40): it walked every span twice through a writer
 * and a size estimator behind one interface (calls V8 could not inline), wrote each
 * string a character at a time, reserved one byte for each length and moved the bytes
 * after it whenever a message was longer than 127 bytes — every span, and the whole
 * batch twice more for its ScopeSpans and ResourceSpans. Here sizes are worked out once,
 * bottom up, so every length is written in place; the resource and scope, the same for
 * every span, are encoded once; and an attribute key's bytes are kept after its first use.
 */
import type { AttributeValue } from './span.js';

/** What the encoder reads of a span: span-recorder.ts's RecordedSpan. */
export interface EncodableSpan {
  /** 32 and 16 lowercase hex digits. */
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | undefined;
  /** The parent came from the caller's traceparent (OTLP span flags' IS_REMOTE bit). */
  readonly parentIsRemote: boolean;
  /** The serialized W3C tracestate, '' for none. */
  readonly traceStateText: string;
  readonly name: string;
  /** OTLP's: 1 internal, 2 server, 3 client. */
  readonly otlpKind: number;
  /** Milliseconds since the Unix epoch, fractional. */
  readonly startMs: number;
  readonly endMs: number;
  readonly attributeKeys: readonly string[];
  readonly attributeValues: readonly AttributeValue[];
  readonly droppedAttributes: number;
  /** 0 unset, 2 error. */
  readonly statusCode: number;
  /** W3C trace flags: 1, sampled (only sampled spans are recorded). */
  readonly traceFlags: number;
}

/** The resource and scope every span of a batch shares, as the SDK gives them. */
export interface EncodingScope {
  readonly resourceAttributes: Readonly<Record<string, unknown>>;
  readonly resourceSchemaUrl?: string | undefined;
  readonly scopeName: string;
  readonly scopeVersion?: string | undefined;
  readonly scopeSchemaUrl?: string | undefined;
}

// Wire types.
const VARINT = 0;
const I64 = 1;
const LEN = 2;
const I32 = 5;

const tag = (field: number, wire: number): number => (field << 3) | wire;

const varintSize = (v: number): number =>
  v < 0x80 ? 1 : v < 0x4000 ? 2 : v < 0x200000 ? 3 : v < 0x10000000 ? 4 : 5;

/** A string's UTF-8 length: its length when it is ASCII, as nearly every name and value is. */
function utf8Length(s: string): number {
  for (let i = 0; i < s.length; i++)
    if (s.charCodeAt(i) > 0x7f) return Buffer.byteLength(s, 'utf8');
  return s.length;
}

const lenField = (bytes: number): number => varintSize(bytes) + bytes;

/** A KeyValue's key, tag and length included: the same few keys are on every span. */
const keyBytes = new Map<string, Buffer>();
function encodedKey(key: string): Buffer {
  let bytes = keyBytes.get(key);
  if (bytes === undefined) {
    const n = utf8Length(key);
    bytes = Buffer.allocUnsafe(1 + varintSize(n) + n);
    const w = new Writer(bytes);
    w.tag(1, LEN);
    w.string(key, n);
    // Keys are the gateway's own constants; a bound keeps a mistake from growing it.
    if (keyBytes.size < 1024) keyBytes.set(key, bytes);
  }
  return bytes;
}

const MIN_INT64 = -(2 ** 63);
const MAX_INT64 = 2 ** 63;

/** AnyValue's body size for one of our attribute values; `strBytes` for a string. */
function anyValueSize(value: AttributeValue, strBytes: number): number {
  if (typeof value === 'string') return 1 + lenField(strBytes);
  if (typeof value === 'boolean') return 2;
  if (Number.isInteger(value) && value >= MIN_INT64 && value < MAX_INT64)
    return 1 + (value >= 0 && value <= 0xffffffff ? varintSize(value) : int64VarintSize(value));
  return 9;
}

function int64VarintSize(value: number): number {
  // Negative: ten bytes, two's complement. Above 2^32: seven bits a byte.
  if (value < 0) return 10;
  let n = 1;
  let v = value;
  while (v >= 0x80) {
    v = Math.floor(v / 128);
    n++;
  }
  return n;
}

class Writer {
  constructor(
    public buf: Buffer,
    public pos = 0,
  ) {}

  varint(value: number): void {
    const buf = this.buf;
    let v = value >>> 0;
    while (v > 0x7f) {
      buf[this.pos++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    buf[this.pos++] = v;
  }

  /** Any integer of int64's range, as protobuf's int64 has it. */
  int64(value: number): void {
    if (value >= 0 && value <= 0xffffffff) return this.varint(value);
    let low: number;
    let high: number;
    const abs = Math.abs(value);
    low = abs >>> 0;
    high = Math.floor(abs / 0x100000000) >>> 0;
    if (value < 0) {
      low = ~low >>> 0;
      high = ~high >>> 0;
      low = (low + 1) >>> 0;
      if (low === 0) high = (high + 1) >>> 0;
    }
    const buf = this.buf;
    while (high > 0 || low > 0x7f) {
      buf[this.pos++] = (low & 0x7f) | 0x80;
      low = ((low >>> 7) | (high << 25)) >>> 0;
      high >>>= 7;
    }
    buf[this.pos++] = low;
  }

  tag(field: number, wire: number): void {
    this.varint(tag(field, wire));
  }

  /**
   * A length-delimited string whose UTF-8 length is `bytes`. An ASCII string of a name's
   * or a value's length is copied here: cheaper than a call into Buffer.write.
   */
  string(s: string, bytes: number): void {
    this.varint(bytes);
    if (bytes === s.length && bytes < 64) {
      const buf = this.buf;
      let pos = this.pos;
      for (let i = 0; i < bytes; i++) buf[pos++] = s.charCodeAt(i);
      this.pos = pos;
    } else {
      this.pos += this.buf.write(s, this.pos, bytes, 'utf8');
    }
  }

  /** A length-delimited bytes field from lowercase hex digits. */
  hex(digits: string): void {
    const n = digits.length >> 1;
    this.varint(n);
    const buf = this.buf;
    let pos = this.pos;
    for (let i = 0; i < digits.length; i += 2)
      buf[pos++] = (NIBBLES[digits.charCodeAt(i)]! << 4) | NIBBLES[digits.charCodeAt(i + 1)]!;
    this.pos = pos;
  }

  fixed32(value: number): void {
    this.buf.writeUInt32LE(value >>> 0, this.pos);
    this.pos += 4;
  }

  fixed64(low: number, high: number): void {
    this.buf.writeUInt32LE(low >>> 0, this.pos);
    this.buf.writeUInt32LE(high >>> 0, this.pos + 4);
    this.pos += 8;
  }

  double(value: number): void {
    this.buf.writeDoubleLE(value, this.pos);
    this.pos += 8;
  }

  /** Bytes as they are: a key's few, copied here (TypedArray.set costs more than it copies). */
  raw(bytes: Uint8Array): void {
    const n = bytes.length;
    if (n < 64) {
      const buf = this.buf;
      let pos = this.pos;
      for (let i = 0; i < n; i++) buf[pos++] = bytes[i]!;
      this.pos = pos;
    } else {
      this.buf.set(bytes, this.pos);
      this.pos += n;
    }
  }

  /** Milliseconds since the epoch as fixed64 nanoseconds. */
  epochNanos(ms: number): void {
    let seconds = Math.floor(ms / 1000);
    let nanos = Math.round((ms - seconds * 1000) * 1e6);
    if (nanos >= 1e9) {
      seconds += 1;
      nanos -= 1e9;
    }
    // seconds * 1e9 + nanos exceeds 2^53: in two halves of the seconds, each exact
    // (seconds < 2^32 until 2106). Integer operations and floors of divisions by powers
    // of two, all exact: `%` on a double is a call into the runtime in V8, and four of them
    // were a tenth of encoding a span (issue 40).
    const lowPart = (seconds & 0xffff) * 1e9 + nanos; // < 2^46
    const highPart = (seconds >>> 16) * 1e9; // < 2^46, × 2^16 below
    const lowHigh = Math.floor(lowPart / 0x100000000);
    const highHigh = Math.floor(highPart / 0x10000);
    let low = lowPart - lowHigh * 0x100000000 + (highPart - highHigh * 0x10000) * 0x10000;
    let high = lowHigh + highHigh;
    if (low >= 0x100000000) {
      low -= 0x100000000;
      high += 1;
    }
    this.fixed64(low, high);
  }
}

/**
 * A hex digit's value by its char code. A table, not `c < 58 ? … : …`: the digits of a
 * random id are digits or letters at random, so that branch was mispredicted about once a
 * digit, and ids were the encoder's dearest part after the span's own fields (issue 40).
 */
const NIBBLES = (() => {
  const t = new Uint8Array(128);
  for (let c = 48; c < 58; c++) t[c] = c - 48;
  for (let c = 65; c < 71; c++) t[c] = c - 55;
  for (let c = 97; c < 103; c++) t[c] = c - 87;
  return t;
})();

/**
 * Per attribute of the spans of one encoding, from the sizes pass to the writing one: a
 * string value's UTF-8 length (else 0), and the key's encoded bytes, or the whole
 * attribute's bytes when they were kept (lastValues).
 */
let valueBytes = new Int32Array(256);
let keyScratch: Buffer[] = [];
let fieldScratch: (Buffer | undefined)[] = [];

/** Room in the scratch arrays for `count` attributes from index 0. */
function scratchFor(count: number): void {
  if (valueBytes.length < count) valueBytes = new Int32Array(count * 2);
  if (keyScratch.length < count) keyScratch = new Array<Buffer>(count * 2);
  if (fieldScratch.length < count) fieldScratch = new Array<Buffer | undefined>(count * 2);
}

/**
 * Each key's last value, and once that value came twice in a row, its whole KeyValue
 * field as written (tag, length, key, value). Most of a span's values are the same on
 * every call of a grant (the method, the tool, the protocol version, the upstream's
 * address, the coverage of a fixed answer): their bytes are copied, not sized and written
 * again (issue 40). A value that changes every call (a request id) costs one comparison
 * and keeps nothing; one entry a key, and as many keys as keyBytes keeps.
 */
interface LastValue {
  value: AttributeValue;
  field: Buffer | undefined;
}
const lastValues = new Map<string, LastValue>();

/** The KeyValue field (Span field 9) of `key` = `value`, tag and length included. */
function encodeField(key: string, value: AttributeValue): Buffer {
  const strBytes = typeof value === 'string' ? utf8Length(value) : 0;
  const keyB = encodedKey(key);
  const any = anyValueSize(value, strBytes);
  const kv = keyB.length + 1 + lenField(any);
  const out = Buffer.allocUnsafe(1 + lenField(kv));
  const w = new Writer(out);
  w.tag(9, LEN);
  w.varint(kv);
  w.raw(keyB);
  w.tag(2, LEN);
  w.varint(any);
  writeAnyValue(w, value, strBytes);
  return out;
}

function attributesSize(span: EncodableSpan, at: number): number {
  const keys = span.attributeKeys;
  const values = span.attributeValues;
  let size = 0;
  for (let i = 0; i < keys.length; i++) {
    const value = values[i]!;
    const last = lastValues.get(keys[i]!);
    if (last !== undefined && last.value === value) {
      last.field ??= encodeField(keys[i]!, value);
      fieldScratch[at + i] = last.field;
      size += last.field.length;
      continue;
    }
    if (last !== undefined) {
      last.value = value;
      last.field = undefined;
    } else if (lastValues.size < 1024) {
      lastValues.set(keys[i]!, { value, field: undefined });
    }
    fieldScratch[at + i] = undefined;
    const strBytes = typeof value === 'string' ? utf8Length(value) : 0;
    valueBytes[at + i] = strBytes;
    const key = encodedKey(keys[i]!);
    keyScratch[at + i] = key;
    const kv = key.length + 1 + lenField(anyValueSize(value, strBytes));
    size += 1 + lenField(kv);
  }
  return size;
}

/** The flags field: W3C flags, and whether the parent's remoteness is known and true. */
const spanFlags = (span: EncodableSpan): number =>
  (span.traceFlags & 0xff) | 0x100 | (span.parentIsRemote ? 0x200 : 0);

/** A Span message's body size; its string lengths are left in valueBytes from `at`. */
function spanSize(span: EncodableSpan, stateBytes: number, nameBytes: number, at: number): number {
  let size = 2 + 16 + 2 + 8; // trace_id, span_id
  if (stateBytes > 0) size += 1 + lenField(stateBytes);
  if (span.parentSpanId !== undefined) size += 2 + 8;
  size += 1 + lenField(nameBytes);
  if (span.otlpKind !== 0) size += 2;
  size += 2 * 9; // start and end, fixed64
  size += attributesSize(span, at);
  size += 1 + varintSize(span.droppedAttributes);
  size += 2 + 2; // dropped_events_count, dropped_links_count: 0
  size += 1 + lenField(statusSize(span.statusCode));
  size += 2 + 4; // flags (field 16: a two-byte tag)
  return size;
}

const statusSize = (code: number): number => 1 + varintSize(code);

function writeSpan(
  w: Writer,
  span: EncodableSpan,
  size: number,
  stateBytes: number,
  nameBytes: number,
  at: number,
): void {
  w.tag(2, LEN);
  w.varint(size);
  w.tag(1, LEN);
  w.hex(span.traceId);
  w.tag(2, LEN);
  w.hex(span.spanId);
  if (stateBytes > 0) {
    w.tag(3, LEN);
    w.string(span.traceStateText, stateBytes);
  }
  if (span.parentSpanId !== undefined) {
    w.tag(4, LEN);
    w.hex(span.parentSpanId);
  }
  w.tag(5, LEN);
  w.string(span.name, nameBytes);
  if (span.otlpKind !== 0) {
    w.tag(6, VARINT);
    w.varint(span.otlpKind);
  }
  w.tag(7, I64);
  w.epochNanos(span.startMs);
  w.tag(8, I64);
  w.epochNanos(span.endMs);
  const keys = span.attributeKeys;
  const values = span.attributeValues;
  for (let i = 0; i < keys.length; i++) {
    const field = fieldScratch[at + i];
    if (field !== undefined) {
      w.raw(field);
      continue;
    }
    const key = keyScratch[at + i]!;
    const value = values[i]!;
    const strBytes = valueBytes[at + i]!;
    const any = anyValueSize(value, strBytes);
    w.tag(9, LEN);
    w.varint(key.length + 1 + varintSize(any) + any);
    w.raw(key);
    w.tag(2, LEN);
    w.varint(any);
    writeAnyValue(w, value, strBytes);
  }
  w.tag(10, VARINT);
  w.varint(span.droppedAttributes);
  w.tag(12, VARINT);
  w.varint(0);
  w.tag(14, VARINT);
  w.varint(0);
  w.tag(15, LEN);
  w.varint(statusSize(span.statusCode));
  w.tag(3, VARINT);
  w.varint(span.statusCode);
  w.tag(16, I32);
  w.fixed32(spanFlags(span));
}

function writeAnyValue(w: Writer, value: unknown, strBytes: number): void {
  if (typeof value === 'string') {
    w.tag(1, LEN);
    w.string(value, strBytes);
  } else if (typeof value === 'boolean') {
    w.tag(2, VARINT);
    w.varint(value ? 1 : 0);
  } else if (
    typeof value === 'number' &&
    Number.isInteger(value) &&
    value >= MIN_INT64 &&
    value < MAX_INT64
  ) {
    w.tag(3, VARINT);
    w.int64(value);
  } else {
    w.tag(4, I64);
    w.double(value as number);
  }
}

/** Resource and scope: encoded once per EncodingScope, as they are on every export. */
const headers = new WeakMap<EncodingScope, { resource: Buffer; scope: Buffer }>();

/**
 * The Resource message (ResourceSpans field 1, tag and length included), from the SDK
 * Resource's attributes: strings, numbers and booleans, as the resource holds. An
 * attribute of another type is left out (the resource never holds one).
 */
function encodeResource(attributes: Readonly<Record<string, unknown>>): Buffer {
  let body = 0;
  const entries: [Buffer, AttributeValue, number, number][] = [];
  for (const key in attributes) {
    const value = attributes[key];
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean')
      continue;
    const keyB = encodedKey(key);
    const strBytes = typeof value === 'string' ? utf8Length(value) : 0;
    const any = anyValueSize(value, strBytes);
    const kv = keyB.length + 1 + lenField(any);
    entries.push([keyB, value, strBytes, kv]);
    body += 1 + lenField(kv);
  }
  body += 2; // dropped_attributes_count: 0
  const out = Buffer.allocUnsafe(1 + lenField(body));
  const w = new Writer(out);
  w.tag(1, LEN);
  w.varint(body);
  for (const [keyB, value, strBytes, kv] of entries) {
    w.tag(1, LEN);
    w.varint(kv);
    w.raw(keyB);
    w.tag(2, LEN);
    w.varint(anyValueSize(value, strBytes));
    writeAnyValue(w, value, strBytes);
  }
  w.tag(2, VARINT);
  w.varint(0);
  return out;
}

/** The InstrumentationScope message (ScopeSpans field 1, tag and length included). */
function encodeScope(name: string, version: string | undefined): Buffer {
  const nameBytes = utf8Length(name);
  const versionBytes = version ? utf8Length(version) : 0;
  const body = 1 + lenField(nameBytes) + (version ? 1 + lenField(versionBytes) : 0);
  const out = Buffer.allocUnsafe(1 + lenField(body));
  const w = new Writer(out);
  w.tag(1, LEN);
  w.varint(body);
  w.tag(1, LEN);
  w.string(name, nameBytes);
  if (version) {
    w.tag(2, LEN);
    w.string(version, versionBytes);
  }
  return out;
}

function headersOf(scope: EncodingScope): { resource: Buffer; scope: Buffer } {
  let h = headers.get(scope);
  if (h === undefined) {
    h = {
      resource: encodeResource(scope.resourceAttributes),
      scope: encodeScope(scope.scopeName, scope.scopeVersion),
    };
    headers.set(scope, h);
  }
  return h;
}

/**
 * One ExportTraceServiceRequest of `spans`, all of `scope`'s resource and instrumentation
 * scope (the gateway has one of each). Empty for no spans, as the SDK's serializer.
 */
export function encodeTraceRequest(
  spans: readonly EncodableSpan[],
  scope: EncodingScope,
): Uint8Array | undefined {
  if (spans.length === 0) return new Uint8Array(0);
  // The sizes pass: each span's size, name and tracestate lengths; string attribute
  // values' lengths in valueBytes, from each span's offset.
  const n = spans.length;
  const sizes = new Int32Array(n * 4);
  let attributeCount = 0;
  for (const span of spans) attributeCount += span.attributeKeys.length;
  scratchFor(attributeCount);
  let spansBytes = 0;
  let at = 0;
  for (let i = 0; i < n; i++) {
    const span = spans[i]!;
    const stateBytes = span.traceStateText === '' ? 0 : utf8Length(span.traceStateText);
    const nameBytes = utf8Length(span.name);
    const size = spanSize(span, stateBytes, nameBytes, at);
    sizes[i * 4] = size;
    sizes[i * 4 + 1] = stateBytes;
    sizes[i * 4 + 2] = nameBytes;
    sizes[i * 4 + 3] = at;
    at += span.attributeKeys.length;
    spansBytes += 1 + lenField(size);
  }
  return encodeRequest(scope, spansBytes, (w) => {
    for (let i = 0; i < n; i++)
      writeSpan(
        w,
        spans[i]!,
        sizes[i * 4]!,
        sizes[i * 4 + 1]!,
        sizes[i * 4 + 2]!,
        sizes[i * 4 + 3]!,
      );
  });
}

/**
 * The request around `spansBytes` of Span messages (tags and lengths included), which
 * `writeSpans` writes where they go: the resource and scope headers before, the schema
 * URLs after.
 */
/** The sizes an ExportTraceServiceRequest of `spansBytes` bytes of spans is framed with. */
interface RequestLayout {
  readonly resource: Buffer;
  readonly scope: Buffer;
  readonly scopeUrl: string;
  readonly scopeUrlBytes: number;
  readonly resourceUrl: string;
  readonly resourceUrlBytes: number;
  readonly scopeSpans: number;
  readonly resourceSpans: number;
  /** The request's bytes before the spans, and after them. */
  readonly head: number;
  readonly tail: number;
}

function requestLayout(scope: EncodingScope, spansBytes: number): RequestLayout {
  const { resource, scope: scopeBytes } = headersOf(scope);
  const scopeUrl = scope.scopeSchemaUrl ?? '';
  const scopeUrlBytes = scopeUrl ? utf8Length(scopeUrl) : 0;
  const scopeTail = scopeUrl ? 1 + lenField(scopeUrlBytes) : 0;
  const scopeSpans = scopeBytes.length + spansBytes + scopeTail;
  const resourceUrl = scope.resourceSchemaUrl ?? '';
  const resourceUrlBytes = resourceUrl ? utf8Length(resourceUrl) : 0;
  const resourceTail = resourceUrl ? 1 + lenField(resourceUrlBytes) : 0;
  const resourceSpans = resource.length + 1 + lenField(scopeSpans) + resourceTail;
  const total = 1 + lenField(resourceSpans);
  const tail = scopeTail + resourceTail;
  return {
    resource,
    scope: scopeBytes,
    scopeUrl,
    scopeUrlBytes,
    resourceUrl,
    resourceUrlBytes,
    scopeSpans,
    resourceSpans,
    head: total - spansBytes - tail,
    tail,
  };
}

/** ExportTraceServiceRequest.resource_spans, ResourceSpans up to ScopeSpans' spans. */
function writeHead(w: Writer, l: RequestLayout): void {
  w.tag(1, LEN);
  w.varint(l.resourceSpans);
  w.raw(l.resource);
  w.tag(2, LEN);
  w.varint(l.scopeSpans);
  w.raw(l.scope);
}

/** The schema URLs of the scope and the resource, after the spans. */
function writeTail(w: Writer, l: RequestLayout): void {
  if (l.scopeUrl) {
    w.tag(3, LEN);
    w.string(l.scopeUrl, l.scopeUrlBytes);
  }
  if (l.resourceUrl) {
    w.tag(3, LEN);
    w.string(l.resourceUrl, l.resourceUrlBytes);
  }
}

function encodeRequest(
  scope: EncodingScope,
  spansBytes: number,
  writeSpans: (w: Writer) => void,
): Buffer {
  const layout = requestLayout(scope, spansBytes);
  const out = Buffer.allocUnsafe(layout.head + spansBytes + layout.tail);
  const w = new Writer(out);
  writeHead(w, layout);
  writeSpans(w);
  writeTail(w, layout);
  if (w.pos !== out.length) throw new Error(`OTLP encoder: wrote ${w.pos} of ${out.length} bytes`);
  return out;
}

// ---- a span at a time (span-batcher.ts) ---------------------------------------------

/**
 * The Span messages of one batch, encoded as each span ended (ScopeSpans field 2, tag
 * and length included), back to back in one buffer outside the JavaScript heap: what a
 * queued span costs the garbage collector is nothing, where a span record waiting for
 * its export was copied by every young-generation collection until it was promoted
 * (issue 40). The buffer grows by doubling and is reused once its batch is exported.
 */
export class EncodedSpans {
  buf: Buffer;
  /** Bytes written. */
  length = 0;
  /** Spans written. */
  count = 0;

  constructor(capacity: number) {
    this.buf = Buffer.allocUnsafeSlow(capacity);
  }

  /** Empty again, for the next batch: the buffer is kept. */
  clear(): void {
    this.length = 0;
    this.count = 0;
  }

  /** Room for `bytes` more: a buffer twice as large (or more) with what is written. */
  reserve(bytes: number): void {
    const need = this.length + bytes;
    if (need <= this.buf.length) return;
    const grown = Buffer.allocUnsafeSlow(Math.max(need, this.buf.length * 2));
    this.buf.copy(grown, 0, 0, this.length);
    this.buf = grown;
  }
}

const EMPTY = Buffer.alloc(0);
/** One writer for every span: a span is encoded in one go, so it is never shared. */
const spanWriter = new Writer(EMPTY);

/** Appends `span`'s Span message to `into`: the bytes encodeTraceRequest writes for it. */
export function encodeSpanInto(span: EncodableSpan, into: EncodedSpans): void {
  const stateBytes = span.traceStateText === '' ? 0 : utf8Length(span.traceStateText);
  const nameBytes = utf8Length(span.name);
  scratchFor(span.attributeKeys.length);
  const size = spanSize(span, stateBytes, nameBytes, 0);
  into.reserve(1 + lenField(size));
  const w = spanWriter;
  w.buf = into.buf;
  w.pos = into.length;
  writeSpan(w, span, size, stateBytes, nameBytes, 0);
  into.length = w.pos;
  into.count++;
  // Not left holding the batch's buffer once it is exported.
  w.buf = EMPTY;
}

/**
 * One ExportTraceServiceRequest of spans encoded one at a time: byte for byte what
 * encodeTraceRequest writes for the same spans (and so what the SDK's serializer writes).
 */
export function encodeEncodedRequest(spans: EncodedSpans, scope: EncodingScope): Uint8Array {
  if (spans.count === 0) return new Uint8Array(0);
  return encodeRequest(scope, spans.length, (w) => {
    spans.buf.copy(w.buf, w.pos, 0, spans.length);
    w.pos += spans.length;
  });
}

/**
 * The request of encodeEncodedRequest in three parts, sent one after the other: the
 * framing before the spans, the batch's bytes themselves (a view of its buffer, not a
 * copy: the exporter holds the batch until its export ends, span-batcher.ts), and the
 * framing after them (empty without schema URLs). A batch's 200 KB copied into a fresh
 * buffer was a third of what the POST of it cost (issue 40, bench/RESULTS.md).
 */
export function encodedRequestParts(spans: EncodedSpans, scope: EncodingScope): Buffer[] {
  if (spans.count === 0) return [];
  const layout = requestLayout(scope, spans.length);
  const head = new Writer(Buffer.allocUnsafe(layout.head));
  writeHead(head, layout);
  const tail = new Writer(Buffer.allocUnsafe(layout.tail));
  writeTail(tail, layout);
  if (head.pos !== layout.head || tail.pos !== layout.tail)
    throw new Error('OTLP encoder: the framing is not the size it was measured');
  const batch = spans.buf.subarray(0, spans.length);
  return layout.tail > 0 ? [head.buf, batch, tail.buf] : [head.buf, batch];
}
