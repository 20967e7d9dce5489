/** Upstream header rules shared by `header`, `set { header }` and `auth header`. */
import type { UpstreamAuth } from './descriptor.js';

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Headers the gateway itself controls: framing and connection management (undici
 * owns them), decoding (we ask for identity so size caps hold), and the host.
 */
const OWNED = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'proxy-authorization',
  'proxy-connection',
  'accept-encoding',
]);

/** Why a header cannot be sent as written, or undefined when it can. */
export function headerProblem(
  name: string,
  value: string,
  authHeader: string | undefined,
): string | undefined {
  if (!TOKEN.test(name)) return `${JSON.stringify(name)} is not a valid header name`;
  if (/[\r\n\0]/.test(value)) return `the value of ${name} contains a line break or NUL`;
  const lower = name.toLowerCase();
  if (OWNED.has(lower)) return `${name} is set by the gateway itself`;
  if (authHeader !== undefined && lower === authHeader.toLowerCase()) {
    return `${name} carries the upstream credential from \`auth\`; it cannot also be set by hand`;
  }
  return undefined;
}

/** The header the upstream credential travels in, which no other header may set. */
export function authHeaderName(a: UpstreamAuth | undefined): string | undefined {
  if (!a) return undefined;
  if (a.kind === 'header') return a.header;
  // Every obtained token (client credentials, exchanged, connected) travels as a bearer.
  return a.kind === 'query' ? undefined : 'Authorization';
}
