/**
 * What several workers must share and only Redis can hold for them: rate-limit counts,
 * pending approvals and confirmations, spent confirmation states, open 2025-era questions. Without `limits redis-env` each worker
 * would keep its own, so a caller would get N times its limit and an approval given in one
 * worker would be unknown to the next; `serve --workers N` refuses such a spec (at start,
 * and at reload) rather than serve it wrongly.
 */
import type { CompiledSpec } from '../../compiler/descriptor.js';

/** The stable code of the refusal, first in its message (docs: README, "Workers"). */
export const WORKERS_NEED_REDIS = 'WORKERS_NEED_REDIS';

/** `serve`'s start-up refusals that carry a code, as docs/errors.md lists them. */
export const STARTUP_REFUSAL_CODES = {
  [WORKERS_NEED_REDIS]:
    '`serve --workers N` (N > 1) of a spec with `rate-limit`, `confirm` or `approve` grants or `access sign-in` and no `limits redis-env`: each worker would keep its own counts, approvals, confirmations, open questions and spent sign-in codes. Add `limits redis-env`, or serve one worker',
} as const;

/** Why `workers` processes cannot serve `spec`, or undefined when they can. */
export function workersRefusal(spec: CompiledSpec, workers: number): string | undefined {
  if (workers <= 1 || spec.redisEnv !== undefined) return undefined;
  const limited = spec.tools.filter((d) => d.limits.rateLimit !== undefined);
  const consent = spec.tools.filter((d) => d.consent !== undefined);
  // Codes and refresh tokens are single use: spent in one worker, replayable in another.
  const signIn = spec.access?.signIn !== undefined;
  if (limited.length === 0 && consent.length === 0 && !signIn) return undefined;
  const named = (what: string, tools: typeof limited): string[] => {
    if (tools.length === 0) return [];
    const first = tools[0]!;
    const more = tools.length > 1 ? ` and ${tools.length - 1} more` : '';
    return [`${what} (grant "${first.name}" at line ${first.source.line}${more})`];
  };
  const held = [
    ...named('rate-limit counts', limited),
    ...named(
      'pending approvals and confirmations, spent confirmation states and open 2025-era questions',
      consent,
    ),
    ...(signIn ? ['spent sign-in codes and refresh tokens (access sign-in)'] : []),
  ].join(' and ');
  return (
    `${WORKERS_NEED_REDIS}: --workers ${workers} runs ${workers} processes, and without \`limits redis-env\` each keeps its own ${held}: ` +
    `a caller would get ${workers} times its rate limit, and an approval or confirmation given in one worker would be unknown to the others. ` +
    'Add `limits redis-env="REDIS_URL"` to the spec (the variable holding a redis:// URL), or serve with --workers 1.'
  );
}
