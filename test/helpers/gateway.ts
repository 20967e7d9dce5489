/**
 * Starts the real gateway server in-process on 127.0.0.1:0 from spec text, with
 * logs captured so tests can assert that no secret is ever written.
 */
import { Writable } from 'node:stream';
import { compileSpecText } from '../../src/compiler/load-spec.js';
import { formatDiagnostic } from '../../src/compiler/diagnostics.js';
import { createLogger } from '../../src/server/logger.js';
import { startServer, type RunningServer } from '../../src/server/start.js';
import type { Telemetry } from '../../src/telemetry/telemetry.js';
import type { ClientMetadataFetcherOptions } from '../../src/access/sign-in/client-metadata-document.js';

export interface TestGateway extends RunningServer {
  /** Every log line written so far. */
  logs(): string;
  close(): Promise<void>;
}

export interface GatewayOptions {
  env?: Record<string, string>;
  maxInFlight?: number;
  file?: string;
  specFile?: string;
  /** Serve /metrics on a listener of its own on 127.0.0.1:0 (`--metrics-http`). */
  metricsListener?: boolean;
  /** Spans for requests (issue 30): test/helpers/recording-telemetry.ts records them. */
  telemetry?: Telemetry;
  /** How client ID metadata documents are fetched (a document on 127.0.0.1 over test TLS). */
  clientMetadataFetch?: ClientMetadataFetcherOptions;
  /** `--public-url`: the base the gateway names itself by (replicas behind one address). */
  publicUrl?: string;
}

export async function startGateway(
  specText: string,
  opts: GatewayOptions = {},
): Promise<TestGateway> {
  // `file` places the spec (relative paths in it, like an embedded seed, resolve from there).
  const result = compileSpecText(specText, opts.file ?? 'test.mcp.kdl');
  if (!result.compiled) throw new Error(result.diagnostics.map(formatDiagnostic).join('\n'));
  let captured = '';
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      captured += chunk.toString();
      cb();
    },
  });
  const server = await startServer({
    spec: result.compiled,
    listen: { host: '127.0.0.1', port: 0, loopback: true },
    logger: createLogger('debug', sink),
    env: opts.env ?? {},
    ...(opts.maxInFlight && { maxInFlight: opts.maxInFlight }),
    // Reloads read this file (its text, not specText, after the first load).
    ...(opts.specFile && { specFile: opts.specFile }),
    ...(opts.metricsListener && {
      metricsListen: { host: '127.0.0.1', port: 0, loopback: true },
    }),
    ...(opts.telemetry && { telemetry: opts.telemetry }),
    ...(opts.clientMetadataFetch && { clientMetadataFetch: opts.clientMetadataFetch }),
    ...(opts.publicUrl && { publicUrl: opts.publicUrl }),
  });
  // The server's getters (gateway, runtime) must stay live across reloads: inherit, do not copy.
  const gw = Object.create(server) as TestGateway;
  return Object.assign(gw, { logs: () => captured, close: () => server.shutdown(2_000) });
}

/** POST a JSON body (or raw text) and read status, headers and parsed body. */
export async function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; text: string; json: unknown }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}
