/**
 * Spent confirmation states shared through Redis: one `SET <prefix><nonce> 1 NX PX <ttl>`
 * per spend, so of two replicas receiving the same state only one succeeds. Connected
 * the way the shared rate limiter is (rate-limit/redis-limiter.ts): no offline queue, no
 * retries, a short command timeout, reconnecting in the background.
 *
 * Unlike the limiter there is no per-pod fallback: a spend Redis did not record could be
 * replayed on another replica, so while Redis cannot answer every spend is refused, and
 * the switch is logged once each way. Refused by rejecting, not by false: false says the
 * state was used already, and the step answers that CONFIRMATION_INVALID ("make the call
 * again", which would ask the user anew and fail again), where a store that does not
 * answer is CONSENT_UNAVAILABLE ("retry shortly", the same retry then succeeding).
 */
import type { Logger } from 'pino';
import { failFastRedis, watchRedis } from '../redis/redis-client.js';
import type { SpentStates } from './spent-states.js';

export interface RedisSpentStatesOptions {
  readonly log?: Pick<Logger, 'warn' | 'info'>;
  /** Prepended to every key (default `mcpb:consent:`). */
  readonly prefix?: string;
  /** What is single use here, for the log lines (default `confirmations`). */
  readonly what?: string;
  readonly connectTimeoutMs?: number;
  readonly commandTimeoutMs?: number;
  readonly now?: () => number;
  /**
   * Kept this much longer than the state's own expiry (default 60 s): replicas judge
   * expiry by their own clocks, and one running behind still accepts the state a while.
   */
  readonly clockSkewMs?: number;
}

export async function createRedisSpentStates(
  url: string,
  opts: RedisSpentStatesOptions = {},
): Promise<SpentStates> {
  const prefix = opts.prefix ?? 'mcpb:consent:';
  const what = opts.what ?? 'confirmations';
  const now = opts.now ?? Date.now;
  const skew = opts.clockSkewMs ?? 60_000;
  // No queue while disconnected and no retries: a spend is refused at once, never waits.
  const redis = failFastRedis(url, opts);
  const health = await watchRedis(redis, (down, reason) => {
    if (down)
      opts.log?.warn(
        { consent: 'unavailable', reason },
        `Redis is unreachable: ${what} are refused until it answers again`,
      );
    else opts.log?.info({ consent: 'shared' }, `Redis answers again: ${what} are accepted`);
  });

  return {
    async markSpent(nonce, expiresAt) {
      const ttl = expiresAt - now();
      if (ttl <= 0) return false;
      const unready = health.unready();
      if (unready !== undefined) throw new Error(`Redis cannot record the spend: ${unready}`);
      let answer: string | null;
      try {
        answer = await redis.client.set(`${prefix}${nonce}`, '1', 'PX', ttl + skew, 'NX');
      } catch (err) {
        health.down((err as Error).message);
        throw new Error(`Redis cannot record the spend: ${(err as Error).message}`, {
          cause: err,
        });
      }
      health.up();
      return answer === 'OK';
    },
    async close() {
      health.close();
    },
  };
}
