/**
 * The upstream credential and fixed headers (spec-language.md, "Top-level nodes" and "On
 * whose behalf (upstream identity)"): the `auth <kind>` and `header "<Name>" "<value>"`
 * rows, at the top level for HTTP grants, in an `upstream` and in an `mcp-server` for a
 * Streamable HTTP server. Static kinds read a variable; `client-credentials` and
 * `exchange` obtain a token at a token endpoint; `user` is the caller's connected account.
 */
import type { Diagnostics, Located, Position, Subject } from '../diagnostics.js';
import type { UpstreamAuth } from '../descriptor.js';
import { oauthUrlProblem } from '../endpoint-url.js';
import { arg, camelProps, prop, propAt, type NodeKind, type ReadNode } from '../kdl-reader.js';

const REQUIRED_STRING = { type: 'string', required: true } as const;
const STRING = { type: 'string' } as const;

const KINDS = 'bearer, header, basic, query, client-credentials, exchange, user';
const AUTH_KIND = { what: `a kind: ${KINDS}`, type: 'string' } as const;

/** A token endpoint and the gateway's client there (both kinds read the same props). */
const TOKEN_PROPS = {
  'token-url': REQUIRED_STRING,
  'client-id-env': REQUIRED_STRING,
  'client-secret-env': REQUIRED_STRING,
  scope: STRING,
  audience: STRING,
} as const;

/** An `auth` as read, and where `auth user` names its provider (checked against the spec's). */
export type AuthSpec = Located<UpstreamAuth> & { readonly providerAt?: Position };

export const AUTH: NodeKind<AuthSpec> = {
  args: [AUTH_KIND],
  variants: {
    arg: 0,
    kinds: {
      bearer: { props: { env: REQUIRED_STRING } },
      header: {
        args: [
          AUTH_KIND,
          { what: 'a header name (auth header "X-Api-Key" env="V")', type: 'string' },
        ],
        props: { env: REQUIRED_STRING, prefix: STRING },
      },
      basic: { props: { 'username-env': REQUIRED_STRING, 'password-env': REQUIRED_STRING } },
      query: {
        args: [
          AUTH_KIND,
          { what: 'a query parameter name (auth query "key" env="V")', type: 'string' },
        ],
        props: { env: REQUIRED_STRING },
      },
      'client-credentials': { props: TOKEN_PROPS },
      exchange: { props: { ...TOKEN_PROPS, grant: STRING } },
      user: { props: { provider: REQUIRED_STRING } },
    },
    unknown: (kind) => ({
      code: 'SPEC_VALUE_TYPE',
      message: `unknown auth kind ${JSON.stringify(kind)} (known: ${KINDS})`,
      stop: true,
    }),
    subject: (name, ctx) => [...ctx.subject, name],
  },
  build(n, { diag, subject }) {
    if (!n.complete || n.variant === undefined) return undefined;
    if (n.variant === 'client-credentials' || n.variant === 'exchange') {
      const problem = oauthUrlProblem('token-url', prop<string>(n, 'token-url')!);
      if (problem)
        diag.error(
          'SPEC_OAUTH_URL',
          propAt(n, 'token-url'),
          [...subject, `auth ${n.variant}`],
          problem,
        );
    }
    if (n.variant === 'exchange' && !exchangeGrantIsValid(n, diag, subject)) return undefined;
    if (n.variant === 'user')
      return {
        value: { kind: 'user', provider: prop<string>(n, 'provider')! },
        at: n.at,
        providerAt: propAt(n, 'provider'),
      };
    const env = prop<string>(n, 'env');
    const named = arg<string>(n, 1);
    const auth =
      n.variant === 'header'
        ? { kind: 'header', header: named, env, prefix: prop(n, 'prefix') ?? '' }
        : n.variant === 'query'
          ? { kind: 'query', param: named, env }
          : { kind: n.variant, ...camelProps(n) };
    return { value: auth as UpstreamAuth, at: n.at };
  },
};

/**
 * `grant=` of `auth exchange`: RFC 8693 token exchange (the default), or the on-behalf-of
 * flow of Microsoft Entra ID, which asks for the API by `scope` ("<app id URI>/.default")
 * and has no `audience`.
 */
function exchangeGrantIsValid(n: ReadNode, diag: Diagnostics, subject: Subject): boolean {
  const grant = prop<string>(n, 'grant');
  if (grant === undefined || grant === 'token-exchange') return true;
  const where = [...subject, 'auth exchange'];
  if (grant !== 'on-behalf-of') {
    diag.error(
      'SPEC_VALUE_TYPE',
      propAt(n, 'grant'),
      where,
      `grant=${JSON.stringify(grant)} is not known; use "token-exchange" (RFC 8693, the default) or "on-behalf-of" (Microsoft Entra ID)`,
    );
    return false;
  }
  if (prop<string>(n, 'audience') !== undefined) {
    diag.error(
      'SPEC_VALUE_TYPE',
      propAt(n, 'audience'),
      where,
      'grant="on-behalf-of" names the API by scope="<app id URI>/.default", not audience=; remove audience',
    );
    return false;
  }
  if (prop<string>(n, 'scope') === undefined) {
    diag.error(
      'SPEC_MISSING',
      n.at,
      where,
      'grant="on-behalf-of" needs scope="<the API\'s app id URI>/.default" (Entra asks for the API by scope)',
    );
    return false;
  }
  return true;
}

export const HEADER: NodeKind<Located<readonly [string, string]>> = {
  args: [
    { what: 'a header name', type: 'string' },
    { what: 'a header value', type: 'string' },
  ],
  build: (n) =>
    n.complete ? { value: [arg<string>(n, 0)!, arg<string>(n, 1)!], at: n.at } : undefined,
};
