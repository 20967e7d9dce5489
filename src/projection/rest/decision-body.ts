/**
 * The body of a decision on a parked call — `POST /api/approvals/<id>` (`approve` or
 * `decline`) and `POST /api/confirmations/<id>` (`confirm` or `decline`): one JSON
 * object whose `decision` is one of the route's two words. Read the same way by both
 * routes, so both refuse a bad body with the same code and field.
 */
import { engineError, type EngineError } from '../../engine/error-catalogue.js';

/** The decision the body names, or the refusal naming the two words it may be. */
export function decisionIn<W extends string>(
  body: unknown,
  words: readonly [W, W],
): { readonly decision: W } | { readonly error: EngineError } {
  const decision =
    body !== null && typeof body === 'object' && !Array.isArray(body)
      ? (body as Record<string, unknown>).decision
      : undefined;
  if ((words as readonly unknown[]).includes(decision)) return { decision: decision as W };
  const [a, b] = words;
  return {
    error: engineError('INVALID_ARGUMENTS', `send {"decision":"${a}"} or {"decision":"${b}"}`, {
      details: [{ field: '/decision', message: `must be "${a}" or "${b}"` }],
    }),
  };
}
