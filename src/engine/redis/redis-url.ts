/**
 * The Redis URL `limits redis-env="V"` names, checked once for every user of it (rate
 * limits, confirmation states, approvals). Its own file, without ioredis: the check runs
 * in every process whose spec names a variable, and loading the client is left to the
 * user that needs it.
 */
import type { Env } from '../../process/env.js';
import { StartupError } from '../../process/startup-error.js';

/** The URL in `variable`, or a StartupError naming the variable (never its value). */
export function redisUrlFrom(variable: string, env: Env, withoutIt: string): string {
  const url = env[variable];
  if (url === undefined || url === '')
    throw new StartupError(
      `limits redis-env="${variable}": the variable ${variable} is not set; set it to a redis:// URL, or remove redis-env ${withoutIt}`,
    );
  let scheme: string | undefined;
  try {
    scheme = new URL(url).protocol;
  } catch {
    scheme = undefined;
  }
  // The value is never echoed: a Redis URL may hold a password.
  if (scheme !== 'redis:' && scheme !== 'rediss:')
    throw new StartupError(
      `limits redis-env="${variable}": ${variable} does not hold a redis:// or rediss:// URL`,
    );
  return url;
}
