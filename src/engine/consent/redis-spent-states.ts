/**
 * Spent confirmation states shared through Redis: one `SET <prefix><nonce> 1 NX PX <ttl>`
 * per spend, so of two replicas receiving the same state only one succeeds. Connected
 * the way the shared rate limiter is (rate-limit/redis-limiter.ts): no offline queue, no
 * retries, a short command timeout, reconnecting in the background.
 *
 * Unlike the limiter there is no per-pod fallback: a spend Redis did not record could be
 * replayed on another replica, so while Redis cannot answer every spend is refused
 * (false), and the switch is logged once each way.
 */
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { SpentStates } from './spent-states.js';

export interface RedisSpentStatesOptions {
  readonly log?: Pick<Logger, 'warn' | 'info'>;
  /** Prepended to every key (default `mcpb:consent:`). */
  readonly prefix?: string;
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
  const now = opts.now ?? Date.now;
  const skew = opts.clockSkewMs ?? 60_000;
  const connectTimeout = opts.connectTimeoutMs ?? 500;
  const client = new Redis(url, {
    connectTimeout,
    commandTimeout: opts.commandTimeoutMs ?? 300,
    // No queue while disconnected and no retries: a spend is refused at once, never waits.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    retryStrategy: (times) => Math.min(100 * 2 ** Math.min(times, 5), 2_000),
    lazyConnect: false,
  });

  let down = false;
  let closing = false;
  let lastError: string | undefined;
  const setDown = (on: boolean, reason?: string): void => {
    if (on === down || closing) return;
    down = on;
    if (on)
      opts.log?.warn(
        { consent: 'unavailable', reason },
        'Redis is unreachable: confirmations are refused until it answers again',
      );
    else opts.log?.info({ consent: 'shared' }, 'Redis answers again: confirmations are accepted');
  };
  // Without a listener an 'error' event would throw; the reason is kept for the log line.
  client.on('error', (err: Error) => {
    lastError = err.message;
  });
  client.on('ready', () => setDown(false));
  client.on('close', () => setDown(true, lastError ?? 'connection closed'));

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
    setDown(true, lastError ?? `not connected within ${connectTimeout} ms`);

  return {
    async markSpent(nonce, expiresAt) {
      const ttl = expiresAt - now();
      if (ttl <= 0) return false;
      if (client.status !== 'ready') {
        setDown(true, lastError ?? `connection ${client.status}`);
        return false;
      }
      try {
        const answer = await client.set(`${prefix}${nonce}`, '1', 'PX', ttl + skew, 'NX');
        setDown(false);
        return answer === 'OK';
      } catch (err) {
        lastError = (err as Error).message;
        setDown(true, lastError);
        return false;
      }
    },
    async close() {
      closing = true;
      client.disconnect();
    },
  };
}
