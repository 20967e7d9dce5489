/**
 * Connected accounts in Redis (`limits redis-env`): every replica reads the same
 * records. Only ciphertext is written (connection-store.ts), under keys that hold the
 * provider's name and an HMAC of the caller, never a caller's id or a token. Connected
 * the way every Redis user of the gateway is (redis-client.ts): a command that cannot be
 * sent fails at once, and the call asking answers that the connection cannot be read.
 */
import { randomUUID } from 'node:crypto';
import { failFastRedis } from '../engine/redis/redis-client.js';
import type { RecordBackend } from './connection-store.js';

export const CONNECTION_PREFIX = 'mcpb:conn:';

const RELEASE_IF_MINE =
  "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

export async function redisRecords(
  url: string,
  prefix = CONNECTION_PREFIX,
): Promise<RecordBackend> {
  const redis = failFastRedis(url);
  await redis.firstConnection();
  const { client } = redis;
  return {
    async read(key) {
      const v = await client.get(prefix + key);
      return v ?? undefined;
    },
    async write(key, value, ttlMs) {
      if (ttlMs === undefined) await client.set(prefix + key, value);
      else await client.set(prefix + key, value, 'PX', Math.ceil(ttlMs));
    },
    async delete(key) {
      return (await client.del(prefix + key)) > 0;
    },
    async lock(key, ttlMs) {
      const mine = randomUUID();
      const taken = await client.set(prefix + key, mine, 'PX', ttlMs, 'NX');
      if (taken !== 'OK') return undefined;
      // Released only while still ours: a lock that outlived its holder may be another's now.
      return async () => {
        await client.eval(RELEASE_IF_MINE, 1, prefix + key, mine).catch(() => undefined);
      };
    },
    async close() {
      client.disconnect();
    },
  };
}
