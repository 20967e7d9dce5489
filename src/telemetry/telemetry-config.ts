/**
 * Whether OTLP export is on, and how, from the standard OpenTelemetry variables and
 * `serve --otlp <url>` (docs/observability.md, "Switching it on"). A pure function of the
 * environment: no SDK is loaded to read it (load-telemetry.ts), and a bad value stops
 * start-up with the variable's name. Header values are never echoed: they hold collector
 * credentials.
 */
import type { Env } from '../process/env.js';
import { StartupError } from '../process/startup-error.js';

export type OtlpProtocol = 'http/protobuf' | 'http/json' | 'grpc';

/** Where one signal goes. */
export interface SignalExport {
  /**
   * Over HTTP, the full URL the exporter POSTs to (…/v1/traces, …/v1/metrics); over
   * gRPC, the collector's address as given (`http://collector:4317`): gRPC names the
   * service in its own path, so no signal path is appended.
   */
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly protocol: OtlpProtocol;
  readonly timeoutMs: number;
  /**
   * OTEL_EXPORTER_OTLP_{SIGNAL_}COMPRESSION read as the SDK's HTTP exporters read it
   * (the signal's own variable first; `none` or `gzip`, anything else ignored): present
   * only when it asks for gzip. Read for the http/protobuf span export
   * (otlp-span-exporter.ts); the SDK's other exporters read the variables themselves.
   */
  readonly compression?: 'gzip';
  /**
   * The PEM files an https collector is reached with, paths as given (relative to the
   * working directory): OTEL_EXPORTER_OTLP_{SIGNAL_}CERTIFICATE (trusted roots),
   * _CLIENT_KEY and _CLIENT_CERTIFICATE (mutual TLS), the signal's own variable first,
   * as the SDK's HTTP exporters read them. Only the set ones are present.
   */
  readonly tls?: Readonly<TlsFiles>;
}

export interface TlsFiles {
  certificate?: string;
  clientKey?: string;
  clientCertificate?: string;
}

export interface SamplerConfig {
  readonly root: 'always_on' | 'always_off' | 'traceidratio';
  /** parentbased_*: a sampled parent is followed, an unsampled one too. */
  readonly parentBased: boolean;
  /** For traceidratio: the fraction of root traces kept, 0..1. */
  readonly ratio: number;
}

export interface BatchConfig {
  readonly maxQueueSize: number;
  readonly maxExportBatchSize: number;
  readonly scheduledDelayMs: number;
  readonly exportTimeoutMs: number;
}

export interface TelemetryConfig {
  /** OTEL_SERVICE_NAME, else OTEL_RESOURCE_ATTRIBUTES' service.name, else mcp-beaver. */
  readonly serviceName: string;
  /** OTEL_RESOURCE_ATTRIBUTES, decoded: added to the resource (otel-telemetry.ts). */
  readonly resourceAttributes: Readonly<Record<string, string>>;
  /** Absent: this signal is not exported (no endpoint for it, or its exporter is `none`). */
  readonly traces?: SignalExport;
  readonly metrics?: SignalExport;
  readonly sampler: SamplerConfig;
  readonly batch: BatchConfig;
  readonly metricIntervalMs: number;
  readonly metricTimeoutMs: number;
}

const DEFAULT_SERVICE_NAME = 'mcp-beaver';

type Signal = 'traces' | 'metrics';

function bad(variable: string, why: string): StartupError {
  return new StartupError(`${variable} ${why}`);
}

function nonEmpty(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

function httpUrl(value: string, variable: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    // The value itself is not repeated: a URL may carry userinfo.
    throw bad(variable, 'is not a URL (expected something like http://collector:4318)');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw bad(variable, `must be an http:// or https:// URL, not ${url.protocol}`);
  return url;
}

/**
 * A gRPC collector's address with its port always written: the gRPC exporter keeps only
 * the host and port of the URL, and a URL drops its scheme's default port
 * (`http://collector:80` is `http://collector/`), which gRPC would then dial on 443.
 */
function grpcAddress(url: URL): string {
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return `${url.protocol}//${url.hostname}:${port}`;
}

/**
 * The base endpoint + the signal path, as the OTLP exporter specification appends it
 * over HTTP; over gRPC the base is the address itself.
 */
function withSignalPath(
  base: string,
  variable: string,
  signal: Signal,
  protocol: OtlpProtocol,
): string {
  const url = httpUrl(base, variable);
  if (protocol === 'grpc') return grpcAddress(url);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/v1/${signal}`;
  return url.toString();
}

/**
 * `key=value,key2=value2`, values percent-encoded (the W3C baggage form the OTel
 * specification uses for OTEL_EXPORTER_OTLP_HEADERS and OTEL_RESOURCE_ATTRIBUTES); `keyOf`
 * checks and spells an entry's raw key. A value is never shown in an error, whatever is
 * wrong: headers hold collector credentials.
 */
function parseList(
  value: string | undefined,
  variable: string,
  keyOf: (raw: string, entry: number) => string,
): Record<string, string> {
  const out: Record<string, string> = {};
  if (value === undefined) return out;
  value.split(',').forEach((entry, i) => {
    if (entry.trim() === '') return;
    const eq = entry.indexOf('=');
    const key = keyOf(eq > 0 ? entry.slice(0, eq).trim() : '', i + 1);
    try {
      out[key] = decodeURIComponent(entry.slice(eq + 1).trim());
    } catch {
      throw bad(variable, `the value of ${key} is not valid percent-encoding`);
    }
  });
  return out;
}

function parseHeaders(value: string | undefined, variable: string): Record<string, string> {
  return parseList(value, variable, (key, entry) => {
    // A header name is a token.
    if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(key))
      throw bad(variable, `entry ${entry} is not key=value with a header name as the key`);
    return key.toLowerCase();
  });
}

/** OTEL_RESOURCE_ATTRIBUTES: keys percent-decoded too, none empty. */
function parseResourceAttributes(env: Env): Record<string, string> {
  const variable = 'OTEL_RESOURCE_ATTRIBUTES';
  return parseList(env[variable], variable, (raw, entry) => {
    let key = '';
    try {
      key = decodeURIComponent(raw);
    } catch {
      // Reported below as a malformed entry.
    }
    if (key === '') throw bad(variable, `entry ${entry} is not key=value with a non-empty key`);
    return key;
  });
}

function parseProtocol(value: string | undefined, variable: string): OtlpProtocol | undefined {
  if (value === undefined) return undefined;
  if (value === 'http/protobuf' || value === 'http/json' || value === 'grpc') return value;
  throw bad(variable, `is ${JSON.stringify(value)}: use http/protobuf, http/json or grpc`);
}

function parseCount(
  env: Env,
  variable: string,
  fallback: number,
  { min }: { min: number } = { min: 1 },
): number {
  const raw = nonEmpty(env, variable);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min)
    throw bad(
      variable,
      `is ${JSON.stringify(raw)}: expected a whole number${min > 0 ? ` ≥ ${min}` : ''}`,
    );
  return n;
}

function parseSampler(env: Env): SamplerConfig {
  const name = nonEmpty(env, 'OTEL_TRACES_SAMPLER') ?? 'parentbased_always_on';
  const parentBased = name.startsWith('parentbased_');
  const root = parentBased ? name.slice('parentbased_'.length) : name;
  if (root !== 'always_on' && root !== 'always_off' && root !== 'traceidratio')
    throw bad(
      'OTEL_TRACES_SAMPLER',
      `is ${JSON.stringify(name)}: use always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off or parentbased_traceidratio`,
    );
  let ratio = 1;
  const arg = nonEmpty(env, 'OTEL_TRACES_SAMPLER_ARG');
  if (root === 'traceidratio' && arg !== undefined) {
    ratio = Number(arg);
    if (!Number.isFinite(ratio) || ratio < 0 || ratio > 1)
      throw bad('OTEL_TRACES_SAMPLER_ARG', `is ${JSON.stringify(arg)}: expected a ratio 0..1`);
  }
  return { root, parentBased, ratio };
}

/** A variable's raw value, blank as unset (the SDK's getStringFromEnv). */
function given(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value;
}

/** The SDK's reading: a value other than none/gzip counts as unset (it only warns). */
function compressionOf(env: Env, SIGNAL: string): 'gzip' | undefined {
  const read = (name: string): 'none' | 'gzip' | undefined => {
    const value = given(env, name)?.trim();
    return value === 'none' || value === 'gzip' ? value : undefined;
  };
  const compression =
    read(`OTEL_EXPORTER_OTLP_${SIGNAL}_COMPRESSION`) ?? read('OTEL_EXPORTER_OTLP_COMPRESSION');
  return compression === 'gzip' ? compression : undefined;
}

function tlsFilesOf(env: Env, SIGNAL: string): TlsFiles | undefined {
  const files: TlsFiles = {};
  for (const [field, suffix] of [
    ['certificate', 'CERTIFICATE'],
    ['clientKey', 'CLIENT_KEY'],
    ['clientCertificate', 'CLIENT_CERTIFICATE'],
  ] as const) {
    const path =
      given(env, `OTEL_EXPORTER_OTLP_${SIGNAL}_${suffix}`) ??
      given(env, `OTEL_EXPORTER_OTLP_${suffix}`);
    if (path !== undefined) files[field] = path;
  }
  return Object.keys(files).length > 0 ? files : undefined;
}

function signalExport(
  env: Env,
  signal: Signal,
  otlpFlag: string | undefined,
): SignalExport | undefined {
  const SIGNAL = signal.toUpperCase();
  const exporter = nonEmpty(env, `OTEL_${SIGNAL}_EXPORTER`);
  if (exporter === 'none') return undefined;
  const specific = nonEmpty(env, `OTEL_EXPORTER_OTLP_${SIGNAL}_ENDPOINT`);
  const base = nonEmpty(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  // The signal's own variable is the most specific; then the flag; then the shared base.
  const [given, variable] =
    specific !== undefined
      ? [specific, `OTEL_EXPORTER_OTLP_${SIGNAL}_ENDPOINT`]
      : otlpFlag !== undefined
        ? [otlpFlag, '--otlp']
        : [base, 'OTEL_EXPORTER_OTLP_ENDPOINT'];
  if (given === undefined) return undefined;
  // Read first: it decides whether the signal path is appended to a base URL.
  const protocol =
    parseProtocol(
      nonEmpty(env, `OTEL_EXPORTER_OTLP_${SIGNAL}_PROTOCOL`),
      `OTEL_EXPORTER_OTLP_${SIGNAL}_PROTOCOL`,
    ) ??
    parseProtocol(nonEmpty(env, 'OTEL_EXPORTER_OTLP_PROTOCOL'), 'OTEL_EXPORTER_OTLP_PROTOCOL') ??
    'http/protobuf';
  // A signal's own endpoint is used as given, a base gets the signal's path (over HTTP).
  const url =
    specific === undefined
      ? withSignalPath(given, variable, signal, protocol)
      : protocol === 'grpc'
        ? grpcAddress(httpUrl(given, variable))
        : httpUrl(given, variable).toString();
  const headers = {
    ...parseHeaders(env.OTEL_EXPORTER_OTLP_HEADERS, 'OTEL_EXPORTER_OTLP_HEADERS'),
    ...parseHeaders(
      env[`OTEL_EXPORTER_OTLP_${SIGNAL}_HEADERS`],
      `OTEL_EXPORTER_OTLP_${SIGNAL}_HEADERS`,
    ),
  };
  const timeoutMs = parseCount(
    env,
    `OTEL_EXPORTER_OTLP_${SIGNAL}_TIMEOUT`,
    parseCount(env, 'OTEL_EXPORTER_OTLP_TIMEOUT', 10_000),
  );
  const compression = protocol === 'grpc' ? undefined : compressionOf(env, SIGNAL);
  const tls = protocol === 'grpc' ? undefined : tlsFilesOf(env, SIGNAL);
  return {
    url,
    headers,
    protocol,
    timeoutMs,
    ...(compression && { compression }),
    ...(tls && { tls }),
  };
}

/**
 * The export configuration, or undefined when telemetry is off: no endpoint variable
 * and no `--otlp`, or `OTEL_SDK_DISABLED=true`. Throws a StartupError naming the
 * variable whose value is wrong.
 */
export function telemetryConfigFrom(env: Env, otlpFlag?: string): TelemetryConfig | undefined {
  if (nonEmpty(env, 'OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return undefined;
  const traces = signalExport(env, 'traces', otlpFlag);
  const metrics = signalExport(env, 'metrics', otlpFlag);
  if (!traces && !metrics) return undefined;
  const maxQueueSize = parseCount(env, 'OTEL_BSP_MAX_QUEUE_SIZE', 2048);
  const maxExportBatchSize = parseCount(env, 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE', 512);
  if (maxExportBatchSize > maxQueueSize)
    throw bad(
      'OTEL_BSP_MAX_EXPORT_BATCH_SIZE',
      `(${maxExportBatchSize}) must not exceed OTEL_BSP_MAX_QUEUE_SIZE (${maxQueueSize})`,
    );
  const metricIntervalMs = parseCount(env, 'OTEL_METRIC_EXPORT_INTERVAL', 60_000);
  const resourceAttributes = parseResourceAttributes(env);
  return {
    // The OTel specification's order: the variable of its own wins over the list.
    serviceName:
      nonEmpty(env, 'OTEL_SERVICE_NAME') ??
      (resourceAttributes['service.name'] || undefined) ??
      DEFAULT_SERVICE_NAME,
    resourceAttributes,
    ...(traces && { traces }),
    ...(metrics && { metrics }),
    sampler: parseSampler(env),
    batch: {
      maxQueueSize,
      maxExportBatchSize,
      scheduledDelayMs: parseCount(env, 'OTEL_BSP_SCHEDULE_DELAY', 5_000, { min: 0 }),
      exportTimeoutMs: parseCount(env, 'OTEL_BSP_EXPORT_TIMEOUT', 30_000),
    },
    metricIntervalMs,
    // The reader refuses a timeout longer than its interval: the export must end first.
    metricTimeoutMs: Math.min(
      metricIntervalMs,
      parseCount(env, 'OTEL_METRIC_EXPORT_TIMEOUT', 30_000),
    ),
  };
}
