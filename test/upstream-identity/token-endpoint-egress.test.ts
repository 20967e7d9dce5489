/**
 * A token endpoint is reached the way its upstream is: through the upstream's `proxy`, or
 * through the proxy the environment names for the endpoint's host (HTTP_PROXY, with
 * NO_PROXY able to exclude it), never around them. The proxy is a real CONNECT proxy that
 * records every tunnel asked of it; the token endpoint is a real OAuth server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TokenAuth } from '../../src/compiler/descriptor.js';
import { openIdentity } from '../../src/engine/backends/upstream/upstream-identity.js';
import type { TokenEgress } from '../../src/outbound/token-endpoint-dispatcher.js';
import { startEgressProxy, type EgressProxy } from '../helpers/egress-proxy.js';
import {
  call,
  startIdentityWorld,
  TICKETS,
  type IdentityWorld,
} from '../helpers/upstream-identity-world.js';

let world: IdentityWorld;
let proxy: EgressProxy;

beforeAll(async () => {
  world = await startIdentityWorld();
  proxy = await startEgressProxy();
});

afterAll(async () => {
  await proxy?.close();
  await world?.close();
});

const auth: TokenAuth & { kind: 'client-credentials' } = {
  kind: 'client-credentials',
  get tokenUrl() {
    return world.tokenUrl;
  },
  clientIdEnv: 'CC_ID',
  clientSecretEnv: 'CC_SECRET',
  scope: 'tickets.read',
  audience: TICKETS,
};

/** host:port of the token endpoint, as a CONNECT names it. */
const endpoint = (): string => new URL(world.tokenUrl).host;
const tunnelsTo = (target: string, since: number): number =>
  proxy.targets.slice(since).filter((t) => t === target).length;

/**
 * One call through an identity opened with `env` and `egress`, answered 200 by the API;
 * how many tunnels to the token endpoint the proxy opened meanwhile.
 */
async function tunnelsForOneCall(env: Record<string, string>, egress?: TokenEgress) {
  const since = proxy.targets.length;
  const identity = await openIdentity(auth, {
    env,
    upstream: 'tickets',
    ...(egress && { egress }),
  });
  try {
    const answer = await call(identity, `${world.tickets.url}/whoami`);
    expect(answer.ok && answer.status).toBe(200);
    return { toEndpoint: tunnelsTo(endpoint(), since), all: proxy.targets.length - since };
  } finally {
    await identity.close?.();
  }
}

describe('the way out to a token endpoint', () => {
  it('goes through the upstream’s declared proxy', async () => {
    const tunnels = await tunnelsForOneCall(world.env, { proxy: proxy.url });
    expect(tunnels.toEndpoint).toBe(1);
  });

  it('goes through the proxy the environment names when the upstream declares none', async () => {
    const tunnels = await tunnelsForOneCall({ ...world.env, HTTP_PROXY: proxy.url }, {});
    expect(tunnels.toEndpoint).toBe(1);
  });

  it('goes direct when NO_PROXY lists the endpoint’s host, and the token still works', async () => {
    const env = { ...world.env, HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1' };
    expect((await tunnelsForOneCall(env)).all).toBe(0);
  });

  it('redacts the password of the environment’s proxy URL, which it sends to the proxy alone', async () => {
    const identity = await openIdentity(auth, {
      env: {
        ...world.env,
        HTTP_PROXY: proxy.url.replace('http://', 'http://egress:proxy-pass-5e1c9a@'),
      },
      upstream: 'tickets',
    });
    try {
      expect(identity.secrets()).toContain('proxy-pass-5e1c9a');
      const answer = await call(identity, `${world.tickets.url}/whoami`);
      expect(answer.ok && answer.status).toBe(200);
      expect(proxy.authorizations.at(-1)).toBe(
        `Basic ${Buffer.from('egress:proxy-pass-5e1c9a').toString('base64')}`,
      );
    } finally {
      await identity.close?.();
    }
  });
});
