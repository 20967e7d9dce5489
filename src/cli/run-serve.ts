/**
 * `mcp-beaver serve <spec>`: compile, prepare, listen, and drain on SIGTERM/SIGINT; with
 * --stdio, serve MCP on stdin/stdout instead (run-serve-stdio.ts).
 */
import { parseListen } from '../server/listen-address.js';
import { createLogger } from '../server/logger.js';
import { startServer } from '../server/start.js';
import { watchSpecFile } from '../server/spec-watcher.js';
import { parseDuration } from '../compiler/values.js';
import { SERVE_COMMAND } from './commands/serve-command.js';
import { parseOperands } from './operands.js';
import { commandMessages, loadSpecOrReport } from './output.js';
import { listenerFlagsGiven, runServeStdio, startOrReport } from './run-serve-stdio.js';

const { badValue } = commandMessages(SERVE_COMMAND);

export async function runServe(argv: string[]): Promise<number> {
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
  const refused =
    typeof listen === 'string'
      ? listen
      : typeof metricsListen === 'string'
        ? metricsListen
        : graceMs === undefined
          ? `--grace ${JSON.stringify(values.grace)} is not a duration like 10s`
          : !(Number.isInteger(maxInFlight) && maxInFlight > 0)
            ? '--max-in-flight takes a positive whole number'
            : undefined;
  if (refused !== undefined || typeof listen === 'string' || typeof metricsListen === 'string')
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

  const logger = createLogger(values['log-level']);
  const server = await startOrReport(() =>
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
      ...(metricsListen && { metricsListen }),
      ...(values.otlp !== undefined && { otlp: values.otlp }),
    }),
  );
  if (typeof server === 'number') return server;
  // Hot reload: SIGHUP, and changes to the file (a ConfigMap update included).
  const reload = (why: string): void => {
    logger.info({ why }, 'reloading the spec');
    server.reload().catch((err: unknown) => logger.error({ err }, 'spec reload failed'));
  };
  // The handler stays while draining: a SIGHUP then is refused, never the default exit.
  process.on('SIGHUP', () => reload('SIGHUP'));
  const watcher = values['no-watch']
    ? undefined
    : await watchSpecFile(
        file,
        () => reload('file changed'),
        // Resource files are part of the spec: editing one reloads it.
        () => server.gateway.spec.resources.flatMap((r) => (r.file ? [r.file] : [])),
      );

  // Signal handlers are in place before the "listening" line, which callers wait for.
  const stopped = new Promise<number>((resolve) => {
    const stop = (signal: string): void => {
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
