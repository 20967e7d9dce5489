/**
 * The warm-up as start-up runs it: its line at info when done, and when it fails for any
 * reason a warning, and the gateway serves anyway. A failed warm-up costs the first
 * calls their speed, never the pod its readiness.
 */
import type { Logger } from 'pino';
import { warmUp, type WarmUpResult } from './warm-up.js';

export async function warmUpOrWarn(
  calls: number,
  logger: Logger | false,
  run: (calls: number, logger: Logger | false) => Promise<WarmUpResult> = warmUp,
): Promise<void> {
  try {
    const done = await run(calls, logger);
    if (logger) logger.info({ calls: done.calls, ms: done.ms }, 'warmed up');
  } catch (err) {
    if (logger)
      logger.warn(
        { err: err instanceof Error ? err.message : String(err) },
        'warm-up failed; serving without it',
      );
  }
}
