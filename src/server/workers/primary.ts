/**
 * The primary of `serve --workers N`: it serves nothing itself. It forks N copies of the
 * same `serve` command (node:cluster; the primary accepts on the one port and hands each
 * connection to the next worker in turn), and then:
 * - passes every worker the same consent key, so a state sealed by one opens in another;
 * - watches the spec (file and SIGHUP) and tells every worker to reload, so the workers
 *   never each poll the file and never disagree for longer than a reload takes;
 * - collects GET /metrics from every worker and sums it (on --metrics-http, served here;
 *   on the gateway's port, the worker that got the request asks here);
 * - forwards SIGTERM/SIGINT, waits for every worker's drain, and exits 0;
 * - replaces a worker that dies, with a growing delay; a worker that fails to start is
 *   never retried in a loop: at the first start, or after a few failed replacements in a
 *   row, the primary stops them all and exits 1 with the worker's own error.
 */
import cluster, { type Worker } from 'node:cluster';
import { randomBytes } from 'node:crypto';
import { isSea } from 'node:sea';
import type { Logger } from 'pino';
import { AggregatorRegistry, type PrometheusContentType, type Registry } from 'prom-client';
import type { CompiledSpec } from '../../compiler/descriptor.js';
import type { SpecOverrides } from '../../compiler/compile-spec.js';
import { compileSpecFile } from '../../compiler/load-spec.js';
import { CONSENT_KEY_MIN_BYTES } from '../../engine/consent/consent-key.js';
import type { ListenAddress } from '../listen-address.js';
import { startMetricsListener, type MetricsListener } from '../metrics-listener.js';
import { watchSpecFile, type SpecWatcher } from '../spec-watcher.js';
import {
  isWorkerMessage,
  WORKER_INDEX_ENV,
  WORKER_KEY_ENV,
  type PrimaryMessage,
  type WorkerMessage,
} from './worker-messages.js';

export interface PrimaryOptions {
  readonly spec: CompiledSpec;
  readonly file: string;
  readonly overrides: SpecOverrides;
  readonly workers: number;
  readonly logger: Logger;
  /** --grace: each worker's drain; the primary waits that long and a margin before SIGKILL. */
  readonly graceMs: number;
  readonly watch: boolean;
  readonly metricsListen?: ListenAddress;
}

/** A replacement's delay: 0.25 s, doubling with each death in the last minute, up to 30 s. */
const RESPAWN_BASE_MS = 250;
const RESPAWN_MAX_MS = 30_000;
const DEATH_WINDOW_MS = 60_000;
/** Replacements in a row that die before listening: then the cause will not go away. */
const MAX_FAILED_STARTS = 3;
/** What a worker gets beyond --grace to exit before it is killed. */
const EXIT_MARGIN_MS = 10_000;

interface Slot {
  readonly index: number;
  worker?: Worker;
  listening: boolean;
  respawn?: NodeJS.Timeout;
  /** What its worker said when its start was refused. */
  failure?: string;
}

export async function runPrimary(opts: PrimaryOptions): Promise<number> {
  const { logger, workers } = opts;
  // Every worker seals confirmation states with this key unless the spec names one.
  const key = randomBytes(CONSENT_KEY_MIN_BYTES).toString('hex');
  const slots: Slot[] = Array.from({ length: workers }, (_, i) => ({
    index: i + 1,
    listening: false,
  }));
  const deaths: number[] = [];
  let failedStarts = 0;
  let stopping = false;
  let firstUrl: string | undefined;
  let resolveExit!: (code: number) => void;
  const exited = new Promise<number>((resolve) => (resolveExit = resolve));

  // The sum over every worker; prom-client asks each one for its registry.
  const aggregator = new AggregatorRegistry<PrometheusContentType>();
  const scrape = (): Promise<string> => aggregator.clusterMetrics();

  const send = (worker: Worker, message: PrimaryMessage): void => {
    if (worker.isConnected()) worker.send(message);
  };

  const fork = (slot: Slot): void => {
    slot.listening = false;
    slot.failure = undefined;
    const worker = cluster.fork({ [WORKER_INDEX_ENV]: String(slot.index), [WORKER_KEY_ENV]: key });
    slot.worker = worker;
    worker.on('message', (m: unknown) => {
      if (!isWorkerMessage(m)) return;
      onMessage(slot, worker, m);
    });
    worker.once('exit', (code, signal) => onExit(slot, worker, code, signal));
  };

  const onMessage = (slot: Slot, worker: Worker, m: WorkerMessage): void => {
    if (m.type === 'mcp-beaver:listening') {
      slot.listening = true;
      failedStarts = 0;
      firstUrl ??= m.url;
      logger.debug({ worker: slot.index, workerPid: worker.process.pid }, 'worker listening');
      if (!announced && slots.every((s) => s.listening)) announce();
    } else if (m.type === 'mcp-beaver:start-failed') {
      slot.failure = m.message;
    } else if (m.type === 'mcp-beaver:scrape') {
      scrape().then(
        (text) => send(worker, { type: 'mcp-beaver:scraped', id: m.id, text }),
        (err: unknown) => {
          logger.warn({ err }, 'metrics could not be collected from every worker');
          send(worker, { type: 'mcp-beaver:scraped', id: m.id });
        },
      );
    }
  };

  const onExit = (slot: Slot, worker: Worker, code: number | null, signal: string | null): void => {
    if (slot.worker === worker) slot.worker = undefined;
    const wasListening = slot.listening;
    slot.listening = false;
    if (stopping) {
      if (slots.every((s) => s.worker === undefined && s.respawn === undefined)) finish();
      return;
    }
    const who = { worker: slot.index, workerPid: worker.process.pid, code, signal };
    if (!wasListening) {
      // It never served: the same start would fail the same way.
      failedStarts++;
      if (!announced || failedStarts >= MAX_FAILED_STARTS) {
        const why =
          slot.failure ??
          `worker ${slot.index} exited (code ${code}, signal ${signal}) before it listened`;
        process.stderr.write(`mcp-beaver serve: ${why}\n`);
        logger.error(who, 'a worker failed to start: stopping every worker');
        stop(1);
        return;
      }
    }
    const now = Date.now();
    deaths.push(now);
    while (deaths.length > 0 && deaths[0]! < now - DEATH_WINDOW_MS) deaths.shift();
    const delay = Math.min(RESPAWN_MAX_MS, RESPAWN_BASE_MS * 2 ** (deaths.length - 1));
    logger.error({ ...who, respawnInMs: delay }, 'a worker died: replacing it');
    slot.respawn = setTimeout(() => {
      slot.respawn = undefined;
      if (!stopping) fork(slot);
    }, delay);
  };

  let announced = false;
  let metricsListener: MetricsListener | undefined;
  let watcher: SpecWatcher | undefined;
  let spec = opts.spec;

  const announce = (): void => {
    announced = true;
    void afterStart();
  };

  const reload = (why: string): void => {
    logger.info({ why }, 'reloading the spec in every worker');
    for (const s of slots) if (s.worker) send(s.worker, { type: 'mcp-beaver:reload', why });
    // The primary's own copy only says which resource files to watch.
    void compileSpecFile(opts.file, opts.overrides)
      .then((r) => {
        if (r.compiled) spec = r.compiled;
      })
      .catch(() => undefined);
  };

  async function afterStart(): Promise<void> {
    if (opts.metricsListen) {
      try {
        metricsListener = await startMetricsListener(opts.metricsListen, {
          registry: summed(aggregator, scrape),
        });
      } catch (err) {
        const { host, port } = opts.metricsListen;
        process.stderr.write(
          `mcp-beaver serve: cannot listen for metrics on ${host}:${port}: ${(err as Error).message}\n`,
        );
        stop(1);
        return;
      }
    }
    if (stopping) return;
    if (opts.watch)
      watcher = await watchSpecFile(
        opts.file,
        () => reload('file changed'),
        () => spec.resources.flatMap((r) => (r.file ? [r.file] : [])),
      );
    logger.info(
      {
        url: firstUrl,
        mcp: `${firstUrl}/mcp`,
        api: `${firstUrl}/api`,
        ...(metricsListener && { metrics: `${metricsListener.url}/metrics` }),
        workers,
        workerPids: slots.map((s) => s.worker?.process.pid),
        tools: spec.tools.length,
        spec: opts.file,
        server: spec.server.name,
      },
      'mcp-beaver listening',
    );
  }

  let exitCode = 0;
  const stop = (code: number): void => {
    if (stopping) return;
    stopping = true;
    exitCode = code;
    watcher?.close();
    for (const s of slots) {
      if (s.respawn) clearTimeout(s.respawn);
      s.respawn = undefined;
      // Each worker drains on its own SIGTERM as a lone `serve` does.
      s.worker?.process.kill('SIGTERM');
    }
    const killer = setTimeout(() => {
      for (const s of slots) s.worker?.process.kill('SIGKILL');
    }, opts.graceMs + EXIT_MARGIN_MS);
    killer.unref();
    if (slots.every((s) => s.worker === undefined)) finish();
  };

  const finish = (): void => {
    void (metricsListener?.close() ?? Promise.resolve()).then(() => {
      logger.info({ code: exitCode }, 'stopped');
      resolveExit(exitCode);
    });
  };

  const onSignal = (signal: string): void => {
    logger.info(
      { signal, workers },
      'draining every worker: readiness fails, in-flight calls finish',
    );
    stop(0);
  };
  // From the start: SIGHUP's default would end the primary, and with it every worker.
  process.on('SIGHUP', () => reload('SIGHUP'));
  process.once('SIGTERM', () => onSignal('SIGTERM'));
  process.once('SIGINT', () => onSignal('SIGINT'));

  // A single executable runs no script: it puts its own path in argv[1], and puts it there
  // again in each child. Its workers are the binary with the arguments after that path.
  if (isSea()) cluster.setupPrimary({ exec: process.argv[2]!, args: process.argv.slice(3) });
  for (const slot of slots) fork(slot);
  return exited;
}

/** A registry whose text is the sum over the workers, for the metrics listener. */
function summed(aggregator: Registry, scrape: () => Promise<string>): Registry {
  // The listener reads `metrics()` and `contentType`; the text is the workers' sum.
  aggregator.metrics = scrape;
  return aggregator;
}
