/**
 * The gateway's Telemetry, from its environment and `serve --otlp`
 * (docs/observability.md, "What it costs when off"). Off (no OTLP endpoint), this returns
 * TELEMETRY_OFF and imports nothing: the SDK is reached only through the dynamic import
 * below, so a gateway without OTLP loads no OpenTelemetry module and its cold start is
 * unchanged.
 *
 * Measured on the pinned packages (Node 20, 2-core machine, median of 5 fresh processes):
 * the 14 @opentelemetry packages take 28 MB on disk (18 MB apparent; 2.8 MB of it the
 * CommonJS builds Node loads, most of the rest semantic-conventions and esm builds), and
 * importing what an http/protobuf gateway loads (api, core, resources, sdk-trace,
 * sdk-metrics, the proto trace exporter) takes 170-220 ms, every exporter ~290 ms: paid
 * once at start, only when on. In the bundle (scripts/bundle-cli.mjs splits at dynamic
 * imports) the SDK is in chunks of its own, which `serve` without OTLP never parses.
 */
import type { Registry } from 'prom-client';
import type { Env } from '../process/env.js';
import type { TelemetryLog } from './otel-telemetry.js';
import { TELEMETRY_OFF, type Telemetry } from './telemetry.js';
import { telemetryConfigFrom } from './telemetry-config.js';

/** Throws a StartupError for a bad OTEL_* value (telemetry-config.ts). */
export async function loadTelemetry(
  env: Env,
  otlpFlag: string | undefined,
  log?: TelemetryLog,
  registry?: Registry,
): Promise<Telemetry> {
  const config = telemetryConfigFrom(env, otlpFlag);
  if (!config) return TELEMETRY_OFF;
  // Both import the SDK: loaded here, only when on.
  const [{ createOtelTelemetry }, { createPromMetricProducer }] = await Promise.all([
    import('./otel-telemetry.js'),
    import('./prom-metric-producer.js'),
  ]);
  // OTLP metrics read the one registry /metrics serves: no second bookkeeping.
  const telemetry = await createOtelTelemetry(config, {
    ...(log && { log }),
    ...(registry && { metricProducer: createPromMetricProducer(registry) }),
  });
  log?.info(
    {
      otlp: {
        traces: config.traces?.url ?? null,
        metrics: config.metrics?.url ?? null,
        protocol: config.traces?.protocol ?? config.metrics?.protocol,
      },
    },
    'OpenTelemetry export on',
  );
  return telemetry;
}
