/**
 * `mcp-beaver serve <spec> --stdio`: MCP on stdin/stdout for a host that launches its
 * servers. stdout is the protocol's: every log line, start-up refusal and warning goes
 * to stderr, or the host's client would read it as a broken message.
 */
import type { CompiledSpec } from '../compiler/descriptor.js';
import { StartupError } from '../process/startup-error.js';
import { createLogger } from '../server/logger.js';
import { startStdio } from '../server/start-stdio.js';
import { SERVE_COMMAND } from './commands/serve-command.js';
import type { FlagValues } from './flags.js';

type ServeValues = FlagValues<(typeof SERVE_COMMAND)['flags']>;

/** The flags of the HTTP side, which --stdio has none of. */
const LISTENER_FLAGS = [
  'http',
  'allowed-host',
  'public-url',
  'insecure-no-auth',
  'metrics-http',
  'no-watch',
  'workers',
  'warm-up',
] as const;

/** The HTTP flags given beside --stdio, which it refuses rather than quietly ignore. */
export function listenerFlagsGiven(given: Partial<Record<string, unknown>>): string[] {
  return LISTENER_FLAGS.filter((f) => given[f] !== undefined).map((f) => `--${f}`);
}

/**
 * What `start` made, or exit code 1 after printing the StartupError that stopped it
 * (or handing it to `report`: a worker of `serve --workers` tells its primary, which
 * prints it once for them all).
 */
export async function startOrReport<T>(
  start: () => Promise<T>,
  report?: (message: string) => Promise<void>,
): Promise<T | number> {
  try {
    return await start();
  } catch (err) {
    if (!(err instanceof StartupError)) throw err;
    if (report) await report(err.message);
    else process.stderr.write(`mcp-beaver serve: ${err.message}\n`);
    return 1;
  }
}

export async function runServeStdio(
  spec: CompiledSpec,
  file: string,
  values: ServeValues,
  graceMs: number | undefined,
): Promise<number> {
  const logger = createLogger(values['log-level'], process.stderr);
  const served = await startOrReport(() =>
    startStdio({
      spec,
      logger,
      input: process.stdin,
      output: process.stdout,
      maxInFlight: Number(values['max-in-flight']),
      ...(values['key-env'] !== undefined && { keyEnv: values['key-env'] }),
      ...(values.toolset !== undefined && { toolset: values.toolset }),
      ...(values.otlp !== undefined && { otlp: values.otlp }),
    }),
  );
  if (typeof served === 'number') return served;
  const stopped = new Promise<number>((resolve) => {
    const stop = (signal: string): void => {
      logger.info({ signal }, 'stopping: running calls are cancelled');
      void served.shutdown(graceMs).then(() => resolve(0));
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });
  logger.info(
    {
      transport: 'stdio',
      tools: spec.tools.length,
      ...(values.toolset !== undefined && { toolset: values.toolset }),
      spec: file,
      server: spec.server.name,
    },
    'mcp-beaver serving MCP on stdin/stdout',
  );
  // stdin ended: the host is done with this server.
  return Promise.race([served.served.then(() => 0), stopped]);
}
