/**
 * Answers to 2025-era questions across replicas (`limits redis-env`): the asking replica
 * records `question id → caller digest` (expiring with the wait) and listens on one
 * channel; the replica that receives the answer POST takes the record if it is the same
 * caller's (one Lua step, so a second answer finds nothing) and publishes the answer,
 * which the asking replica hands to its waiting request. Commands fail fast (redis-client.ts);
 * the listener is a second connection in subscriber mode, resubscribing when it reconnects.
 */
import { Redis } from 'ioredis';
import { failFastRedis } from '../../engine/redis/redis-client.js';
import type { AnswerRelay, ConfirmAnswer } from './open-questions.js';

const PREFIX = 'mcpb:question:';
const CHANNEL = 'mcpb:question-answers';
const ANSWERS: readonly ConfirmAnswer[] = ['yes', 'no', 'dismissed', 'unreadable'];

/** Deletes the record only when it is the caller's: 1 when taken, 0 otherwise. */
const CLAIM = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;

export async function createRedisAnswers(url: string): Promise<AnswerRelay> {
  const redis = failFastRedis(url);
  // Queued until connected, so the subscription is made whenever Redis first answers.
  const listener = new Redis(url, {
    retryStrategy: (times) => Math.min(100 * 2 ** Math.min(times, 5), 2_000),
  });
  listener.on('error', () => undefined);
  await redis.firstConnection();
  let takers: ((id: string, answer: ConfirmAnswer) => void)[] = [];
  listener.on('message', (_channel: string, text: string) => {
    let msg: unknown;
    try {
      msg = JSON.parse(text);
    } catch {
      return;
    }
    const { id, answer } = (msg ?? {}) as { id?: unknown; answer?: unknown };
    if (typeof id !== 'string' || !ANSWERS.includes(answer as ConfirmAnswer)) return;
    for (const take of takers) take(id, answer as ConfirmAnswer);
  });
  await listener.subscribe(CHANNEL).catch(() => undefined);
  return {
    async record(id, callerKey, ttlMs) {
      await redis.client.set(`${PREFIX}${id}`, callerKey, 'PX', ttlMs);
    },
    forget(id) {
      redis.client.del(`${PREFIX}${id}`).catch(() => undefined);
    },
    async claim(id, callerKey) {
      return (await redis.client.eval(CLAIM, 1, `${PREFIX}${id}`, callerKey)) === 1;
    },
    async publish(id, answer) {
      await redis.client.publish(CHANNEL, JSON.stringify({ id, answer }));
    },
    listen(take) {
      takers.push(take);
    },
    async close() {
      takers = [];
      redis.client.disconnect();
      listener.disconnect();
    },
  };
}
