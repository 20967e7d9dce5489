/**
 * What a serving process opens before it serves, over HTTP (start.ts) or stdio
 * (start-stdio.ts): one telemetry, one rate limiter, one set of consent services for the
 * process's life, then the first runtime.
 */
import { createServerLimiter } from '../engine/rate-limit/server-limiter.js';
import { createConsentServices, hasConsent } from '../engine/consent/consent-services.js';
import type { ClientMetadataFetcherOptions } from '../access/sign-in/client-metadata-document.js';
import { createMetrics, type Metrics } from '../telemetry/metrics.js';
import { loadTelemetry } from '../telemetry/load-telemetry.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import { createConsentAudit, createObserver } from './audit.js';
import { buildRuntime, type Runtime, type RuntimeOptions } from './runtime.js';
import { ServiceList } from './service-list.js';
import { openProcessQuestions } from '../projection/mcp/process-questions.js';
import { missingVariables, missingVariablesMessage } from './spec-environment.js';
import { StartupError } from '../process/startup-error.js';
import type { Logger } from 'pino';
import type { CompiledSpec } from '../compiler/descriptor.js';
import type { Env } from '../process/env.js';

/** What it reads of the start options (start.ts `StartOptions` has them all). */
export interface ProcessOptions {
  readonly spec: CompiledSpec;
  readonly logger: Logger | false;
  readonly env?: Env;
  readonly allowedHosts?: readonly string[];
  readonly maxInFlight?: number;
  readonly publicUrl?: string;
  readonly otlp?: string;
  readonly telemetry?: Telemetry;
  /** Tests only: how client ID metadata documents are fetched (127.0.0.1 allowed). */
  readonly clientMetadataFetch?: ClientMetadataFetcherOptions;
}

/** What a process opens before it serves: one of each, for its life. */
export interface OpenedProcess {
  readonly metrics: Metrics;
  readonly telemetry: Telemetry;
  readonly runtimeOptions: RuntimeOptions;
  /** The first runtime, built from the spec given at start. */
  readonly runtime: Runtime;
  /** Closes what the process opened (telemetry last), after the runtimes. */
  closeShared(): Promise<void>;
}

/**
 * Telemetry, the rate limiter and the consent services (one per process, so they
 * survive reloads), then the first runtime; closed again if that fails.
 */
export async function openProcess(
  opts: ProcessOptions,
  loopbackOnly: boolean,
  /** stdio has no stream to put a 2025-era question on: it opens no questions. */
  overHttp = true,
): Promise<OpenedProcess> {
  const { spec, logger } = opts;
  const env = opts.env ?? process.env;
  // Every missing variable at once, before anything opens: not one per failed start.
  const missing = missingVariables(spec, env);
  if (missing.length > 0) throw new StartupError(missingVariablesMessage(spec, missing));
  const metrics = createMetrics();
  const services = new ServiceList();
  // First: a bad OTEL_* value stops start-up with nothing to close. Closed last, after
  // the drain: the spans of the last calls are flushed (bounded) before exit.
  const telemetry = await services.open(
    async () =>
      opts.telemetry ??
      (await loadTelemetry(env, opts.otlp, logger || undefined, metrics.registry)),
    (t) => t.shutdown(),
  );
  // One limiter for the process, so counts (and Redis) survive reloads.
  const rateLimiter = await services.open(
    () =>
      createServerLimiter(spec, {
        env,
        onFallback: (active) => metrics.rateLimitFallback(active),
        ...(logger && { log: logger }),
      }),
    (l) => l.close(),
  );
  // The key and stores of confirm/approve, for the process like the limiter.
  const consent = await services.open(
    async () =>
      hasConsent(spec)
        ? await createConsentServices(spec, {
            env,
            audit: createConsentAudit(logger),
            ...(logger && { log: logger }),
          })
        : undefined,
    async (c) => c?.close(),
  );
  // The authorization server's keys (sign-in), for the process like the consent stores.
  const signIn = await services.open(
    async () =>
      spec.access?.signIn &&
      (await import('../access/sign-in/sign-in-services.js')).createSignInServices(spec, {
        env,
        ...(logger && { log: logger }),
        ...(opts.clientMetadataFetch && { clientMetadataFetch: opts.clientMetadataFetch }),
      }),
    async (s) => s?.close(),
  );
  // Connected accounts (auth user): their keys and store, for the process like sign-in's.
  const connections = await services.open(
    async () =>
      spec.oauthProviders.length > 0
        ? await (
            await import('../connections/connection-services.js')
          ).createConnectionServices(spec, { env, ...(logger && { log: logger }) })
        : undefined,
    async (c) => c?.close(),
  );
  // The 2025-era questions waiting on their answers, for the process like the stores.
  const questions = await services.open(
    async () => (overHttp ? await openProcessQuestions(spec, env, logger || undefined) : undefined),
    async (q) => q?.close(),
  );
  const closeShared = (): Promise<void> => services.close();
  const runtimeOptions: RuntimeOptions = {
    env,
    allowedHosts: opts.allowedHosts ?? [],
    loopbackOnly,
    observer: createObserver(logger, metrics),
    ...(opts.publicUrl && { publicUrl: opts.publicUrl }),
    ...(opts.maxInFlight && { maxInFlight: opts.maxInFlight }),
    ...(logger && { log: logger }),
    rateLimiter,
    ...(consent && { consent }),
    ...(questions && { questions }),
    ...(signIn && { signIn }),
    ...(connections && { connections }),
    telemetry,
  };
  try {
    const runtime = await buildRuntime(spec, 1, runtimeOptions);
    return { metrics, telemetry, runtimeOptions, closeShared, runtime };
  } catch (err) {
    await closeShared();
    throw err;
  }
}
