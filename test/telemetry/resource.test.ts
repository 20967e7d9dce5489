/**
 * Issue 37: the OTLP resource says which process spoke. Before, it held `service.name`
 * alone and OTEL_RESOURCE_ATTRIBUTES was ignored, so two replicas exported the same
 * resource and a backend merged their cumulative metrics into one series. Two gateways
 * export to a real OTLP receiver (otlp-receiver.ts), which decodes the resource of what
 * arrives: each its own `service.instance.id`, the package's `service.version`,
 * `telemetry.sdk.*`, and the variable's attributes, percent-decoded.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startGateway, type TestGateway } from '../helpers/gateway.js';
import { LEGACY } from '../helpers/mcp-wire.js';
import {
  KIND,
  startOtlpReceiver,
  type OtlpReceiver,
  type ReceivedMetric,
  type ReceivedValue,
} from '../helpers/otlp-receiver.js';

const SPEC = `
wrap "resource" version="1.0.0"
base-url "http://127.0.0.1:9"
can get thing {
    describe "One thing."
    path "/things/{id}" {
        id "string"
    }
}
`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let receiver: OtlpReceiver;
const gateways: TestGateway[] = [];

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  for (let i = 0; i < 2; i++)
    gateways.push(
      await startGateway(SPEC, {
        env: {
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
          OTEL_BSP_SCHEDULE_DELAY: '100',
          OTEL_METRIC_EXPORT_INTERVAL: '300',
          OTEL_SERVICE_NAME: 'gw-resource',
          OTEL_RESOURCE_ATTRIBUTES:
            'deployment.environment.name=prod, k8s.pod.name=gw%2C1%3Db ,service.name=not-this,%6Beyed=%E2%9C%93',
        },
      }),
    );
});

afterAll(async () => {
  for (const gw of gateways) await gw.close();
  await receiver?.close();
});

describe('the OTLP resource', () => {
  it('tells two gateways apart, names the version and the SDK, and carries OTEL_RESOURCE_ATTRIBUTES', async () => {
    for (const gw of gateways)
      expect(
        (
          await postJson(
            `${gw.url}/mcp`,
            { jsonrpc: '2.0', id: 1, method: 'tools/list' },
            { accept: 'application/json', 'mcp-protocol-version': LEGACY },
          )
        ).status,
      ).toBe(200);
    const spans = (
      await receiver.waitForSpans((all) => all.filter((s) => s.kind === KIND.server).length >= 2)
    ).filter((s) => s.kind === KIND.server);
    const resources = spans.map((s) => s.resource);
    const { version } = JSON.parse(await readFile('package.json', 'utf8')) as { version: string };

    const ids = resources.map((r) => r['service.instance.id']);
    expect(new Set(ids).size).toBe(2);
    for (const id of ids) expect(id).toMatch(UUID);
    for (const resource of resources)
      expect(resource).toMatchObject<Record<string, ReceivedValue>>({
        'service.name': 'gw-resource',
        'service.version': version,
        'telemetry.sdk.name': 'opentelemetry',
        'telemetry.sdk.language': 'nodejs',
        'deployment.environment.name': 'prod',
        'k8s.pod.name': 'gw,1=b',
        keyed: '✓',
      });
    expect(typeof resources[0]!['telemetry.sdk.version']).toBe('string');

    // Each replica's histogram arrives under its own instance id: not one merged series.
    const operations = (metrics: readonly ReceivedMetric[]) =>
      metrics.filter((m) => m.name === 'mcp.server.operation.duration' && m.points.length > 0);
    const metrics = operations(
      await receiver.waitForMetrics(
        (all) => new Set(operations(all).map((m) => m.resource['service.instance.id'])).size >= 2,
      ),
    );
    expect(new Set(metrics.map((m) => m.resource['service.instance.id']))).toEqual(new Set(ids));
    for (const m of metrics)
      expect(m.resource).toMatchObject({ 'service.version': version, 'k8s.pod.name': 'gw,1=b' });
  });
});
