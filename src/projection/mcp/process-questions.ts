/**
 * The open questions of a serving process (open-questions.ts), made once for its life like
 * the consent stores: with `limits redis-env`, answers reach them from every replica
 * (redis-answers.ts); without it, only answers POSTed to this process do.
 */
import type { Logger } from 'pino';
import type { CompiledSpec } from '../../compiler/descriptor.js';
import type { Env } from '../../process/env.js';
import { redisUrlFrom } from '../../engine/redis/redis-url.js';
import { OpenQuestions } from './open-questions.js';
import { KEEPALIVE_MS } from './question-stream.js';

/**
 * Test-only shortenings of the 10-minute wait and the 15-second keep-alive, so a suite can
 * see both happen; no test asserts a time.
 */
export const WAIT_ENV = 'MCP_BEAVER_TEST_QUESTION_WAIT_MS';
export const KEEPALIVE_ENV = 'MCP_BEAVER_TEST_KEEPALIVE_MS';

function positive(text: string | undefined): number | undefined {
  const n = text === undefined ? NaN : Number(text);
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

/**
 * The process's open questions. Made whatever the spec (an empty registry costs nothing,
 * and a reload may add the first `confirm` grant); the Redis relay is chosen at start, as
 * the rate limiter is: when the spec then has a `confirm` grant and `limits redis-env`.
 */
export async function openProcessQuestions(
  spec: CompiledSpec,
  env: Env,
  log?: Pick<Logger, 'warn'>,
): Promise<OpenQuestions> {
  let relay;
  if (spec.redisEnv !== undefined && spec.tools.some((d) => d.consent?.confirm)) {
    const url = redisUrlFrom(spec.redisEnv, env, 'to share open questions between replicas');
    const { createRedisAnswers } = await import('./redis-answers.js');
    relay = await createRedisAnswers(url);
  }
  const waitMs = positive(env[WAIT_ENV]);
  const keepAliveMs = positive(env[KEEPALIVE_ENV]) ?? KEEPALIVE_MS;
  return new OpenQuestions({
    keepAliveMs,
    ...(waitMs && { waitMs }),
    ...(relay && { relay }),
    onRelayError: (err) =>
      log?.warn(
        { questions: 'local', reason: err.message },
        'Redis did not take an open question or its answer: answers reach it only on this replica',
      ),
  });
}
