/**
 * The shared limiter: one count per key in Redis, so every replica spends the same
 * allowance. One round trip per call (a Lua script: INCR, and PEXPIRE when the key is
 * new), timed by Redis's own clock, so replicas whose clocks differ still agree.
 *
 * Redis never fails a call: when the client is not connected, or a command errors or
 * takes longer than the command timeout, that call is counted by the per-pod fallback
 * instead, and the switch is logged and reported once (`onFallback(true)`); the first
 * answer from Redis afterwards switches back (`onFallback(false)`).
 */
import type { Logger } from 'pino';
import { failFastRedis, watchRedis } from '../redis/redis-client.js';
import type { RateDecision, RateLimit, RateLimiter } from './rate-limiter.js';

/** KEYS[1] the counter; ARGV[1] the window in ms. Returns {count, ms left in the window}. */
const HIT_SCRIPT = `
local n = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {n, ttl}
`;

export interface RedisLimiterOptions {
  /** Counts calls while Redis cannot. */
  readonly fallback: RateLimiter;
  /** true when calls start falling back, false when Redis answers again. */
  readonly onFallback?: (active: boolean) => void;
  readonly log?: Pick<Logger, 'warn' | 'info'>;
  /** Prepended to every key (default `mcpb:rl:`). */
  readonly prefix?: string;
  readonly connectTimeoutMs?: number;
  readonly commandTimeoutMs?: number;
}

interface HitCommand {
  mcpbRateHit(key: string, windowMs: number): Promise<[number, number]>;
}

export async function createRedisLimiter(
  url: string,
  opts: RedisLimiterOptions,
): Promise<RateLimiter> {
  const prefix = opts.prefix ?? 'mcpb:rl:';
  // No queue while disconnected and no retries: a call falls back at once, never waits.
  const redis = failFastRedis(url, opts);
  redis.client.defineCommand('mcpbRateHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
  const hitCommand = redis.client as unknown as HitCommand;
  // Given a moment first, so the first calls are shared when Redis is up.
  const health = await watchRedis(redis, (on, reason) => {
    if (on)
      opts.log?.warn(
        { rateLimit: 'fallback', reason },
        'Redis is unreachable: rate limits fall back to per-pod counting until it answers again',
      );
    else opts.log?.info({ rateLimit: 'shared' }, 'Redis answers again: rate limits are shared');
    try {
      opts.onFallback?.(on);
    } catch {
      // A reporting hook never breaks counting.
    }
  });

  return {
    async hit(key: string, limit: RateLimit): Promise<RateDecision> {
      if (health.unready() !== undefined) return opts.fallback.hit(key, limit);
      try {
        const [count, ttl] = await hitCommand.mcpbRateHit(
          `${prefix}${limit.windowMs}:${key}`,
          limit.windowMs,
        );
        health.up();
        const allowed = Number(count) <= limit.count;
        return { allowed, retryAfterMs: allowed ? 0 : Math.max(1, Number(ttl)) };
      } catch (err) {
        health.down((err as Error).message);
        return opts.fallback.hit(key, limit);
      }
    },
    async close() {
      health.close();
      await opts.fallback.close();
    },
  };
}
