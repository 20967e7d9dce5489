/**
 * The gateway's own access tokens (sign-in) name the client they were issued to: the
 * caller built from one carries it as `client` for the identity chain of audit lines and
 * spans (docs/observability.md, "The identity chain"). Real keys, a real signed token.
 */
import { createSecretKey, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { issueAccessToken, verifyOwnToken } from '../../src/access/sign-in/access-tokens.js';
import { tokenKeysOf } from '../../src/access/sign-in/token-key.js';

describe("a caller signed in through the gateway's own authorization server", () => {
  it("carries the client_id its token was issued to as the caller's OAuth client", async () => {
    const keys = await tokenKeysOf(createSecretKey(randomBytes(32)));
    const base = 'http://127.0.0.1:1';
    const { token } = await issueAccessToken(keys, {
      issuer: base,
      audience: `${base}/mcp`,
      sub: 'person-1',
      scopes: ['read'],
      clientId: 'https://agent.example/client.json',
    });
    const checked = await verifyOwnToken(keys, token, { issuer: base, mcpUrl: `${base}/mcp` });
    expect(checked.ok).toBe(true);
    if (!checked.ok) return;
    expect(checked.caller).toMatchObject({
      id: 'sub:person-1',
      client: 'https://agent.example/client.json',
    });
    // A copy of the caller (a log line) carries no token.
    expect(JSON.stringify(checked.caller)).not.toContain(token);
  });
});
