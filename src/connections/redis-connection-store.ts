/**
 * Connected accounts in Redis (`limits redis-env`): every replica reads the same
 * records. Only ciphertext is written (connection-store.ts), under keys that hold the
 * provider's name and an HMAC of the caller, never a caller's id or a token. Connected
 * the way every Redis user of the gateway is (redis-client.ts): a command that cannot be
 * sent fails at once, and the call asking answers that the connection cannot be read.
 */
import { failFastRedis } from '../engine/redis/redis-client.js';
import type { RecordBackend } from './connection-store.js';

export const CONNECTION_PREFIX = 'mcpb:conn:';

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
    async close() {
      client.disconnect();
    },
  };
}
