/**
 * The URLs an upstream's identity and egress are reached at (spec-language.md, "Many
 * upstreams and databases in one spec" and "On whose behalf (upstream identity)"): an
 * OAuth endpoint (token, authorize, revoke) and an egress proxy. Each carries a secret or
 * every call, so each is refused at load when it could leak one.
 */

/** Hosts that never leave this machine: plain http to them sends nothing over a network. */
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

function parsed(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/**
 * Why an OAuth endpoint URL is refused, or undefined: https, or http on a loopback host
 * (a provider the tests start); no credentials (the client secret goes in HTTP Basic) and
 * no fragment.
 */
export function oauthUrlProblem(what: string, text: string): string | undefined {
  const url = parsed(text);
  const quoted = `${what} ${JSON.stringify(text)}`;
  if (!url) return `${quoted} is not an absolute URL`;
  if (!(url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK.has(url.hostname))))
    return `${quoted} must be an https URL (http only on localhost, 127.0.0.1 or ::1)`;
  if (url.username || url.password)
    return `${quoted} must not hold credentials: the client's come from client-id-env and client-secret-env`;
  if (url.hash || text.includes('#')) return `${quoted} must have no fragment`;
  return undefined;
}

/**
 * Why an egress proxy URL is refused, or undefined: absolute http(s), and no user:password
 * in it, which would sit in the spec in clear and in every message that quotes the URL.
 */
export function proxyProblem(text: string): string | undefined {
  const url = parsed(text);
  const quoted = `proxy ${JSON.stringify(text)}`;
  if (!url) return `${quoted} is not an absolute URL`;
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return `${quoted}: scheme ${url.protocol} is not http or https`;
  if (url.username || url.password)
    return 'a proxy URL must not hold credentials (user:password); the gateway takes none from the spec';
  if (url.search || url.hash || text.includes('?') || text.includes('#'))
    return `${quoted} takes no query or fragment`;
  return undefined;
}
