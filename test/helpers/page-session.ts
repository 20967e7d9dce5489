/**
 * What the browser-session tests of the gateway's pages share (issue 42): a spec with
 * `sign-in` whose issuer is a real OpenID provider (test/helpers/oidc-provider.ts), API
 * keys, and an `oauth` block whose tokens (test/helpers/jwks.ts) make callers `sub:<x>`,
 * the same id a signed-in person is; and the session cookie minted as the gateway itself
 * seals it, from the same token key.
 */
import { consentKeyFrom } from '../../src/engine/consent/consent-key.js';
import { Sealer } from '../../src/access/sign-in/sealed.js';
import { tokenKeysOf } from '../../src/access/sign-in/token-key.js';
import {
  BROWSER_SESSION_COOKIE,
  SIGN_IN_TTL_MS,
  type SealedBrowserSession,
} from '../../src/access/sign-in/sign-in-types.js';
import { startJwks, type JwksServer } from './jwks.js';
import { startOidcProvider, type TestOidcProvider } from './oidc-provider.js';

export const AGENT_KEY = 'page-agent-key-41d7e0c2';
export const FINANCE_KEY = 'page-finance-key-9b3a66f1';
export const TOKEN_KEY = '5a'.repeat(32);
export const CONFIRM_KEY = 'c3'.repeat(32);
/** An origin `allow-origin` lets call the gateway: not the gateway's own, so it never decides on the cookie's word. */
export const ALLOWED_ORIGIN = 'https://console.example.com';

export interface SignInWorld {
  readonly provider: TestOidcProvider;
  readonly jwks: JwksServer;
  /** The gateway's environment: keys, the token key, the provider client's id and secret. */
  readonly env: Record<string, string>;
  /** The spec on `upstream`. */
  spec(upstream: string): string;
  close(): Promise<void>;
}

/** The provider and the token issuer the sign-in specs name, started on 127.0.0.1. */
export async function startSignInWorld(): Promise<SignInWorld> {
  const provider = await startOidcProvider({
    redirectUris: [],
    people: [
      { sub: 'bob', name: 'Bob Approver', roles: ['payments:approve'] },
      { sub: 'carol', name: 'Carol', roles: ['payments:write', 'payments:approve'] },
    ],
  });
  const jwks = await startJwks();
  return {
    provider,
    jwks,
    env: {
      AGENT_KEY,
      FINANCE_KEY,
      GATEWAY_TOKEN_KEY: TOKEN_KEY,
      CONFIRM_KEY,
      IDP_CLIENT_ID: provider.clientId,
      IDP_CLIENT_SECRET: provider.clientSecret,
    },
    spec: (upstream) => `
wrap "page-sign-in" version="1.0.0"
base-url "${upstream}"
access token-key-env="GATEWAY_TOKEN_KEY" confirm-key-env="CONFIRM_KEY" {
    api-key env="AGENT_KEY" scopes="payments:write"
    api-key env="FINANCE_KEY" scopes="payments:approve"
    oauth issuer="${jwks.issuer}" audience="${jwks.audience}" jwks-uri="${jwks.url}"
    allow-origin "${ALLOWED_ORIGIN}"
    sign-in issuer="${provider.issuer}" client-id-env="IDP_CLIENT_ID" client-secret-env="IDP_CLIENT_SECRET" {
        scopes "openid" "profile"
        grant-scopes from-claim="roles"
    }
}
can create refund {
    describe "Refund part of a payment."
    path "/payments/{payment}/refunds" { payment "integer" min=1 }
    body { amount "integer" required=#true min=1 }
    scope "payments:write"
    approve "Refund {amount} cents on payment {payment}" by="payments:approve" expires="15m"
}
can delete payment {
    describe "Delete a payment."
    path "/payments/{payment}" { payment "integer" min=1 }
    scope "payments:write"
    confirm "Delete payment {payment}? This cannot be undone."
}
`,
    async close() {
      await provider.close();
      await jwks.close();
    },
  };
}

/** The sealer the gateway builds from `GATEWAY_TOKEN_KEY`; `now` moves its clock. */
export async function gatewaySealer(now?: () => number): Promise<Sealer> {
  const read = consentKeyFrom('GATEWAY_TOKEN_KEY', TOKEN_KEY);
  if (!read.ok) throw new Error(read.message);
  return new Sealer((await tokenKeysOf(read.key)).sealing, now);
}

export interface Person {
  readonly sub: string;
  readonly scopes: readonly string[];
  readonly displayName?: string;
}

/** The value of the session cookie the gateway sets for `person` (8 hours from the sealer's now). */
export async function sessionCookieValue(person: Person, now?: () => number): Promise<string> {
  const session: SealedBrowserSession = { ...person, consented: [] };
  return (await gatewaySealer(now)).seal('browser-session', session, SIGN_IN_TTL_MS.browserSession);
}

/** A Cookie header carrying that session (plain http: no `__Host-` prefix). */
export async function sessionCookie(person: Person, now?: () => number): Promise<string> {
  return `${BROWSER_SESSION_COOKIE}=${await sessionCookieValue(person, now)}`;
}

export const BOB: Person = {
  sub: 'bob',
  scopes: ['payments:approve'],
  displayName: 'Bob Approver',
};
export const CAROL: Person = {
  sub: 'carol',
  scopes: ['payments:write', 'payments:approve'],
  displayName: 'Carol',
};
