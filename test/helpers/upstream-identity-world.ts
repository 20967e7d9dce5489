/**
 * The world of the upstream credential tests (issue 43): a real OAuth server (oidc-provider)
 * that knows two APIs and the gateway's two clients there — one for client credentials,
 * one for token exchange — and the two APIs, each checking every token it is sent against
 * the provider's keys and its own audience. `call` makes one upstream call the way the
 * HTTP backend does (credential, send, one retry after a 401, redaction).
 */
import type { CallContext } from '../../src/engine/call-context.js';
import type { Caller } from '../../src/engine/caller.js';
import type { EngineError } from '../../src/engine/error-catalogue.js';
import type {
  CallCredential,
  UpstreamIdentity,
} from '../../src/engine/backends/upstream/upstream-identity.js';
import {
  JWT_BEARER,
  startOidcProvider,
  TOKEN_EXCHANGE,
  type TestOidcProvider,
} from './oidc-provider.js';
import { startTokenCheckingApi, type TokenCheckingApi } from './token-checking-api.js';

export const TICKETS = 'https://tickets.example';
export const BILLING = 'https://billing.example';
export const CC_SECRET = 'cc-client-secret-4f1d9a7c0b2e8d6f';
export const X_SECRET = 'exchange-client-secret-9b3e7a1c5d0f2468';

export interface IdentityWorld {
  readonly provider: TestOidcProvider;
  readonly tickets: TokenCheckingApi;
  readonly billing: TokenCheckingApi;
  readonly env: Record<string, string>;
  readonly tokenUrl: string;
  close(): Promise<void>;
}

export async function startIdentityWorld(): Promise<IdentityWorld> {
  const provider = await startOidcProvider({
    redirectUris: [],
    apis: { [TICKETS]: 'tickets.read tickets.write', [BILLING]: 'billing.read' },
    serviceClients: [
      { id: 'gateway-service', secret: CC_SECRET, grantTypes: ['client_credentials'] },
      { id: 'gateway-exchange', secret: X_SECRET, grantTypes: [TOKEN_EXCHANGE, JWT_BEARER] },
    ],
  });
  const tickets = await startTokenCheckingApi(provider.issuer, TICKETS);
  const billing = await startTokenCheckingApi(provider.issuer, BILLING);
  return {
    provider,
    tickets,
    billing,
    tokenUrl: `${provider.issuer}/token`,
    env: {
      CC_ID: 'gateway-service',
      CC_SECRET,
      X_ID: 'gateway-exchange',
      X_SECRET,
    },
    async close() {
      await tickets.close();
      await billing.close();
      await provider.close();
    },
  };
}

type IdentityCall<R> =
  | { readonly ok: true; readonly result: R; readonly credential: CallCredential }
  | { readonly ok: false; readonly error: EngineError };

/** Credential, send, and after a 401 one renewal and one more send: never two retries. */
async function withIdentity<R>(
  identity: UpstreamIdentity,
  ctx: CallContext,
  send: (credential: CallCredential) => Promise<R>,
  unauthorized: (result: R) => boolean,
): Promise<IdentityCall<R>> {
  const first = await identity.forCall(ctx);
  if (!first.ok) return first;
  const result = await send(first.credential);
  if (!unauthorized(result) || identity.afterUnauthorized === undefined)
    return { ok: true, result, credential: first.credential };
  const again = await identity.afterUnauthorized(ctx, first.credential);
  if (again === undefined) return { ok: true, result, credential: first.credential };
  if (!again.ok) return again;
  return { ok: true, result: await send(again.credential), credential: again.credential };
}

export type Called =
  | { readonly ok: true; readonly status: number; readonly body: string }
  | { readonly ok: false; readonly error: EngineError };

/** One call to `url` as `caller` through `identity`, its answer redacted as a result is. */
export async function call(
  identity: UpstreamIdentity,
  url: string,
  caller?: Caller,
): Promise<Called> {
  const ctx: CallContext = caller ? { caller } : {};
  const done = await withIdentity(
    identity,
    ctx,
    async (credential) => {
      const res = await fetch(url, { headers: Object.fromEntries(credential.headers) });
      return { status: res.status, body: await res.text() };
    },
    (r) => r.status === 401,
  );
  if (!done.ok) return done;
  const redact = done.credential.redact;
  return {
    ok: true,
    status: done.result.status,
    body: redact ? redact.text(done.result.body) : done.result.body,
  };
}

/** A caller holding an inbound OAuth token, as oauth.ts makes one. */
export function tokenCaller(sub: string, token: string): Caller {
  const subject = Object.freeze({
    token,
    type: 'urn:ietf:params:oauth:token-type:access_token' as const,
  });
  return Object.freeze({
    id: `sub:${sub}`,
    scopes: new Set<string>(),
    subjectToken: () => subject,
  });
}
