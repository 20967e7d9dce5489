import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '..', '..', 'src');

/**
 * Loads telemetry in a fresh node with `env` as its whole environment, and says which
 * OpenTelemetry modules ended up loaded (the packages are CommonJS, so every one of
 * them, however imported, is in the require cache).
 */
function loadInChild(
  env: Record<string, string>,
  otlpFlag?: string,
): Promise<{ on: boolean; off: boolean; loaded: string[] }> {
  const script = `
    import { createRequire } from 'node:module';
    const { loadTelemetry } = await import(${JSON.stringify(join(SRC, 'telemetry', 'load-telemetry.ts'))});
    const { TELEMETRY_OFF } = await import(${JSON.stringify(join(SRC, 'telemetry', 'telemetry.ts'))});
    const env = JSON.parse(process.env.TELEMETRY_ENV);
    const telemetry = await loadTelemetry(env, process.env.OTLP_FLAG || undefined);
    const loaded = Object.keys(createRequire(import.meta.url).cache).filter((p) => p.includes('@opentelemetry'));
    await telemetry.shutdown();
    process.stdout.write(JSON.stringify({ on: telemetry.on, off: telemetry === TELEMETRY_OFF, loaded }));
  `;
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      {
        env: { ...process.env, TELEMETRY_ENV: JSON.stringify(env), OTLP_FLAG: otlpFlag ?? '' },
        cwd: join(SRC, '..'),
      },
      (err, stdout, stderr) =>
        err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(JSON.parse(stdout)),
    );
  });
}

describe('loadTelemetry', () => {
  it('with no OTEL variables and no --otlp is TELEMETRY_OFF and loads no OpenTelemetry module', async () => {
    const result = await loadInChild({ OTEL_SERVICE_NAME: 'named-but-no-endpoint' });
    expect(result).toEqual({ on: false, off: true, loaded: [] });
  });

  it('with OTEL_SDK_DISABLED=true is off even with an endpoint', async () => {
    const result = await loadInChild({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1',
      OTEL_SDK_DISABLED: 'true',
    });
    expect(result).toEqual({ on: false, off: true, loaded: [] });
  });

  it('with an endpoint loads the SDK (so the check above can see it)', async () => {
    const result = await loadInChild({}, 'http://127.0.0.1:1');
    expect(result.on).toBe(true);
    expect(result.loaded.some((p) => p.includes('@opentelemetry/sdk-trace'))).toBe(true);
    // Only what the protocol in use needs: http/protobuf spans go out through the SDK's
    // HTTP export with our encoder (otlp-span-exporter.ts), not its JSON or gRPC exporter.
    expect(result.loaded.some((p) => p.includes('otlp-exporter-base'))).toBe(true);
    expect(result.loaded.some((p) => p.includes('exporter-trace-otlp-http'))).toBe(false);
    expect(result.loaded.some((p) => p.includes('exporter-trace-otlp-grpc'))).toBe(false);
  });
});
