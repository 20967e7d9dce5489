/**
 * The `sign-in` kind of `access` (spec-language.md, "Sign-in for MCP clients"): the
 * company's OpenID provider (its issuer, checked to be https) and the gateway's client
 * there, the scopes asked of it and the ID-token claim whose values are gateway scopes.
 */
import type { SignInDescriptor } from '../descriptor.js';
import { childNamed, childrenNamed, prop, propAt, type NodeKind } from '../kdl-reader.js';

const REQUIRED_STRING = { type: 'string', required: true } as const;

/** A provider's issuer: https, or http on a loopback host (a provider started by tests). */
function issuerProblem(issuer: string): string | undefined {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    return `sign-in issuer ${JSON.stringify(issuer)} is not an absolute URL`;
  }
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (url.protocol === 'https:' || (url.protocol === 'http:' && loopback)) {
    if (url.username || url.password) return 'sign-in issuer must not hold credentials';
    if (url.search || url.hash) return 'sign-in issuer must have no query or fragment';
    return undefined;
  }
  return `sign-in issuer ${JSON.stringify(issuer)} must be an https URL (http only on localhost, for a provider on this machine)`;
}

/** `access { sign-in issuer= client-id-env= client-secret-env= { scopes; grant-scopes } }`. */
export const SIGN_IN: NodeKind<{ complete: boolean; signIn?: SignInDescriptor }> = {
  props: {
    issuer: REQUIRED_STRING,
    'client-id-env': REQUIRED_STRING,
    'client-secret-env': REQUIRED_STRING,
  },
  children: {
    kinds: {
      scopes: {
        rest: { what: 'a scope asked of the provider ("openid")', type: 'string' },
        build: (n) => n.args.flatMap((a) => (a ? [a.value as string] : [])),
      },
      'grant-scopes': {
        once: true,
        props: { 'from-claim': REQUIRED_STRING },
        build: (n) => (n.complete ? prop<string>(n, 'from-claim') : undefined),
      },
    },
    where: 'in sign-in',
    twice: 'is given twice',
  },
  inner: () => ['access', 'sign-in'],
  build(n, { diag }) {
    const issuer = prop<string>(n, 'issuer');
    const problem = issuer === undefined ? undefined : issuerProblem(issuer);
    if (problem) diag.error('SPEC_SIGN_IN', propAt(n, 'issuer'), ['access', 'sign-in'], problem);
    const claim = childNamed<string>(n.children, 'grant-scopes');
    if (claim === '__proto__')
      diag.error(
        'SPEC_RESERVED_NAME',
        n.at,
        ['access', 'sign-in'],
        'grant-scopes from-claim must not be __proto__',
      );
    if (!n.complete || problem || issuer === undefined) return { complete: false };
    // `openid` makes it an OpenID request: the ID token is what signs the person in.
    const asked = childrenNamed<string[]>(n.children, 'scopes').flat();
    const scopes = [...new Set(['openid', ...asked])];
    return {
      complete: true,
      signIn: {
        issuer: issuer.replace(/\/+$/, ''),
        clientIdEnv: prop<string>(n, 'client-id-env')!,
        clientSecretEnv: prop<string>(n, 'client-secret-env')!,
        scopes,
        ...(claim !== undefined && claim !== '__proto__' && { grantScopesFromClaim: claim }),
      },
    };
  },
};
