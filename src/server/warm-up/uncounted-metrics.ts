/**
 * The warm-up's metrics: every observation is dropped, so no warm-up call shows in the
 * process's /metrics. Not a second `createMetrics()`: its default collectors (an event
 * loop monitor, a GC observer) would stay on for the process's life.
 */
import { Registry } from 'prom-client';
import type { Metrics } from '../../telemetry/metrics.js';

const ignore = (): void => undefined;

export function uncountedMetrics(): Metrics {
  return {
    registry: new Registry(),
    observeCall: ignore,
    reloaded: ignore,
    rateLimitFallback: ignore,
    setInFlight: ignore,
    observeMcpOperation: ignore,
    observeMcpClientOperation: ignore,
    observeHttpServer: ignore,
  };
}
