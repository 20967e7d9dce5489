/**
 * The limiter a server process holds for its whole life (reloads keep it, so counts
 * survive them): per pod by default, shared through Redis when `limits redis-env="V"`
 * names a variable holding a redis:// URL.
 */
import type { Logger } from 'pino';
import type { Env } from '../../process/env.js';
import { redisUrlFrom } from '../redis/redis-url.js';
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
  const url = redisUrlFrom(variable, opts.env, 'to count rate limits per pod');
  // Loaded only here: ioredis costs about 20 MB of RSS and 100 ms of start-up to every
  // process that imports it, and most specs count per pod.
  const { createRedisLimiter } = await import('./redis-limiter.js');
  return createRedisLimiter(url, {
    fallback: createMemoryLimiter(),
    ...(opts.log && { log: opts.log }),
    ...(opts.onFallback && { onFallback: opts.onFallback }),
  });
}
