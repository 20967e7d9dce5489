/**
 * The OTLP resource of every span and metric the gateway exports (docs/observability.md,
 * "Switching it on"). Imported only by otel-telemetry.ts: loaded only when OTLP export is on.
 */
import { randomUUID } from 'node:crypto';
import { defaultResource, resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import type { TelemetryConfig } from './telemetry-config.js';

/**
 * Which process spoke: the SDK's `telemetry.sdk.*`, our `service.version`, a
 * `service.instance.id` of this gateway's own (a random UUID made at start), so that
 * replicas' cumulative metrics never land in one series, then OTEL_RESOURCE_ATTRIBUTES
 * (which may set either, as an operator naming pods would), then `service.name`, which
 * OTEL_SERVICE_NAME decided (telemetry-config.ts). Built from the config, not with the
 * library's envDetector: that reads process.env, not the environment the gateway was
 * given, and drops a malformed value silently where ours stops start-up naming it.
 */
export function resourceOf(config: TelemetryConfig, version: string | undefined): Resource {
  return defaultResource().merge(
    resourceFromAttributes({
      ...(version !== undefined && { 'service.version': version }),
      'service.instance.id': randomUUID(),
      ...config.resourceAttributes,
      'service.name': config.serviceName,
    }),
  );
}
