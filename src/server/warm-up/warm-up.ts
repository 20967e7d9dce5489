/**
 * A fresh process runs its request path interpreted and tiers it up over its first
 * thousands of requests (issue 40: the first 500 calls cost 7-10× the steady rate). A
 * pod is sent traffic once it is ready, so `serve` takes that cost before: it builds a
 * second app from the same code (buildApp, buildRuntime) for a spec of its own
 * (warm-up-spec.ts), calling a stub upstream on 127.0.0.1, and sends it real requests
 * over loopback. V8 shares what it learns per function, not per app, so the gateway's
 * own app starts warm. Nothing of it outlives the warm-up: its sockets, pools and
 * servers are closed, it logs to nowhere and counts in no metrics, it has no telemetry.
 */
import { Writable } from 'node:stream';
import type { Logger } from 'pino';
import { Agent } from '../../outbound/undici.js';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { buildApp } from '../app.js';
import { createObserver } from '../audit.js';
import { createLogger } from '../logger.js';
import { buildRuntime, type Runtime } from '../runtime.js';
import { startStubUpstream, type StubUpstream } from './stub-upstream.js';
import { uncountedMetrics } from './uncounted-metrics.js';
import { warmUpRound, type WarmUpRequest } from './warm-up-requests.js';
import { warmUpSpec } from './warm-up-spec.js';

/** Requests in flight at once, as a few callers would send them. */
const IN_FLIGHT = 4;

export interface WarmUpResult {
  readonly calls: number;
  readonly ms: number;
}

/**
 * Sends `calls` requests through a warm-up app, then closes everything it opened. Throws
 * at the first wrong answer or failure (the caller logs it and serves anyway).
 */
export async function warmUp(calls: number, log: Logger | false): Promise<WarmUpResult> {
  const started = performance.now();
  let stub: StubUpstream | undefined;
  let runtime: Runtime | undefined;
  let app: FastifyInstance | undefined;
  const agent = new Agent({ connections: IN_FLIGHT });
  try {
    stub = await startStubUpstream();
    // The same log level as the gateway's, so the same lines are built, written nowhere.
    const quiet = log ? createLogger(log.level, discard()) : false;
    const metrics = uncountedMetrics();
    const warm = await buildRuntime(warmUpSpec(stub.url), 1, {
      env: {},
      allowedHosts: [],
      loopbackOnly: true,
      observer: createObserver(quiet, metrics),
      ...(quiet && { log: quiet }),
    });
    runtime = warm;
    app = buildApp({
      current: () => warm,
      metrics,
      logger: quiet ? (quiet as unknown as FastifyBaseLogger) : false,
      longestCallMs: 10_000,
      metricsHere: false,
    });
    // Exclusive: in a worker of `serve --workers` a port-0 listen would otherwise be one
    // port shared through the primary, and another worker's warm-up could be answered here.
    await app.listen({ host: '127.0.0.1', port: 0, exclusive: true });
    const { port } = app.server.address() as { port: number };
    await drive(agent, `http://127.0.0.1:${port}`, warmUpRound(), calls);
    return { calls, ms: Math.round(performance.now() - started) };
  } finally {
    await agent.close();
    await app?.close();
    await runtime?.gateway.close();
    await stub?.close();
  }
}

/** `calls` requests, IN_FLIGHT at a time, taking the round's requests in turn. */
async function drive(
  agent: Agent,
  origin: string,
  round: readonly WarmUpRequest[],
  calls: number,
): Promise<void> {
  let next = 0;
  const one = async (): Promise<void> => {
    while (next < calls) {
      const req = round[next++ % round.length]!;
      const res = await agent.request({
        origin,
        path: req.path,
        method: 'POST',
        headers: req.headers,
        body: req.body,
      });
      const text = await res.body.text();
      if (res.statusCode !== 200 || !text.includes(req.expect))
        throw new Error(
          `${req.path} answered ${res.statusCode}: ${text.slice(0, 200)} (expected ${req.expect})`,
        );
    }
  };
  await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, calls) }, one));
}

function discard(): Writable {
  return new Writable({
    write(_chunk, _encoding, done) {
      done();
    },
  });
}
