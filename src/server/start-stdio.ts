/**
 * `serve --stdio`: the spec's MCP endpoint over stdin and stdout, for a host that
 * launches its servers. The same process parts as a listener (open-process.ts:
 * telemetry, limits, consent, one runtime) without the HTTP side: no listener, no
 * readiness, no GET /metrics, no reload (a host restarts the process to pick up a change).
 */
import type { Readable, Writable } from 'node:stream';
import { stdioCaller } from '../access/stdio-caller.js';
import type { CompiledSpec } from '../compiler/descriptor.js';
import { Cancellation } from '../outbound/cancellation.js';
import { StartupError } from '../process/startup-error.js';
import { serveStdio } from '../projection/mcp/stdio-transport.js';
import { BODY_LIMIT } from './app.js';
import { redactLogLines } from './logger.js';
import { openProcess, type ProcessOptions } from './open-process.js';

export interface StdioStartOptions extends Pick<
  ProcessOptions,
  'spec' | 'logger' | 'env' | 'maxInFlight' | 'otlp' | 'telemetry'
> {
  /** `--key-env`: the variable holding the API key the caller acts as (a spec with `access`). */
  readonly keyEnv?: string;
  /** `--toolset`: only that toolset's members are listed and callable, as at `/mcp/<toolset>`. */
  readonly toolset?: string;
  readonly input: Readable;
  readonly output: Writable;
}

export interface RunningStdio {
  /** Settles when stdin has ended and every answer is written; the process is then closed. */
  readonly served: Promise<void>;
  /** SIGTERM: running calls are cancelled, then everything closes within `graceMs`. */
  shutdown(graceMs?: number): Promise<void>;
}

/** Grants whose `approve` needs the approvals page, which only the HTTP listener serves. */
function needsApprovalPage(spec: CompiledSpec): string[] {
  return spec.tools.filter((t) => t.consent?.approve).map((t) => t.name);
}

export async function startStdio(opts: StdioStartOptions): Promise<RunningStdio> {
  const { spec, logger } = opts;
  const env = opts.env ?? process.env;
  const caller = stdioCaller(spec.access, env, opts.keyEnv);
  if (opts.toolset !== undefined && !spec.toolsets.some((t) => t.name === opts.toolset)) {
    const names = spec.toolsets.map((t) => t.name);
    throw new StartupError(
      `--toolset ${JSON.stringify(opts.toolset)}: the spec has no toolset of that name (${names.length === 0 ? 'it has no toolsets' : `its toolsets: ${names.join(', ')}`})`,
    );
  }
  const approved = needsApprovalPage(spec);
  if (approved.length > 0)
    throw new StartupError(
      `--stdio cannot serve ${approved.join(', ')}: an \`approve\` is given on the approvals page, which only the HTTP listener serves; serve this spec without --stdio`,
    );
  const { runtime, closeShared } = await openProcess({ ...opts, env }, true, false);
  if (logger) redactLogLines(logger, runtime.gateway.redact);
  const stop = new Cancellation();
  let closing: Promise<void> | undefined;
  const close = (graceMs: number): Promise<void> =>
    (closing ??= (async () => {
      const grace = new Promise<void>((resolve) => setTimeout(resolve, graceMs).unref());
      await Promise.race([runtime.gateway.drain(), grace]);
      await runtime.gateway.close();
      await closeShared();
    })());
  const served = serveStdio({
    runtime,
    caller,
    input: opts.input,
    output: opts.output,
    maxLineBytes: BODY_LIMIT,
    stop,
    ...(opts.toolset !== undefined && { toolset: opts.toolset }),
  }).then(() => close(0));
  return {
    served,
    shutdown(graceMs = 10_000) {
      stop.cancel();
      return close(graceMs);
    },
  };
}
