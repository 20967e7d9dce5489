/**
 * The gateway's Telemetry, from its environment and `serve --otlp` (issue 30). Off (no
 * OTLP endpoint), this returns TELEMETRY_OFF and imports nothing: the SDK is reached
 * only through the dynamic import below, so a gateway without OTLP loads no
 * OpenTelemetry module and its cold start is unchanged.
 *
 * Measured on the pinned packages (Node 20, 2-core machine): the OpenTelemetry packages
 * take 28 MB on disk (18 MB apparent, most of it semantic-conventions and the esm/esnext
 * builds), and importing what an http/protobuf gateway loads takes ~TODO ms (median
 * of 5 fresh processes), paid once at start and only when on.
 */
import type { Registry } from 'prom-client';
import type { Env } from '../engine/env.js';
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
  const { createOtelTelemetry } = await import('./otel-telemetry.js');
  // TODO(issue 30): once prom-metric-producer.ts is on main, pass
  // `metricProducer: createPromMetricProducer(registry)` so OTLP metrics read the registry.
  void registry;
  const telemetry = await createOtelTelemetry(config, { ...(log && { log }) });
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
