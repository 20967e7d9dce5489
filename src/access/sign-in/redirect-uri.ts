/**
 * Which redirect URIs a client may register (by `/register` or in its metadata document),
 * and when a requested one is a registered one (spec-language.md, "Sign-in for MCP
 * clients"). One rule for both ways a client introduces itself:
 * - https anywhere; http only on a loopback host, where a desktop client listens
 *   (RFC 8252, section 7.3);
 * - a private-use scheme of a native app (`cursor://…`, `com.example.app:/cb`, RFC 8252
 *   section 7.1), but none a browser acts on itself (javascript:, data:, file:, …): the
 *   code must reach the client, never run or be stored on the way;
 * - no fragment, no credentials, no whitespace, control characters or backslashes.
 * A requested URI matches a registered one exactly, except a loopback http one, whose
 * port may differ: a desktop client takes whatever port is free when it signs in
 * (RFC 8252, section 7.3, requires servers to allow that).
 */
import { isLoopbackHost } from './client-id-url.js';

export const MAX_REDIRECT_URI_LENGTH = 2048;

/** Schemes a browser handles itself, or that carry no client: never a redirect target. */
const REFUSED_SCHEMES = new Set([
  'http',
  'javascript',
  'data',
  'file',
  'blob',
  'vbscript',
  'about',
  'view-source',
  'filesystem',
  'ftp',
  'ws',
  'wss',
  'mailto',
  'tel',
  'sms',
]);

/** Why `value` cannot be a redirect URI, or undefined. Never echoes the value. */
export function redirectUriProblem(value: unknown): string | undefined {
  if (typeof value !== 'string' || value === '') return 'must be a non-empty string';
  if (value.length > MAX_REDIRECT_URI_LENGTH)
    return `must be at most ${MAX_REDIRECT_URI_LENGTH} characters`;
  if (/[\s\\\p{Cc}]/u.test(value))
    return 'must not contain whitespace, control characters or backslashes';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL';
  }
  if (value.includes('#')) return 'must not contain a fragment';
  if (url.username !== '' || url.password !== '') return 'must not contain a user name or password';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:') {
    return isLoopbackHost(url.hostname) ? undefined : 'must be https, or http on a loopback host';
  }
  const scheme = url.protocol.slice(0, -1);
  if (REFUSED_SCHEMES.has(scheme)) return `must not use the ${scheme}: scheme`;
  return undefined;
}

/** A loopback http URI's parts other than its port, or undefined for any other URI. */
function loopbackShape(uri: string): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' || !isLoopbackHost(url.hostname)) return undefined;
  return `${url.hostname}${url.pathname}${url.search}`;
}

/** Whether `requested` is one of `registered`: exactly, or a loopback one on another port. */
export function isRegisteredRedirect(registered: readonly string[], requested: string): boolean {
  if (registered.includes(requested)) return true;
  const shape = loopbackShape(requested);
  if (shape === undefined) return false;
  return registered.some((r) => loopbackShape(r) === shape);
}

/** What the consent page names as where the code goes: the host, or the app's scheme. */
export function redirectTarget(uri: string): string {
  const url = new URL(uri);
  if (url.protocol === 'https:' || url.protocol === 'http:') return url.host;
  return url.host === '' ? `${url.protocol}` : `${url.protocol}//${url.host}`;
}
