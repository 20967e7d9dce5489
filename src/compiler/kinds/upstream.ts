/**
 * The `upstream "<name>" base-url="<url>" { auth; header; timeout; proxy; tls }` kind
 * (spec-language.md, "Many upstreams and databases in one spec"): one named HTTP API a
 * grant chooses with `upstream "<name>"`, each with its own credential, headers, deadline,
 * pool and egress. Its row, the checks of its name, URL, headers, proxy and TLS files,
 * what every HTTP grant naming it is checked against, and the UpstreamDescriptor it
 * lowers to. The unnamed default (the top-level base-url, auth, header, timeout) stays in
 * the top kind (kinds/top.ts).
 */
import { normalizeBaseUrl } from '../base-url.js';
import { closestName } from '../closest-name.js';
import { locatedString, namedSubject, once, TIMEOUT } from '../common-kinds.js';
import type { Diagnostics, Located, Position, Subject } from '../diagnostics.js';
import type { UpstreamAuth, UpstreamDescriptor } from '../descriptor.js';
import { proxyProblem } from '../endpoint-url.js';
import { authHeaderName, headerProblem } from '../headers.js';
import { arg, argAt, childNamed, childrenNamed, type NodeKind } from '../kdl-reader.js';
import { matchName, NameClaims, takenBy } from '../name-claims.js';
import { AUTH, HEADER, type AuthSpec } from './auth.js';
import { checkTls, lowerTls, TLS, type TlsSpec } from './upstream-tls.js';

/** Names of upstreams, databases and oauth providers: as for mcp-server names. */
export const UPSTREAM_NAME = /^[a-z][a-z0-9-]{0,31}$/;

/** An `upstream` node as read. */
export interface UpstreamSpec {
  readonly name: Located<string>;
  readonly at: Position;
  readonly baseUrl?: Located<string>;
  readonly connections?: number;
  readonly auth?: AuthSpec;
  readonly headers: readonly Located<readonly [string, string]>[];
  readonly timeoutMs?: number;
  readonly proxy?: Located<string>;
  readonly tls?: TlsSpec;
}

/** What an HTTP grant is checked and lowered against: its upstream's settings. */
export interface UpstreamSettings {
  /** The normalized base-url; '' when it is refused (reported on it). */
  readonly baseUrl: string;
  readonly auth?: UpstreamAuth;
  /** The header `auth` fills, which no other header may set. */
  readonly authHeader?: string;
  readonly headers: readonly (readonly [string, string])[];
  /** The upstream's own `timeout`. */
  readonly timeoutMs?: number;
}

export const PROXY = locatedString('an http(s) proxy URL (proxy "http://proxy.internal:3128")');

export const UPSTREAM: NodeKind<UpstreamSpec> = {
  args: [{ what: 'an upstream name (upstream "github" base-url="https://...")', type: 'string' }],
  props: {
    'base-url': { type: 'string', required: true },
    connections: { type: 'integer', min: 1 },
  },
  children: {
    kinds: {
      auth: once(AUTH),
      header: HEADER,
      timeout: once(TIMEOUT),
      proxy: once(PROXY),
      tls: once(TLS),
    },
    where: 'in upstream',
    twice: 'is given twice',
  },
  inner: namedSubject('upstream'),
  build(n) {
    const c = n.children;
    const baseUrl = n.props.get('base-url') as Located<string> | undefined;
    const connections = n.props.get('connections')?.value as number | undefined;
    return {
      name: { value: arg<string>(n, 0)!, at: argAt(n, 0) },
      at: n.at,
      ...(baseUrl && { baseUrl }),
      ...(connections !== undefined && { connections }),
      auth: childNamed(c, 'auth'),
      headers: childrenNamed(c, 'header'),
      timeoutMs: childNamed(c, 'timeout'),
      proxy: childNamed(c, 'proxy'),
      tls: childNamed(c, 'tls'),
    };
  },
};

/** The named upstreams, each checked, and the settings grants naming them get. */
export interface CheckedUpstreams {
  readonly specs: readonly UpstreamSpec[];
  readonly settings: ReadonlyMap<string, UpstreamSettings>;
}

export function checkUpstreams(
  specs: readonly UpstreamSpec[],
  file: string,
  diag: Diagnostics,
): CheckedUpstreams {
  const names = new NameClaims(diag, 'SPEC_DUPLICATE', takenBy('upstream name', 'upstream'));
  const settings = new Map<string, UpstreamSettings>();
  for (const s of specs) {
    const subject = [`upstream ${s.name.value}`];
    matchName(diag, 'SPEC_UPSTREAM_NAME', s.name, subject, 'upstream name', UPSTREAM_NAME);
    if (!names.claim(s.name.value, s.at, s.name.at, subject)) continue;
    let baseUrl = '';
    if (s.baseUrl) {
      const normalized = normalizeBaseUrl(s.baseUrl.value);
      if (normalized.ok) baseUrl = normalized.url;
      else diag.error('SPEC_BASE_URL', s.baseUrl.at, subject, normalized.problem);
    }
    const auth = s.auth?.value;
    const authHeader = checkHeaders(s.auth, s.headers, diag, subject);
    if (s.proxy) {
      const problem = proxyProblem(s.proxy.value);
      if (problem) diag.error('SPEC_PROXY', s.proxy.at, subject, problem);
    }
    if (s.tls) checkTls(s.tls, file, diag, subject);
    settings.set(s.name.value, {
      baseUrl,
      ...(auth && { auth }),
      ...(authHeader !== undefined && { authHeader }),
      headers: s.headers.map((h) => h.value),
      ...(s.timeoutMs !== undefined && { timeoutMs: s.timeoutMs }),
    });
  }
  return { specs, settings };
}

/**
 * An `auth header` name that may be sent, and fixed headers that may be sent and do not
 * set the credential's own header; the credential's header, for a grant's `set header`.
 */
export function checkHeaders(
  auth: AuthSpec | undefined,
  headers: readonly Located<readonly [string, string]>[],
  diag: Diagnostics,
  subject: Subject,
): string | undefined {
  const authHeader = authHeaderName(auth?.value);
  if (auth?.value.kind === 'header') {
    const problem = headerProblem(auth.value.header, auth.value.prefix, undefined);
    if (problem) diag.error('SPEC_HEADER', auth.at, [...subject, 'auth'], problem);
  }
  for (const {
    value: [name, value],
    at,
  } of headers) {
    const problem = headerProblem(name, value, authHeader);
    if (problem) diag.error('SPEC_HEADER', at, [...subject, `header ${name}`], problem);
  }
  return authHeader;
}

/** A grant's `upstream` or `database` naming none declared: its refusal, with the likely one. */
export function unknownNameMessage(kind: string, name: string, known: readonly string[]): string {
  const guess = closestName(name, known);
  const mean = guess ? `; did you mean ${JSON.stringify(guess)}?` : '';
  const declared = known.length > 0 ? ` (declared: ${known.join(', ')})` : ` (no ${kind} is named)`;
  return `no ${kind} is named ${JSON.stringify(name)}${mean}${declared}`;
}

/** The named upstreams of a clean spec, in spec order. */
export function lowerUpstreams(checked: CheckedUpstreams, file: string): UpstreamDescriptor[] {
  return checked.specs.map((s) => {
    const settings = checked.settings.get(s.name.value)!;
    return {
      name: s.name.value,
      baseUrl: settings.baseUrl,
      ...(settings.auth && { auth: settings.auth }),
      headers: settings.headers,
      ...(settings.timeoutMs !== undefined && { timeoutMs: settings.timeoutMs }),
      ...(s.connections !== undefined && { connections: s.connections }),
      ...(s.proxy && { proxy: s.proxy.value }),
      ...(s.tls && { tls: lowerTls(s.tls, file) }),
      source: { file, line: s.at.line, column: s.at.column },
    };
  });
}
