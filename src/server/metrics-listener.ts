/**
 * `--metrics-http <addr>`: GET /metrics on a listener of its own, for a Prometheus that
 * scrapes pod IPs inside the cluster. The gateway's own port then serves no metrics, so
 * what reaches callers never names a tool; who may reach this port is the network's
 * business (the chart's NetworkPolicy lets only the monitoring namespace in).
 * Nothing else is served here.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { engineError, type EngineError } from '../engine/error-catalogue.js';
import { restError } from '../projection/rest/rest-error.js';
import { boundUrl, type ListenAddress } from './listen-address.js';
import type { Metrics } from '../telemetry/metrics.js';
import { prepareRequestGuard } from './request-guards.js';

export interface MetricsListener {
  /** http://host:port of the bound socket. */
  readonly url: string;
  close(): Promise<void>;
}

function refuse(res: ServerResponse, e: EngineError, headers: Record<string, string> = {}): void {
  const r = restError(e);
  res.writeHead(r.status, { ...r.headers, ...headers });
  res.end(r.body);
}

export async function startMetricsListener(
  listen: ListenAddress,
  // The registry alone: the primary of `serve --workers` serves the workers' sum here.
  metrics: Pick<Metrics, 'registry'>,
): Promise<MetricsListener> {
  // Scrapers send no Origin; on loopback, a Host that is not a loopback name is a
  // DNS-rebinding page trying to read what the gateway serves.
  const guard = prepareRequestGuard({
    allowOrigins: [],
    allowedHosts: [],
    loopbackOnly: listen.loopback,
  });
  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const verdict = guard({ origin: req.headers.origin, host: req.headers.host });
    if (!verdict.ok) return refuse(res, engineError('FORBIDDEN_ORIGIN', verdict.reason));
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics')
      return refuse(res, engineError('NOT_FOUND', `only GET /metrics is served here`));
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return refuse(res, engineError('METHOD_NOT_ALLOWED', 'read /metrics with GET'), {
        allow: 'GET',
      });
    metrics.registry.metrics().then(
      (text) => {
        res.writeHead(200, {
          'content-type': metrics.registry.contentType,
          'cache-control': 'no-store',
        });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      () => refuse(res, engineError('INTERNAL', 'metrics could not be collected')),
    );
  };
  const server: Server = createServer(
    { headersTimeout: 10_000, requestTimeout: 15_000, connectionsCheckingInterval: 1_000 },
    handle,
  );
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: listen.host, port: listen.port }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  let closed: Promise<void> | undefined;
  return {
    url: boundUrl(listen, server.address()),
    close() {
      closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      return closed;
    },
  };
}
