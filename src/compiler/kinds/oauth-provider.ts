/**
 * The `oauth-provider "<name>" { authorize-url; token-url; client-id-env;
 * client-secret-env; scopes; revoke-url; issuer }` kind (spec-language.md, "On whose behalf
 * (upstream identity)"): where callers connect their own accounts for `auth user`. Its
 * row, the checks of its name and URLs, and the OAuthProviderDescriptor it lowers to.
 */
import { locatedString, namedSubject, once } from '../common-kinds.js';
import type { Diagnostics, Located, Position, Subject } from '../diagnostics.js';
import type { AccessDescriptor, OAuthProviderDescriptor } from '../descriptor.js';
import { oauthUrlProblem } from '../endpoint-url.js';
import { arg, argAt, childNamed, childrenNamed, type NodeKind } from '../kdl-reader.js';
import { matchName, NameClaims, takenBy } from '../name-claims.js';
import type { AuthSpec } from './auth.js';
import { unknownNameMessage, UPSTREAM_NAME } from './upstream.js';

/** An `oauth-provider` node as read. */
export interface OAuthProviderSpec {
  readonly name: Located<string>;
  readonly at: Position;
  readonly authorizeUrl?: Located<string>;
  readonly tokenUrl?: Located<string>;
  readonly clientIdEnv?: Located<string>;
  readonly clientSecretEnv?: Located<string>;
  readonly scopes: readonly string[];
  readonly revokeUrl?: Located<string>;
  readonly issuer?: Located<string>;
}

const URL_ARG = locatedString('an https URL');
const VARIABLE = locatedString('an environment variable name');

/** The children that must be there, in the order messages name them. */
const REQUIRED = [
  ['authorize-url', 'authorizeUrl'],
  ['token-url', 'tokenUrl'],
  ['client-id-env', 'clientIdEnv'],
  ['client-secret-env', 'clientSecretEnv'],
] as const;

export const OAUTH_PROVIDER: NodeKind<OAuthProviderSpec> = {
  args: [{ what: 'a provider name (oauth-provider "atlassian")', type: 'string' }],
  children: {
    kinds: {
      'authorize-url': once(URL_ARG),
      'token-url': once(URL_ARG),
      'client-id-env': once(VARIABLE),
      'client-secret-env': once(VARIABLE),
      scopes: {
        rest: { what: 'a scope asked of the provider', type: 'string' },
        build: (n) => n.args.flatMap((a) => (a ? [a.value as string] : [])),
      },
      'revoke-url': once(URL_ARG),
      issuer: once(URL_ARG),
    },
    where: 'in oauth-provider',
    twice: 'is given twice',
  },
  inner: namedSubject('oauth-provider'),
  build(n) {
    const c = n.children;
    return {
      name: { value: arg<string>(n, 0)!, at: argAt(n, 0) },
      at: n.at,
      authorizeUrl: childNamed(c, 'authorize-url'),
      tokenUrl: childNamed(c, 'token-url'),
      clientIdEnv: childNamed(c, 'client-id-env'),
      clientSecretEnv: childNamed(c, 'client-secret-env'),
      scopes: childrenNamed<string[]>(c, 'scopes').flat(),
      revokeUrl: childNamed(c, 'revoke-url'),
      issuer: childNamed(c, 'issuer'),
    };
  },
};

/** Names, the four required children, and https endpoints; the names `auth user` may use. */
export function checkOAuthProviders(
  specs: readonly OAuthProviderSpec[],
  diag: Diagnostics,
): ReadonlySet<string> {
  const names = new NameClaims(diag, 'SPEC_DUPLICATE', takenBy('provider name', 'oauth-provider'));
  const declared = new Set<string>();
  for (const s of specs) {
    const subject = [`oauth-provider ${s.name.value}`];
    matchName(diag, 'SPEC_UPSTREAM_NAME', s.name, subject, 'provider name', UPSTREAM_NAME);
    names.claim(s.name.value, s.at, s.name.at, subject);
    declared.add(s.name.value);
    for (const [node, key] of REQUIRED)
      if (!s[key])
        diag.error('SPEC_MISSING', s.at, subject, `\`oauth-provider\` needs \`${node}\``);
    for (const [node, url] of [
      ['authorize-url', s.authorizeUrl],
      ['token-url', s.tokenUrl],
      ['revoke-url', s.revokeUrl],
      ['issuer', s.issuer],
    ] as const) {
      const problem = url && oauthUrlProblem(node, url.value);
      if (problem) diag.error('SPEC_OAUTH_URL', url.at, subject, problem);
    }
  }
  return declared;
}

/** The providers of a clean spec, in spec order. */
export function lowerOAuthProviders(
  specs: readonly OAuthProviderSpec[],
  file: string,
): OAuthProviderDescriptor[] {
  return specs.map((s) => ({
    name: s.name.value,
    authorizeUrl: s.authorizeUrl!.value,
    tokenUrl: s.tokenUrl!.value,
    clientIdEnv: s.clientIdEnv!.value,
    clientSecretEnv: s.clientSecretEnv!.value,
    scopes: s.scopes,
    ...(s.revokeUrl && { revokeUrl: s.revokeUrl.value }),
    ...(s.issuer && { issuer: s.issuer.value }),
    source: { file, line: s.at.line, column: s.at.column },
  }));
}

/**
 * Every `auth` that acts for the caller, checked against the spec around it: `auth user`
 * names a declared provider, and it and `auth exchange` need `access`, without which no
 * caller is known to act for (nor holds a token to exchange); `auth user` also needs
 * `access token-key-env`, the key its stored tokens are encrypted with.
 */
export function checkCallerAuths(
  auths: readonly { readonly auth: AuthSpec; readonly subject: Subject }[],
  providers: ReadonlySet<string>,
  access: AccessDescriptor | undefined,
  diag: Diagnostics,
): void {
  for (const { auth, subject } of auths) {
    const { value } = auth;
    if (value.kind !== 'user' && value.kind !== 'exchange') continue;
    const here = [...subject, `auth ${value.kind}`];
    if (value.kind === 'user' && !providers.has(value.provider))
      diag.error(
        'SPEC_UPSTREAM_IDENTITY',
        auth.providerAt ?? auth.at,
        here,
        unknownNameMessage('oauth-provider', value.provider, [...providers]),
      );
    // Connected accounts' tokens are kept sealed with a key every replica shares.
    if (value.kind === 'user' && access && access.tokenKeyEnv === undefined)
      diag.error(
        'SPEC_UPSTREAM_IDENTITY',
        auth.at,
        here,
        'it keeps each caller’s tokens encrypted with the key in `access token-key-env="<VARIABLE>"` (at least 32 random bytes, hex or base64): add it to the access block',
      );
    if (!access)
      diag.error(
        'SPEC_UPSTREAM_IDENTITY',
        auth.at,
        here,
        value.kind === 'user'
          ? 'it calls as each caller’s connected account, so callers must be known: add `access { api-key ... }`, `oauth` or `sign-in`'
          : 'it exchanges the caller’s token, so callers must present one: add `access { oauth ... }` or `sign-in`',
      );
  }
}
