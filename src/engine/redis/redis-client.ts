/**
 * The one way the gateway connects to Redis (rate limits, confirmation states,
 * approvals): a client that never queues or retries a command, so a call that needs
 * Redis learns at once that it is not there (each user decides what that means: the
 * rate limiter falls back per pod, consent fails closed), while the client keeps
 * reconnecting in the background, backing off to one try every 2 s.
 */
import { Redis } from 'ioredis';

export interface RedisClientOptions {
  /** How long a connection attempt may take (default 500 ms). */
  readonly connectTimeoutMs?: number;
  /** How long one command may take (default 300 ms). */
  readonly commandTimeoutMs?: number;
}

export interface FailFastRedis {
  readonly client: Redis;
  readonly connectTimeoutMs: number;
  /** The last connection error's message, for the log line that says why Redis is away. */
  lastError(): string | undefined;
  /** Waits for the first connection a moment (connect timeout + 100 ms), never longer. */
  firstConnection(): Promise<void>;
}

export function failFastRedis(url: string, opts: RedisClientOptions = {}): FailFastRedis {
  const connectTimeoutMs = opts.connectTimeoutMs ?? 500;
  const client = new Redis(url, {
    connectTimeout: connectTimeoutMs,
    commandTimeout: opts.commandTimeoutMs ?? 300,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    retryStrategy: (times) => Math.min(100 * 2 ** Math.min(times, 5), 2_000),
    lazyConnect: false,
  });
  let lastError: string | undefined;
  // Without a listener an 'error' event would throw; the reason is kept for the log line.
  client.on('error', (err: Error) => {
    lastError = err.message;
  });
  return {
    client,
    connectTimeoutMs,
    lastError: () => lastError,
    firstConnection: () =>
      new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          client.off('ready', done);
          client.off('error', done);
          resolve();
        };
        const timer = setTimeout(done, connectTimeoutMs + 100);
        client.once('ready', done);
        client.once('error', done);
      }),
  };
}

/**
 * Whether Redis answers, as one store tells its log: `onChange(down, reason)` once per
 * change, from the connection's events and from each command's fate, and never after
 * close() (disconnecting is no outage).
 */
export interface RedisHealth {
  /** Why Redis cannot take a command now (marking it down), or undefined when it can. */
  unready(): string | undefined;
  down(reason: string): void;
  up(): void;
  /** Disconnects; no change is told after it. */
  close(): void;
}

/** Watches `redis` after giving its first connection a moment (firstConnection). */
export async function watchRedis(
  redis: FailFastRedis,
  onChange: (down: boolean, reason?: string) => void,
): Promise<RedisHealth> {
  const { client } = redis;
  let down = false;
  let closing = false;
  const set = (on: boolean, reason?: string): void => {
    if (on === down || closing) return;
    down = on;
    onChange(on, reason);
  };
  client.on('ready', () => set(false));
  client.on('close', () => set(true, redis.lastError() ?? 'connection closed'));
  await redis.firstConnection();
  if (client.status !== 'ready')
    set(true, redis.lastError() ?? `not connected within ${redis.connectTimeoutMs} ms`);
  return {
    unready() {
      if (client.status === 'ready') return undefined;
      const reason = redis.lastError() ?? `connection ${client.status}`;
      set(true, reason);
      return reason;
    },
    down: (reason) => set(true, reason),
    up: () => set(false),
    close() {
      closing = true;
      client.disconnect();
    },
  };
}
