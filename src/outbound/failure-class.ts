/**
 * What a failed exchange came to, for all that calls upstream over HTTP (the http kind,
 * the MCP client): its deadline, its caller going away, or the upstream out of reach, in
 * words. No catalogue code here: the http kind makes it UPSTREAM_UNREACHABLE and the MCP
 * client a failure of its own.
 */
import { errors as undiciErrors } from 'undici';
import type { Cancellation } from './cancellation.js';
import type { Failed } from './exchange.js';

/** What a call its caller went away from answers: nothing of the upstream is known. */
export const CANCELLED = 'the call was cancelled by the caller';

/** A failed exchange by its cause: the deadline, the caller, or the upstream out of reach. */
export type FailureClass =
  | { readonly kind: 'timeout' }
  | { readonly kind: 'cancelled' }
  | { readonly kind: 'unreachable'; readonly message: string };

/** Why `f` failed: its deadline passed (undici's own timeouts too), its caller went away, or else. */
export function failureClass(f: Failed, cancel: Cancellation | undefined): FailureClass {
  if (
    f.timedOut ||
    f.err instanceof undiciErrors.HeadersTimeoutError ||
    f.err instanceof undiciErrors.BodyTimeoutError
  )
    return { kind: 'timeout' };
  if (cancel?.cancelled) return { kind: 'cancelled' };
  return { kind: 'unreachable', message: unreachableMessage(f.err) };
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

/** `upstream unreachable: <reason> (<code>)`, the code when the error has one. */
function unreachableMessage(err: unknown): string {
  const code = errorCode(err);
  const reason = (code && UNREACHABLE[code]) ?? 'the request failed';
  return `upstream unreachable: ${reason}${code ? ` (${code})` : ''}`;
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
