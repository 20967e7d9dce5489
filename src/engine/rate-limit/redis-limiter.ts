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
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
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
  const connectTimeout = opts.connectTimeoutMs ?? 500;
  const client = new Redis(url, {
    connectTimeout,
    commandTimeout: opts.commandTimeoutMs ?? 300,
    // No queue while disconnected and no retries: a call falls back at once, never waits.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    // Keep reconnecting, backing off to one try every 2 s.
    retryStrategy: (times) => Math.min(100 * 2 ** Math.min(times, 5), 2_000),
    lazyConnect: false,
  });
  client.defineCommand('mcpbRateHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
  const hitCommand = client as unknown as HitCommand;

  let active = false;
  let closing = false;
  let lastError: string | undefined;
  const setFallback = (on: boolean, reason?: string): void => {
    if (on === active || closing) return;
    active = on;
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
  };
  // Without a listener an 'error' event would throw; the reason is kept for the log line.
  client.on('error', (err: Error) => {
    lastError = err.message;
  });
  client.on('ready', () => setFallback(false));
  client.on('close', () => setFallback(true, lastError ?? 'connection closed'));

  // Give the first connection a moment, so the first calls are shared when Redis is up.
  await new Promise<void>((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      client.off('ready', done);
      client.off('error', done);
      resolve();
    };
    const timer = setTimeout(done, connectTimeout + 100);
    client.once('ready', done);
    client.once('error', done);
  });
  if (client.status !== 'ready')
    setFallback(true, lastError ?? `not connected within ${connectTimeout} ms`);

  return {
    async hit(key: string, limit: RateLimit): Promise<RateDecision> {
      if (client.status !== 'ready') {
        setFallback(true, lastError ?? `connection ${client.status}`);
        return opts.fallback.hit(key, limit);
      }
      try {
        const [count, ttl] = await hitCommand.mcpbRateHit(
          `${prefix}${limit.windowMs}:${key}`,
          limit.windowMs,
        );
        setFallback(false);
        const allowed = Number(count) <= limit.count;
        return { allowed, retryAfterMs: allowed ? 0 : Math.max(1, Number(ttl)) };
      } catch (err) {
        lastError = (err as Error).message;
        setFallback(true, lastError);
        return opts.fallback.hit(key, limit);
      }
    },
    async close() {
      closing = true;
      client.disconnect();
      await opts.fallback.close();
    },
  };
}
