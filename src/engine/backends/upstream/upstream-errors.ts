/**
 * Upstream failures as catalogue errors, with nothing of the credential in them, and
 * what a failed exchange came to, for every kind that calls upstream over HTTP.
 */
import { errors as undiciErrors } from 'undici';
import type { Cancellation } from '../../../outbound/cancellation.js';
import { engineError, type EngineError } from '../../error-catalogue.js';
import type { Failed } from './exchange.js';

/** What a call its caller went away from answers: nothing of the upstream is known. */
export const CANCELLED = 'the call was cancelled by the caller';

/** A failed exchange by its cause: the deadline, the caller, or the upstream out of reach. */
export type FailureClass =
  | { readonly kind: 'timeout' }
  | { readonly kind: 'cancelled' }
  | { readonly kind: 'unreachable'; readonly error: EngineError };

/** Why `f` failed: its deadline passed (undici's own timeouts too), its caller went away, or else. */
export function failureClass(f: Failed, cancel: Cancellation | undefined): FailureClass {
  if (
    f.timedOut ||
    f.err instanceof undiciErrors.HeadersTimeoutError ||
    f.err instanceof undiciErrors.BodyTimeoutError
  )
    return { kind: 'timeout' };
  if (cancel?.cancelled) return { kind: 'cancelled' };
  return { kind: 'unreachable', error: classifyFailure(f.err) };
}

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

const UNREACHABLE: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found (DNS)',
  EAI_AGAIN: 'DNS lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EPIPE: 'connection closed while sending',
  UND_ERR_SOCKET: 'connection closed by the upstream',
  UND_ERR_CONNECT_TIMEOUT: 'connect timeout',
  UND_ERR_CLOSED: 'connection closed',
  UND_ERR_ABORTED: 'request aborted',
};

function classifyFailure(err: unknown): EngineError {
  const code = errorCode(err);
  const reason = (code && UNREACHABLE[code]) ?? 'the request failed';
  return engineError(
    'UPSTREAM_UNREACHABLE',
    `upstream unreachable: ${reason}${code ? ` (${code})` : ''}`,
  );
}

function errorCode(err: unknown): string | undefined {
  let e: unknown = err;
  for (let depth = 0; depth < 4 && e && typeof e === 'object'; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code in UNREACHABLE) return code;
    e = (e as { cause?: unknown }).cause;
  }
  const code = err && typeof err === 'object' ? (err as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : undefined;
}
