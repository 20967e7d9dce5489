import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StartupError } from '../../src/process/startup-error.js';
import { TELEMETRY_OFF } from '../../src/telemetry/telemetry.js';
import { startGateway } from '../helpers/gateway.js';
import { KIND, startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.js';
import { runCli } from '../helpers/run-cli.js';

const SPEC = `wrap "otel" version="1.0.0"
base-url "http://127.0.0.1:9/v1"
can list things {
    path "/things"
}
`;

let receiver: OtlpReceiver;
beforeEach(async () => {
  receiver = await startOtlpReceiver();
});
afterEach(async () => {
  await receiver.close();
});

describe('the server and its telemetry', () => {
  it('holds TELEMETRY_OFF without OTLP configuration', async () => {
    const gw = await startGateway(SPEC);
    try {
      expect(gw.telemetry).toBe(TELEMETRY_OFF);
    } finally {
      await gw.close();
    }
  });

  it('exports to OTEL_EXPORTER_OTLP_ENDPOINT, says so at start, and flushes at shutdown', async () => {
    const gw = await startGateway(SPEC, {
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: 'gw-under-test' },
    });
    expect(gw.telemetry.on).toBe(true);
    expect(gw.logs()).toContain('OpenTelemetry export on');
    gw.telemetry.serverSpan('tools/list', {}, { 'mcp.method.name': 'tools/list' }).end();
    // The batch delay is 5 s by default: only the shutdown's flush can have sent it.
    await gw.close();
    const spans = await receiver.waitForSpans(1, 1_000);
    expect(spans[0]).toMatchObject({
      name: 'tools/list',
      kind: KIND.server,
      resource: { 'service.name': 'gw-under-test' },
    });
  });

  it('refuses to start on a bad OTEL_* value, naming it', async () => {
    const started = startGateway(SPEC, {
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_TRACES_SAMPLER: 'sometimes' },
    });
    await expect(started).rejects.toBeInstanceOf(StartupError);
    await expect(started).rejects.toThrow(/^OTEL_TRACES_SAMPLER is "sometimes"/);
  });
});

describe('serve --otlp', () => {
  it('refuses a URL that is not http(s), naming the flag', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpb-otlp-'));
    const specFile = join(dir, 'otel.mcp.kdl');
    writeFileSync(specFile, SPEC);
    const r = await runCli(['serve', specFile, '--http', '127.0.0.1:0', '--otlp', 'ftp://x']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('mcp-beaver serve: --otlp must be an http:// or https:// URL');
    expect(r.stdout).not.toContain('mcp-beaver listening');
  });
});
