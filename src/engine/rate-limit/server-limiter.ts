/**
 * The limiter a server process holds for its whole life (reloads keep it, so counts
 * survive them): per pod by default, shared through Redis when `limits redis-env="V"`
 * names a variable holding a redis:// URL.
 */
import type { Logger } from 'pino';
import type { Env } from '../env.js';
import { StartupError } from '../startup-error.js';
import type { CompiledSpec } from '../../compiler/descriptor.js';
import { createMemoryLimiter } from './memory-limiter.js';
import type { RateLimiter } from './rate-limiter.js';

export interface ServerLimiterOptions {
  readonly env: Env;
  readonly log?: Pick<Logger, 'warn' | 'info'>;
  readonly onFallback?: (active: boolean) => void;
}

export async function createServerLimiter(
  spec: CompiledSpec,
  opts: ServerLimiterOptions,
): Promise<RateLimiter> {
  const variable = spec.redisEnv;
  if (variable === undefined) return createMemoryLimiter();
  const url = opts.env[variable];
  if (url === undefined || url === '')
    throw new StartupError(
      `limits redis-env="${variable}": the variable ${variable} is not set; set it to a redis:// URL, or remove redis-env to count rate limits per pod`,
    );
  let scheme: string | undefined;
  try {
    scheme = new URL(url).protocol;
  } catch {
    scheme = undefined;
  }
  // The value is never echoed: a Redis URL may hold a password.
  if (scheme !== 'redis:' && scheme !== 'rediss:')
    throw new StartupError(
      `limits redis-env="${variable}": ${variable} does not hold a redis:// or rediss:// URL`,
    );
  // Loaded only here: ioredis costs about 20 MB of RSS and 100 ms of start-up to every
  // process that imports it, and most specs count per pod.
  const { createRedisLimiter } = await import('./redis-limiter.js');
  return createRedisLimiter(url, {
    fallback: createMemoryLimiter(),
    ...(opts.log && { log: opts.log }),
    ...(opts.onFallback && { onFallback: opts.onFallback }),
  });
}
