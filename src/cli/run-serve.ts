/**
 * `mcp-beaver serve <spec>`: compile, prepare, listen, and drain on SIGTERM/SIGINT; with
 * --stdio, serve MCP on stdin/stdout instead (run-serve-stdio.ts). With --workers N > 1
 * this process becomes the primary (server/workers/primary.ts), which forks N copies of
 * this same command; each of them runs the rest of this function as a worker.
 */
import cluster from 'node:cluster';
import { parseListen } from '../server/listen-address.js';
import { createLogger } from '../server/logger.js';
import { startServer } from '../server/start.js';
import { watchSpecFile } from '../server/spec-watcher.js';
import { missingVariables, missingVariablesMessage } from '../server/spec-environment.js';
import { runPrimary } from '../server/workers/primary.js';
import { workersRefusal } from '../server/workers/shared-state.js';
import { parseWorkers } from '../server/workers/worker-count.js';
import { joinWorkerSet } from '../server/workers/worker-side.js';
import { parseWarmUp } from '../server/warm-up/warm-up-setting.js';
import { parseDuration } from '../compiler/values.js';
import { SERVE_COMMAND } from './commands/serve-command.js';
import { parseOperands } from './operands.js';
import { commandMessages, loadSpecOrReport } from './output.js';
import { listenerFlagsGiven, runServeStdio, startOrReport } from './run-serve-stdio.js';

const { badValue } = commandMessages(SERVE_COMMAND);

export async function runServe(argv: string[]): Promise<number> {
  const code = await serve(argv);
  // A worker's IPC channel would keep it alive after a drain or a failed start: letting
  // go of it also tells the primary that this exit is meant.
  if (cluster.isWorker) cluster.worker?.disconnect();
  return code;
}

async function serve(argv: string[]): Promise<number> {
  const parsed = parseOperands(SERVE_COMMAND, argv);
  if (typeof parsed === 'number') return parsed;
  const { values, given, operands } = parsed;
  const file = operands[0];
  const listen = parseListen(values.http);
  const metricsListen =
    values['metrics-http'] === undefined
      ? undefined
      : parseListen(values['metrics-http'], '--metrics-http');
  const graceMs = parseDuration(values.grace);
  const maxInFlight = Number(values['max-in-flight']);
  const workers = parseWorkers(values.workers);
  // stdio serves one local caller, who starts the process: it does not warm up.
  const warmUp = values.stdio ? 0 : parseWarmUp(values['warm-up'], process.env);
  const refused =
    typeof listen === 'string'
      ? listen
      : typeof metricsListen === 'string'
        ? metricsListen
        : graceMs === undefined
          ? `--grace ${JSON.stringify(values.grace)} is not a duration like 10s`
          : !(Number.isInteger(maxInFlight) && maxInFlight > 0)
            ? '--max-in-flight takes a positive whole number'
            : typeof workers === 'string'
              ? workers
              : typeof warmUp === 'string'
                ? warmUp
                : undefined;
  if (
    refused !== undefined ||
    typeof listen === 'string' ||
    typeof metricsListen === 'string' ||
    typeof workers === 'string' ||
    typeof warmUp === 'string'
  )
    return badValue(String(refused));
  const stdio = values.stdio ?? false;
  const listenerFlags = stdio ? listenerFlagsGiven(given) : [];
  if (listenerFlags.length > 0)
    return badValue(
      `--stdio has no HTTP listener: ${listenerFlags.join(', ')} do${listenerFlags.length === 1 ? 'es' : ''} not apply`,
    );
  if (!stdio && values['key-env'] !== undefined)
    return badValue('--key-env names the key of the stdio caller: it goes with --stdio');
  if (!stdio && values.toolset !== undefined)
    return badValue(
      '--toolset goes with --stdio: over HTTP every toolset is served at /mcp/<toolset>',
    );

  const overrides = values['base-url'] !== undefined ? { baseUrl: values['base-url'] } : {};
  const compiled = await loadSpecOrReport(file, overrides);
  if (typeof compiled === 'number') return compiled;
  if (stdio) return runServeStdio(compiled, file, values, graceMs);
  const unshared = workersRefusal(compiled, workers);
  if (unshared !== undefined) return badValue(unshared);
  if (workers > 1 && cluster.isPrimary) {
    // Checked here too, so a missing variable is said once, not once per worker.
    const missing = missingVariables(compiled, process.env);
    if (missing.length > 0) {
      process.stderr.write(`mcp-beaver serve: ${missingVariablesMessage(compiled, missing)}\n`);
      return 1;
    }
    return runPrimary({
      spec: compiled,
      file,
      overrides,
      workers,
      logger: createLogger(values['log-level'], undefined, { role: 'primary', pid: process.pid }),
      graceMs: graceMs!,
      watch: !(values['no-watch'] ?? false),
      ...(metricsListen && { metricsListen }),
    });
  }
  const worker = joinWorkerSet();

  const logger = createLogger(values['log-level'], undefined, worker?.bindings);
  const server = await startOrReport(
    () =>
      startServer({
        spec: compiled,
        listen,
        logger,
        insecureNoAuth: values['insecure-no-auth'] ?? false,
        specFile: file,
        overrides,
        allowedHosts: values['allowed-host'] ?? [],
        maxInFlight,
        ...(values['public-url'] !== undefined && { publicUrl: values['public-url'] }),
        // A worker's metrics are served by the primary's listener, summed.
        ...(metricsListen && !worker && { metricsListen }),
        ...(values.otlp !== undefined && { otlp: values.otlp }),
        ...(worker && { workers, metricsFrom: (r) => worker.shareMetrics(r) }),
        warmUp,
      }),
    worker && ((message: string) => worker.startFailed(message)),
  );
  if (typeof server === 'number') return server;
  // Hot reload: SIGHUP, and changes to the file (a ConfigMap update included).
  const reload = (why: string): void => {
    logger.info({ why }, 'reloading the spec');
    server.reload().catch((err: unknown) => logger.error({ err }, 'spec reload failed'));
  };
  // The handler stays while draining: a SIGHUP then is refused, never the default exit.
  process.on('SIGHUP', () => reload('SIGHUP'));
  // In a worker set the primary alone watches, and tells every worker.
  worker?.onReload(reload);
  const watcher =
    values['no-watch'] || worker
      ? undefined
      : await watchSpecFile(
          file,
          () => reload('file changed'),
          // Resource files are part of the spec: editing one reloads it.
          () => server.gateway.spec.resources.flatMap((r) => (r.file ? [r.file] : [])),
        );

  // Signal handlers are in place before the "listening" line, which callers wait for.
  const stopped = new Promise<number>((resolve) => {
    let stopping = false;
    const stop = (signal: string): void => {
      // A terminal's Ctrl-C reaches a worker twice: itself, and forwarded by the primary.
      if (stopping) return;
      stopping = true;
      watcher?.close();
      logger.info(
        { signal, inFlight: server.gateway.busy },
        'draining: readiness fails, in-flight calls finish',
      );
      void server.shutdown(graceMs).then(() => {
        logger.info('stopped');
        resolve(0);
      });
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });

  if (worker) {
    logger.info({ url: server.url }, 'worker listening');
    worker.listening(server.url);
    return stopped;
  }
  const { tools, server: info } = compiled;
  logger.info(
    {
      url: server.url,
      mcp: `${server.url}/mcp`,
      api: `${server.url}/api`,
      ...(server.metricsUrl && { metrics: `${server.metricsUrl}/metrics` }),
      tools: tools.length,
      spec: file,
      server: info.name,
    },
    'mcp-beaver listening',
  );
  return stopped;
}
