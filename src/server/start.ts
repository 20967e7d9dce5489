/**
 * Start-up in one place for the CLI and the tests: compiled spec → runtime (prepared
 * gateway, access, listings) → fastify app → listening socket; then reloads that swap
 * the runtime whole, and a graceful shutdown.
 */
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Env } from '../process/env.js';
import type { Gateway } from '../engine/gateway.js';
import { StartupError } from '../process/startup-error.js';
import type { SpecOverrides } from '../compiler/compile-spec.js';
import type { CompiledSpec } from '../compiler/descriptor.js';
import { formatDiagnostic, type Diagnostic } from '../compiler/diagnostics.js';
import { compileSpecFile } from '../compiler/load-spec.js';
import { composeRedactors } from '../engine/redact.js';
import { buildApp } from './app.js';
import { boundUrl, type ListenAddress } from './listen-address.js';
import { redactLogLines } from './logger.js';
import type { Registry } from 'prom-client';
import type { Metrics } from '../telemetry/metrics.js';
import { startMetricsListener, type MetricsListener } from './metrics-listener.js';
import { buildRuntime, type Runtime } from './runtime.js';
import { missingVariables, missingVariablesMessage } from './spec-environment.js';
import { openProcess } from './open-process.js';
import { workersRefusal } from './workers/shared-state.js';
import { warmUpOrWarn } from './warm-up/warm-up-or-warn.js';
import { signInReloadRefusal } from '../access/sign-in/sign-in-reload.js';
import type { ClientMetadataFetcherOptions } from '../access/sign-in/client-metadata-document.js';
import type { Telemetry } from '../telemetry/telemetry.js';

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
  /** Where reloads read the spec from (`serve` passes its file). */
  readonly specFile?: string;
  readonly overrides?: SpecOverrides;
  /** `--metrics-http`: serve GET /metrics here, and not on the gateway's own port. */
  readonly metricsListen?: ListenAddress;
  /** `--otlp <url>`: export traces and metrics there (as OTEL_EXPORTER_OTLP_ENDPOINT would). */
  readonly otlp?: string;
  /** Telemetry made by the caller; else it comes from `env` and `otlp` (load-telemetry.ts). */
  readonly telemetry?: Telemetry;
  /** Tests only: how client ID metadata documents are fetched (127.0.0.1 allowed). */
  readonly clientMetadataFetch?: ClientMetadataFetcherOptions;
  /**
   * `serve --workers N`: how many processes serve this spec. A reload that would need
   * state they cannot share (shared-state.ts) is refused.
   */
  readonly workers?: number;
  /**
   * In a worker of `serve --workers`: given this process's registry, what GET /metrics
   * serves instead of it (the sum over every worker, which the primary collects).
   */
  readonly metricsFrom?: (registry: Registry) => () => Promise<string>;
  /**
   * `serve --warm-up N`: requests sent through a warm-up app of the same code before
   * the gateway listens (warm-up/warm-up.ts); absent or 0, none (the tests' default).
   */
  readonly warmUp?: number;
}

export type ReloadResult =
  | { readonly ok: true; readonly generation: number }
  | { readonly ok: false; readonly reason: string; readonly diagnostics?: readonly Diagnostic[] };

export interface RunningServer {
  readonly app: FastifyInstance;
  /** The gateway serving now (a reload replaces it). */
  readonly gateway: Gateway;
  readonly runtime: Runtime;
  readonly metrics: Metrics;
  /** TELEMETRY_OFF unless OTLP export is on; shut down with the server. */
  readonly telemetry: Telemetry;
  /** http://host:port of the bound socket. */
  readonly url: string;
  /** http://host:port of the metrics listener, with --metrics-http. */
  readonly metricsUrl?: string;
  /** Compile the spec file again and swap it in; a bad spec leaves the current one serving. */
  reload(): Promise<ReloadResult>;
  /** Drain (readiness fails at once, in-flight calls finish) and close within `graceMs`. */
  shutdown(graceMs?: number): Promise<void>;
}

/**
 * Connections the kernel may hold for accept(). Node's default (511) overflows under a
 * burst of thousands of connects: SYNs are dropped and retried after 1 s, 3 s, so shed
 * calls and probes wait seconds. The kernel caps it at net.core.somaxconn.
 */
const LISTEN_BACKLOG = 8192;

/** How long a replaced runtime may take to finish its calls before its pools close anyway. */
const RETIRE_GRACE_MS = 120_000;

function refuseOpenBind(
  spec: CompiledSpec,
  listen: ListenAddress,
  insecure: boolean | undefined,
): string | undefined {
  if (listen.loopback || spec.access || insecure) return undefined;
  return (
    `refusing to listen on ${listen.host}:${listen.port}: the spec has no \`access\` block, so anyone who reaches the port could call every grant. ` +
    'Add `access { api-key env="..." }` (or oauth), listen on 127.0.0.1, or pass --insecure-no-auth if something in front of the gateway authenticates.'
  );
}

function longestCallMs(spec: CompiledSpec): number {
  return Math.max(10_000, ...spec.tools.map((t) => t.backend.timeoutMs));
}

export async function startServer(opts: StartOptions): Promise<RunningServer> {
  const { spec, listen, logger } = opts;
  const refused = refuseOpenBind(spec, listen, opts.insecureNoAuth);
  if (refused) throw new StartupError(refused);
  const env = opts.env ?? process.env;
  if (!listen.loopback && !spec.access && logger) {
    logger.warn(
      { host: listen.host, port: listen.port },
      'listening beyond loopback without an access block (--insecure-no-auth): every grant is open to whoever reaches this port',
    );
  }
  const { metrics, telemetry, runtimeOptions, closeShared, runtime } = await openProcess(
    opts,
    listen.loopback,
  );
  // The route and the listener read the text through `metrics()`; the primary collects
  // each worker's own counts through getMetricsAsJSON(), which stays this process's.
  if (opts.metricsFrom) metrics.registry.metrics = opts.metricsFrom(metrics.registry);
  let current: Runtime = runtime;
  /** Replaced runtimes still finishing their calls; shutdown closes them too. */
  const retiring = new Set<Runtime>();
  // Log lines are redacted with the secrets of every runtime that may still write one.
  const redactLogs = (): void => {
    if (logger)
      redactLogLines(logger, composeRedactors([current, ...retiring].map((r) => r.gateway.redact)));
  };
  redactLogs();
  metrics.setInFlight(() => current.gateway.busy);
  // The authorization server's routes are loaded only by a process that opened sign-in: a
  // reload cannot add it (sign-in-reload.ts), and other gateways never parse its modules.
  const signInRoutes = runtime.signIn
    ? (await import('../access/sign-in/sign-in-routes.js')).registerSignInRoutes
    : undefined;
  // The connect pages likewise, only by a process that opened connected accounts.
  const connectRoutes = runtime.connections
    ? (await import('../connections/connect-routes.js')).registerConnectRoutes
    : undefined;
  const app = buildApp({
    current: () => current,
    ...(signInRoutes && { signInRoutes }),
    ...(connectRoutes && { connectRoutes }),
    metrics,
    logger: logger ? (logger as unknown as FastifyBaseLogger) : false,
    longestCallMs: longestCallMs(spec),
    metricsHere: opts.metricsListen === undefined,
    telemetry,
    ...(opts.publicUrl && { publicUrl: opts.publicUrl }),
  });
  // Before listening, so /readyz first answers 200 on a warm request path.
  if (opts.warmUp) await warmUpOrWarn(opts.warmUp, logger);
  try {
    await app.listen({ host: listen.host, port: listen.port, backlog: LISTEN_BACKLOG });
  } catch (err) {
    await current.gateway.close();
    await closeShared();
    throw new StartupError(
      `cannot listen on ${listen.host}:${listen.port}: ${(err as Error).message}`,
    );
  }
  let metricsListener: MetricsListener | undefined;
  if (opts.metricsListen) {
    try {
      metricsListener = await startMetricsListener(opts.metricsListen, metrics);
    } catch (err) {
      await app.close();
      await current.gateway.close();
      await closeShared();
      const { host: mh, port: mp } = opts.metricsListen;
      throw new StartupError(`cannot listen for metrics on ${mh}:${mp}: ${(err as Error).message}`);
    }
  }

  const failReload = (reason: string, diagnostics?: readonly Diagnostic[]): ReloadResult => {
    metrics.reloaded(false, current.generation);
    if (logger)
      logger.error(
        { reload: 'rejected', reason, errors: diagnostics?.map(formatDiagnostic) },
        'spec reload rejected; the previous spec keeps serving',
      );
    return { ok: false, reason, ...(diagnostics && { diagnostics }) };
  };
  let reloading: Promise<ReloadResult> | undefined;
  let closing: Promise<void> | undefined;

  async function reloadOnce(): Promise<ReloadResult> {
    if (closing) return failReload('the gateway is shutting down');
    if (!opts.specFile) return failReload('this server was not started from a spec file');
    let compiled;
    try {
      compiled = await compileSpecFile(opts.specFile, opts.overrides ?? {});
    } catch (err) {
      return failReload(`cannot read ${opts.specFile}: ${(err as Error).message}`);
    }
    if (!compiled.compiled)
      return failReload(
        'the new spec does not compile',
        compiled.diagnostics.filter((d) => d.severity === 'error'),
      );
    const open = refuseOpenBind(compiled.compiled, listen, opts.insecureNoAuth);
    if (open) return failReload(open);
    const unshared = workersRefusal(compiled.compiled, opts.workers ?? 1);
    if (unshared) return failReload(unshared);
    const signInChange = signInReloadRefusal(
      compiled.compiled,
      runtimeOptions.signIn,
      spec.access?.tokenKeyEnv,
    );
    if (signInChange) return failReload(signInChange);
    const unset = missingVariables(compiled.compiled, env, 'reload');
    if (unset.length > 0)
      return failReload(missingVariablesMessage(compiled.compiled, unset, 'reload'));
    let next: Runtime;
    try {
      next = await buildRuntime(compiled.compiled, current.generation + 1, runtimeOptions);
    } catch (err) {
      // Whatever failed, the last good spec keeps serving: a reload never takes the process down.
      return failReload(err instanceof Error ? err.message : String(err));
    }
    if (closing) {
      await next.gateway.close();
      return failReload('the gateway is shutting down');
    }
    // A grant's deadline may have grown: the sockets must outlive the longest call.
    const longest = longestCallMs(next.spec);
    app.server.requestTimeout = Math.max(app.server.requestTimeout, longest + 15_000);
    app.server.timeout = Math.max(app.server.timeout, longest + 20_000);
    if (logger && next.spec.redisEnv !== spec.redisEnv)
      logger.warn(
        { redisEnv: next.spec.redisEnv ?? null },
        'limits redis-env changed: rate limits keep the limiter chosen at start until a restart',
      );
    const old = current;
    current = next;
    metrics.reloaded(true, next.generation);
    if (logger)
      logger.info(
        { reload: 'applied', generation: next.generation, tools: next.spec.tools.length },
        'spec reloaded',
      );
    // Calls that started on the old runtime finish there; then its pools close.
    retiring.add(old);
    redactLogs();
    void retire(old).finally(() => {
      retiring.delete(old);
      redactLogs();
    });
    return { ok: true, generation: next.generation };
  }

  return {
    app,
    metrics,
    telemetry,
    get gateway() {
      return current.gateway;
    },
    get runtime() {
      return current;
    },
    url: boundUrl(listen, app.server.address()),
    ...(metricsListener && { metricsUrl: metricsListener.url }),
    reload() {
      // One reload at a time; a reload asked for meanwhile waits for it, then runs.
      const run = (reloading ?? Promise.resolve()).then(reloadOnce, reloadOnce);
      reloading = run;
      return run;
    },
    shutdown(graceMs = 10_000) {
      closing ??= (async () => {
        // A reload under way finishes (or is refused) first, so nothing it builds is left open.
        await reloading?.catch(() => undefined);
        // Open 2025-era questions are answered now, on their streams ("shutting down;
        // nothing was sent"): the drain would otherwise wait out their 10 minutes.
        runtimeOptions.questions?.drain();
        const drained = current.gateway.drain();
        const grace = new Promise<void>((resolve) => setTimeout(resolve, graceMs).unref());
        const closed = app.close();
        await Promise.race([Promise.all([drained, closed]), grace]);
        await Promise.allSettled([
          current.gateway.close(),
          ...[...retiring].map((r) => r.gateway.close()),
        ]);
        await closeShared();
        // Last: the drain itself stays observable.
        await metricsListener?.close();
      })();
      return closing;
    },
  };
}

/**
 * A request reads the runtime once, at its start, then may still be authenticating (a
 * JWKS fetch takes up to 2 s) before it calls: the old gateway waits a little before
 * it can count as idle.
 */
const RETIRE_SETTLE_MS = 5_000;

async function retire(old: Runtime): Promise<void> {
  await new Promise<void>((resolve) => setTimeout(resolve, RETIRE_SETTLE_MS).unref());
  const grace = new Promise<void>((resolve) => setTimeout(resolve, RETIRE_GRACE_MS).unref());
  await Promise.race([old.gateway.whenIdle(), grace]);
  await old.gateway.close();
}
