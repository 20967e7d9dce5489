/**
 * What the tests of `auth exchange` for a signed-in person share: the exchange identity
 * a test upstream of audience TICKETS is called with, and the caller the gateway makes of
 * one of its own access tokens (verified with the gateway's keys, its sealed provider
 * token opened by `sealer`).
 */
import { verifyOwnToken } from '../../src/access/sign-in/access-tokens.js';
import { Sealer } from '../../src/access/sign-in/sealed.js';
import type { TokenKeys } from '../../src/access/sign-in/token-key.js';
import type { Caller } from '../../src/engine/caller.js';
import { exchangeIdentity } from '../../src/engine/backends/upstream/identity/exchange.js';

/** The exchange the gateway makes for `tickets.read` at `audience`, as client gateway-exchange. */
export const ticketsExchange = (issuer: string, audience: string, secret: string) =>
  exchangeIdentity(
    {
      kind: 'exchange',
      tokenUrl: `${issuer}/token`,
      clientIdEnv: 'X_ID',
      clientSecretEnv: 'X_SECRET',
      audience,
      scope: 'tickets.read',
    },
    { env: { X_ID: 'gateway-exchange', X_SECRET: secret }, upstream: 'tickets' },
  );

/** The caller of the gateway at `gatewayUrl` holding `accessToken`. */
export async function signedInCaller(
  keys: TokenKeys,
  gatewayUrl: string,
  accessToken: string,
  sealer = new Sealer(keys.sealing),
): Promise<Caller> {
  const checked = await verifyOwnToken(
    keys,
    accessToken,
    { issuer: gatewayUrl, mcpUrl: `${gatewayUrl}/mcp` },
    sealer,
  );
  if (!checked.ok) throw new Error(checked.reason);
  return checked.caller;
}
