/**
 * What a failed exchange came to, for all that calls upstream over HTTP (the http kind,
 * the MCP client): its deadline, its caller going away, or the upstream out of reach, in
 * words. No catalogue code here: the http kind makes it UPSTREAM_UNREACHABLE and the MCP
 * client a failure of its own.
 */
import { errors as undiciErrors } from './undici.js';
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
  // TLS: the upstream's certificate is not trusted (a private CA needs the upstream's
  // `tls { ca-file }`), names another host, or the upstream wants a client certificate.
  UNABLE_TO_VERIFY_LEAF_SIGNATURE:
    "the upstream's TLS certificate is not signed by a trusted CA (a private CA goes in the upstream's tls ca-file)",
  SELF_SIGNED_CERT_IN_CHAIN:
    "the upstream's TLS certificate chains to an untrusted root (a private CA goes in the upstream's tls ca-file)",
  DEPTH_ZERO_SELF_SIGNED_CERT:
    "the upstream's TLS certificate is self-signed and not trusted (trust it with the upstream's tls ca-file)",
  ERR_TLS_CERT_ALTNAME_INVALID: "the upstream's TLS certificate names another host",
  CERT_HAS_EXPIRED: "the upstream's TLS certificate has expired",
  ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED:
    "the upstream requires a client certificate (the upstream's tls cert-file and key-file)",
  ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE: 'the TLS handshake failed',
  ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE: 'the upstream refused the client certificate',
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
