/** Upstream failures as catalogue errors, with nothing of the credential in them. */
import { engineError, type EngineError } from '../../error-catalogue.js';

const EXCERPT_CHARS = 512;

/**
 * A non-2xx answer: its status, and an excerpt of its (redacted) body when `body` is
 * given. A shaped grant gives none: the body may hold the fields its pick/omit removes.
 */
export function upstreamStatusError(status: number, body?: string): EngineError {
  const what =
    status >= 300 && status < 400
      ? `a ${status} redirect, which the gateway does not follow`
      : `status ${status}`;
  if (body === undefined)
    return engineError('UPSTREAM_STATUS', `upstream answered with ${what}`, {
      details: { status },
    });
  const excerpt = body.length > EXCERPT_CHARS ? `${body.slice(0, EXCERPT_CHARS)}…` : body;
  const shown = excerpt.trim() ? `: ${excerpt.trim().slice(0, 200)}` : '';
  return engineError('UPSTREAM_STATUS', `upstream answered with ${what}${shown}`, {
    details: { status, body: excerpt },
  });
}
