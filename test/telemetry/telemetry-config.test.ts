import { describe, expect, it } from 'vitest';
import { StartupError } from '../../src/process/startup-error.js';
import { telemetryConfigFrom } from '../../src/telemetry/telemetry-config.js';

function refusal(env: Record<string, string>, flag?: string): StartupError {
  try {
    telemetryConfigFrom(env, flag);
  } catch (err) {
    if (err instanceof StartupError) return err;
    throw err;
  }
  throw new Error('expected a StartupError');
}

describe('telemetryConfigFrom', () => {
  it('is off without an endpoint variable or --otlp, whatever else is set', () => {
    expect(telemetryConfigFrom({})).toBeUndefined();
    expect(
      telemetryConfigFrom({ OTEL_SERVICE_NAME: 'x', OTEL_TRACES_SAMPLER: 'always_on' }),
    ).toBeUndefined();
    expect(
      telemetryConfigFrom({ OTEL_EXPORTER_OTLP_ENDPOINT: '  ', OTEL_SDK_DISABLED: 'false' }),
    ).toBeUndefined();
  });

  it('appends the signal paths to OTEL_EXPORTER_OTLP_ENDPOINT, with the defaults', () => {
    const config = telemetryConfigFrom({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' });
    expect(config).toEqual({
      serviceName: 'mcp-beaver',
      resourceAttributes: {},
      traces: {
        url: 'http://collector:4318/v1/traces',
        headers: {},
        protocol: 'http/protobuf',
        timeoutMs: 10_000,
      },
      metrics: {
        url: 'http://collector:4318/v1/metrics',
        headers: {},
        protocol: 'http/protobuf',
        timeoutMs: 10_000,
      },
      sampler: { root: 'always_on', parentBased: true, ratio: 1 },
      batch: {
        maxQueueSize: 2048,
        maxExportBatchSize: 512,
        scheduledDelayMs: 5_000,
        exportTimeoutMs: 30_000,
      },
      metricIntervalMs: 60_000,
      metricTimeoutMs: 30_000,
    });
  });

  it('--otlp is a base URL like the variable, and beats it; a signal’s own endpoint is used as given', () => {
    const config = telemetryConfigFrom(
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://ignored:4318',
        OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'https://metrics.example/custom',
      },
      'http://127.0.0.1:4318/otlp',
    );
    expect(config?.traces?.url).toBe('http://127.0.0.1:4318/otlp/v1/traces');
    expect(config?.metrics?.url).toBe('https://metrics.example/custom');
  });

  it('exports only the signals that have an endpoint, or whose exporter is not none', () => {
    const tracesOnly = telemetryConfigFrom({
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces',
    });
    expect(tracesOnly?.traces?.url).toBe('http://c:4318/v1/traces');
    expect(tracesOnly?.metrics).toBeUndefined();
    const noMetrics = telemetryConfigFrom({ OTEL_METRICS_EXPORTER: 'none' }, 'http://c:4318');
    expect(noMetrics?.metrics).toBeUndefined();
    expect(noMetrics?.traces).toBeDefined();
    expect(
      telemetryConfigFrom(
        { OTEL_TRACES_EXPORTER: 'none', OTEL_METRICS_EXPORTER: 'none' },
        'http://c:4318',
      ),
    ).toBeUndefined();
  });

  it('reads headers, per-signal ones over the shared ones, values percent-decoded', () => {
    const config = telemetryConfigFrom({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
      OTEL_EXPORTER_OTLP_HEADERS: 'Authorization=Bearer%20abc, x-tenant=t1',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-tenant=t2',
    });
    expect(config?.traces?.headers).toEqual({ authorization: 'Bearer abc', 'x-tenant': 't2' });
    expect(config?.metrics?.headers).toEqual({ authorization: 'Bearer abc', 'x-tenant': 't1' });
  });

  it('reads compression and the TLS files as the SDK’s HTTP exporters do, a signal’s own variable first', () => {
    const config = telemetryConfigFrom({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'https://c:4318',
      OTEL_EXPORTER_OTLP_COMPRESSION: 'gzip',
      OTEL_EXPORTER_OTLP_METRICS_COMPRESSION: 'none',
      OTEL_EXPORTER_OTLP_CERTIFICATE: 'ca.pem',
      OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE: 'traces-ca.pem',
      OTEL_EXPORTER_OTLP_CLIENT_KEY: 'key.pem',
      OTEL_EXPORTER_OTLP_TRACES_CLIENT_CERTIFICATE: ' ',
    });
    expect(config?.traces?.compression).toBe('gzip');
    expect(config?.traces?.tls).toEqual({ certificate: 'traces-ca.pem', clientKey: 'key.pem' });
    expect(config?.metrics?.compression).toBeUndefined();
    expect(config?.metrics?.tls).toEqual({ certificate: 'ca.pem', clientKey: 'key.pem' });
    // A value the SDK does not know counts as unset there: the shared variable decides.
    const odd = telemetryConfigFrom({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
      OTEL_EXPORTER_OTLP_TRACES_COMPRESSION: 'brotli',
      OTEL_EXPORTER_OTLP_COMPRESSION: ' gzip ',
    });
    expect(odd?.traces?.compression).toBe('gzip');
    expect(odd?.traces?.tls).toBeUndefined();
  });

  it('refuses a bad header entry by the variable and never repeats the value', () => {
    const err = refusal({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
      OTEL_EXPORTER_OTLP_HEADERS: 'authorization=ok,secret-token-without-a-key',
    });
    expect(err.message).toContain('OTEL_EXPORTER_OTLP_HEADERS');
    expect(err.message).toContain('entry 2');
    expect(err.message).not.toContain('secret-token');
    const encoding = refusal({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
      OTEL_EXPORTER_OTLP_METRICS_HEADERS: 'authorization=hunter2%zz',
    });
    expect(encoding.message).toContain('OTEL_EXPORTER_OTLP_METRICS_HEADERS');
    expect(encoding.message).not.toContain('hunter2');
  });

  it('takes http/json and grpc, per signal too, and refuses anything else by name', () => {
    const config = telemetryConfigFrom({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'grpc',
    });
    expect(config?.traces?.protocol).toBe('http/json');
    expect(config?.metrics?.protocol).toBe('grpc');
    expect(
      refusal({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'udp',
      }).message,
    ).toMatch(
      /^OTEL_EXPORTER_OTLP_TRACES_PROTOCOL is "udp": use http\/protobuf, http\/json or grpc/,
    );
  });

  it('over grpc sends to the base address as given: gRPC names the service, not a /v1 path', () => {
    const config = telemetryConfigFrom({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4317',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'http/protobuf',
    });
    expect(config?.traces).toMatchObject({ url: 'http://collector:4317', protocol: 'grpc' });
    // The other signal over HTTP still gets its path appended to the same base.
    expect(config?.metrics?.url).toBe('http://collector:4317/v1/metrics');
    const flag = telemetryConfigFrom({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, 'http://c:4317');
    expect(flag?.traces?.url).toBe('http://c:4317');
    expect(flag?.metrics?.url).toBe('http://c:4317');
    // The scheme's default port is written out: gRPC would otherwise dial 443.
    const defaults = telemetryConfigFrom({
      OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:80/ignored',
      OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'https://collector',
    });
    expect(defaults?.traces?.url).toBe('http://collector:80');
    expect(defaults?.metrics?.url).toBe('https://collector:443');
  });

  it('refuses an endpoint that is not an http(s) URL, naming where it came from', () => {
    expect(refusal({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318x' }).message).toMatch(
      /^OTEL_EXPORTER_OTLP_ENDPOINT must be an http/,
    );
    expect(refusal({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'not a url' }).message).toMatch(
      /^OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is not a URL/,
    );
    expect(refusal({}, 'ftp://c').message).toMatch(/^--otlp must be an http/);
  });

  it('reads the sampler and its ratio', () => {
    const on = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' };
    expect(
      telemetryConfigFrom({
        ...on,
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.25',
      })?.sampler,
    ).toEqual({ root: 'traceidratio', parentBased: true, ratio: 0.25 });
    expect(telemetryConfigFrom({ ...on, OTEL_TRACES_SAMPLER: 'always_off' })?.sampler).toEqual({
      root: 'always_off',
      parentBased: false,
      ratio: 1,
    });
    expect(refusal({ ...on, OTEL_TRACES_SAMPLER: 'jaeger_remote' }).message).toMatch(
      /^OTEL_TRACES_SAMPLER is "jaeger_remote"/,
    );
    expect(
      refusal({ ...on, OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '2' }).message,
    ).toMatch(/^OTEL_TRACES_SAMPLER_ARG is "2": expected a ratio 0..1/);
  });

  it('reads the batch limits and the metric interval, and refuses what the SDK could not take', () => {
    const on = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' };
    const config = telemetryConfigFrom({
      ...on,
      OTEL_BSP_MAX_QUEUE_SIZE: '100',
      OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '10',
      OTEL_BSP_SCHEDULE_DELAY: '0',
      OTEL_BSP_EXPORT_TIMEOUT: '500',
      OTEL_METRIC_EXPORT_INTERVAL: '15000',
    });
    expect(config?.batch).toEqual({
      maxQueueSize: 100,
      maxExportBatchSize: 10,
      scheduledDelayMs: 0,
      exportTimeoutMs: 500,
    });
    expect(config?.metricIntervalMs).toBe(15_000);
    // The export timeout cannot outlast the interval.
    expect(config?.metricTimeoutMs).toBe(15_000);
    expect(refusal({ ...on, OTEL_BSP_MAX_QUEUE_SIZE: 'lots' }).message).toMatch(
      /^OTEL_BSP_MAX_QUEUE_SIZE is "lots": expected a whole number/,
    );
    expect(refusal({ ...on, OTEL_METRIC_EXPORT_INTERVAL: '0' }).message).toMatch(
      /^OTEL_METRIC_EXPORT_INTERVAL/,
    );
    expect(
      refusal({ ...on, OTEL_BSP_MAX_QUEUE_SIZE: '10', OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '20' })
        .message,
    ).toMatch(/^OTEL_BSP_MAX_EXPORT_BATCH_SIZE \(20\) must not exceed OTEL_BSP_MAX_QUEUE_SIZE/);
  });

  it('takes the service name from OTEL_SERVICE_NAME', () => {
    expect(
      telemetryConfigFrom({ OTEL_SERVICE_NAME: 'gw-prod' }, 'http://c:4318')?.serviceName,
    ).toBe('gw-prod');
  });

  it('reads OTEL_RESOURCE_ATTRIBUTES percent-decoded, its service.name under OTEL_SERVICE_NAME', () => {
    const attributes = 'team=a%2Cb%3Dc, region = eu-west ,,service.name=from-list';
    const config = telemetryConfigFrom({ OTEL_RESOURCE_ATTRIBUTES: attributes }, 'http://c:4318');
    expect(config?.resourceAttributes).toEqual({
      team: 'a,b=c',
      region: 'eu-west',
      'service.name': 'from-list',
    });
    expect(config?.serviceName).toBe('from-list');
    expect(
      telemetryConfigFrom(
        { OTEL_RESOURCE_ATTRIBUTES: attributes, OTEL_SERVICE_NAME: 'gw-prod' },
        'http://c:4318',
      )?.serviceName,
    ).toBe('gw-prod');
  });

  it('refuses a malformed OTEL_RESOURCE_ATTRIBUTES entry by the variable, without its value', () => {
    for (const [value, why] of [
      ['team=a,=orphan-value', /^OTEL_RESOURCE_ATTRIBUTES entry 2 is not key=value/],
      ['no-equals-sign-here', /^OTEL_RESOURCE_ATTRIBUTES entry 1 is not key=value/],
      ['%zz=bad-key', /^OTEL_RESOURCE_ATTRIBUTES entry 1 is not key=value/],
      ['team=bad%zzvalue', /^OTEL_RESOURCE_ATTRIBUTES the value of team is not valid/],
    ] as const) {
      const err = refusal({ OTEL_RESOURCE_ATTRIBUTES: value }, 'http://c:4318');
      expect(err.message).toMatch(why);
      expect(err.message).not.toContain(value.split('=')[1]!);
    }
  });

  it('ignores a malformed OTEL_RESOURCE_ATTRIBUTES while telemetry is off', () => {
    expect(telemetryConfigFrom({ OTEL_RESOURCE_ATTRIBUTES: '=x' })).toBeUndefined();
  });
});
