/**
 * GET /metrics on the main port. Tool names, counts and outcome codes say what a
 * gateway serves: with `access`, only a caller holding metrics:read reads them (a
 * stranger gets 401, a key without the scope 403); without it, as any other route.
 * A plugin of its own, answering in the catalogue's shape, behind the caller gate.
 */
import type { FastifyInstance } from 'fastify';
import { gateCallers, type GatedRuntime } from '../access/authenticate.js';
import { challengeOf } from '../access/challenge.js';
import { engineError } from '../engine/error-catalogue.js';
import { missingScopes } from '../engine/guards/scopes.js';
import { restErrorHandler, sendRestError } from '../projection/rest/rest-error.js';
import { METRICS_SCOPE, type Metrics } from '../telemetry/metrics.js';

export interface MetricsRouteOptions {
  readonly current: () => GatedRuntime;
  readonly metrics: Metrics;
  readonly bodyLimit: number;
}

export async function metricsRoute(
  scope: FastifyInstance,
  opts: MetricsRouteOptions,
): Promise<void> {
  scope.setErrorHandler(restErrorHandler(opts.bodyLimit));
  const gate = gateCallers(scope, opts.current);
  scope.get('/metrics', gate.hooks, async function readMetrics(req, reply) {
    const { runtime, caller } = gate.served(req);
    if (missingScopes([METRICS_SCOPE], caller).length > 0) {
      const refused = engineError(
        'INSUFFICIENT_SCOPE',
        `reading /metrics needs scope ${METRICS_SCOPE}`,
        { details: { required: [METRICS_SCOPE], missing: [METRICS_SCOPE] } },
      );
      return sendRestError(reply, refused, challengeOf(runtime.access, req, refused));
    }
    const { registry } = opts.metrics;
    return reply
      .header('cache-control', 'no-store')
      .type(registry.contentType)
      .send(await registry.metrics());
  });
}
