/**
 * Whether a `client_id` is a client ID metadata document URL the gateway will fetch
 * (draft-ietf-oauth-client-id-metadata-document, "Client Identifier"): https, with a
 * path, no fragment, no user name or password, no `.` or `..` segments. Checked on the
 * raw string before anything is fetched, because the WHATWG parser silently removes dot
 * segments and would make `https://a.example/x/../y` fetch `https://a.example/y`.
 */
import { isIP } from 'node:net';
import { classifyAddress } from './public-address.js';

/** Long enough for any real client's document URL; a longer one is refused unread. */
export const MAX_CLIENT_ID_LENGTH = 2048;

export type ClientIdUrlCheck =
  { readonly ok: true; readonly url: URL } | { readonly ok: false; readonly reason: string };

export interface ClientIdUrlOptions {
  /** Tests only: http and loopback hosts are accepted. `serve` never sets it. */
  readonly allowLoopbackHttp?: boolean;
}

/** The path of a URL as written: between the authority and `?`/`#`. */
function rawPath(raw: string): string {
  const afterScheme = raw.slice(raw.indexOf('//') + 2);
  const slash = afterScheme.search(/[/?#]/);
  if (slash === -1 || afterScheme[slash] !== '/') return '';
  const rest = afterScheme.slice(slash);
  const end = rest.search(/[?#]/);
  return end === -1 ? rest : rest.slice(0, end);
}

const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;

/** Whether `hostname` (as `URL.hostname` writes it) is an IP literal that is loopback. */
export function isLoopbackHost(hostname: string): boolean {
  if (hostname === 'localhost') return true;
  const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  return isIP(bare) !== 0 && classifyAddress(bare) === 'loopback';
}

/**
 * Checks a client id as the client sent it. The reason names the rule and never echoes
 * the URL, which the client chose and a log or consent page would otherwise repeat.
 */
export function checkClientIdUrl(raw: string, opts: ClientIdUrlOptions = {}): ClientIdUrlCheck {
  const refuse = (reason: string): ClientIdUrlCheck => ({ ok: false, reason });
  if (raw.length > MAX_CLIENT_ID_LENGTH)
    return refuse(`client_id is longer than ${MAX_CLIENT_ID_LENGTH} characters`);
  // Whitespace, control characters and backslashes are rewritten by URL parsing, so the
  // fetched URL would differ from the client id the document must repeat.
  if (/[\s\\\p{Cc}]/u.test(raw))
    return refuse('client_id must not contain whitespace, control characters or backslashes');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse('client_id is not a URL');
  }
  const httpAllowed = opts.allowLoopbackHttp === true && url.protocol === 'http:';
  if (url.protocol !== 'https:' && !httpAllowed) return refuse('client_id must be an https URL');
  if (!/^https?:\/\//i.test(raw)) return refuse('client_id must be an https URL');
  if (raw.includes('#')) return refuse('client_id must not contain a fragment');
  if (url.username !== '' || url.password !== '')
    return refuse('client_id must not contain a user name or password');
  const path = rawPath(raw);
  if (path === '' || path === '/') return refuse('client_id must have a path');
  if (path.split('/').some((segment) => DOT_SEGMENT.test(segment)))
    return refuse('client_id must not contain . or .. path segments');
  const bare = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (isIP(bare) !== 0) {
    const kind = classifyAddress(bare);
    const loopbackAllowed = opts.allowLoopbackHttp === true && kind === 'loopback';
    if (kind !== 'public' && !loopbackAllowed)
      return refuse('client_id names a private, loopback or reserved address');
  }
  return { ok: true, url };
}
