/**
 * Start-up in one place for the CLI and the tests: compiled spec → prepared gateway
 * → fastify app → listening socket, with binding safety and graceful shutdown.
 */
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Env } from '../engine/backends/backend.js';
import { Gateway } from '../engine/gateway.js';
import { StartupError } from '../engine/startup-error.js';
import type { CompiledSpec } from '../spec/descriptor.js';
import { buildApp } from './app.js';
import { createAccessControl } from '../access/access-control.js';
import { MCP_PATH } from '../projection/mcp/mcp-routes.js';
import type { ListenAddress } from './listen-address.js';

export interface StartOptions {
  readonly spec: CompiledSpec;
  readonly listen: ListenAddress;
  readonly logger: Logger | false;
  readonly env?: Env;
  /** Allow a non-loopback bind without an `access` block. */
  readonly insecureNoAuth?: boolean;
  readonly allowedHosts?: readonly string[];
  readonly maxInFlight?: number;
  /** The gateway's public base URL behind a proxy (for RFC 9728 metadata and challenges). */
  readonly publicUrl?: string;
}

export interface RunningServer {
  readonly app: FastifyInstance;
  readonly gateway: Gateway;
  /** http://host:port of the bound socket. */
  readonly url: string;
  /** Drain (readiness fails at once, in-flight calls finish) and close within `graceMs`. */
  shutdown(graceMs?: number): Promise<void>;
}

export async function startServer(opts: StartOptions): Promise<RunningServer> {
  const { spec, listen } = opts;
  if (!listen.loopback && !spec.access && !opts.insecureNoAuth) {
    throw new StartupError(
      `refusing to listen on ${listen.host}:${listen.port}: the spec has no \`access\` block, so anyone who reaches the port could call every grant. ` +
        'Add `access { api-key env="..." }` (or oauth), listen on 127.0.0.1, or pass --insecure-no-auth if something in front of the gateway authenticates.',
    );
  }
  if (!listen.loopback && !spec.access && opts.logger) {
    opts.logger.warn(
      { host: listen.host, port: listen.port },
      'listening beyond loopback without an access block (--insecure-no-auth): every grant is open to whoever reaches this port',
    );
  }
  const env = opts.env ?? process.env;
  // Access first: a missing API-key variable stops start-up before any pool opens.
  const access = createAccessControl(spec.access, {
    env,
    mcpPath: MCP_PATH,
    ...(opts.publicUrl && { publicUrl: opts.publicUrl }),
  });
  const gateway = await Gateway.prepare(spec, {
    extraSecrets: access.secrets,
    ...(opts.logger && { log: opts.logger }),
    ...(opts.env && { env: opts.env }),
    ...(opts.maxInFlight && { maxInFlight: opts.maxInFlight }),
  });
  const app = buildApp({
    gateway,
    access,
    ...(opts.publicUrl && { publicUrl: opts.publicUrl }),
    logger: opts.logger ? (opts.logger as unknown as FastifyBaseLogger) : false,
    guard: {
      allowOrigins: spec.access?.allowOrigins ?? [],
      allowedHosts: opts.allowedHosts ?? [],
      loopbackOnly: listen.loopback,
    },
  });
  try {
    await app.listen({ host: listen.host, port: listen.port });
  } catch (err) {
    await gateway.close();
    throw new StartupError(
      `cannot listen on ${listen.host}:${listen.port}: ${(err as Error).message}`,
    );
  }
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : listen.port;
  const host = listen.host.includes(':')
    ? `[${listen.host}]`
    : listen.host === '0.0.0.0'
      ? '127.0.0.1'
      : listen.host;
  let closing: Promise<void> | undefined;
  return {
    app,
    gateway,
    url: `http://${host}:${port}`,
    shutdown(graceMs = 10_000) {
      closing ??= (async () => {
        const drained = gateway.drain();
        const grace = new Promise<void>((resolve) => setTimeout(resolve, graceMs).unref());
        const closed = app.close();
        await Promise.race([Promise.all([drained, closed]), grace]);
        await gateway.close();
      })();
      return closing;
    },
  };
}
