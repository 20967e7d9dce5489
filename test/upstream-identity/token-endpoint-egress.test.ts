/**
 * A token endpoint is reached the way its upstream is: through the upstream's `proxy`, or
 * through the proxy the environment names for the endpoint's host (HTTP_PROXY, with
 * NO_PROXY able to exclude it), never around them. The proxy is a real CONNECT proxy that
 * records every tunnel asked of it; the token endpoint is a real OAuth server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TokenAuth } from '../../src/compiler/descriptor.js';
import { openIdentity } from '../../src/engine/backends/upstream/upstream-identity.js';
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

describe('the way out to a token endpoint', () => {
  it('goes through the upstream’s declared proxy', async () => {
    const since = proxy.targets.length;
    const identity = await openIdentity(auth, {
      env: world.env,
      upstream: 'tickets',
      egress: { proxy: proxy.url },
    });
    try {
      const answer = await call(identity, `${world.tickets.url}/whoami`);
      expect(answer.ok && answer.status).toBe(200);
      expect(tunnelsTo(endpoint(), since)).toBe(1);
    } finally {
      await identity.close?.();
    }
  });

  it('goes through the proxy the environment names when the upstream declares none', async () => {
    const since = proxy.targets.length;
    const identity = await openIdentity(auth, {
      env: { ...world.env, HTTP_PROXY: proxy.url },
      upstream: 'tickets',
      egress: {},
    });
    try {
      const answer = await call(identity, `${world.tickets.url}/whoami`);
      expect(answer.ok && answer.status).toBe(200);
      expect(tunnelsTo(endpoint(), since)).toBe(1);
    } finally {
      await identity.close?.();
    }
  });

  it('goes direct when NO_PROXY lists the endpoint’s host, and the token still works', async () => {
    const since = proxy.targets.length;
    const identity = await openIdentity(auth, {
      env: { ...world.env, HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1' },
      upstream: 'tickets',
    });
    try {
      const answer = await call(identity, `${world.tickets.url}/whoami`);
      expect(answer.ok && answer.status).toBe(200);
      expect(proxy.targets.length - since).toBe(0);
    } finally {
      await identity.close?.();
    }
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
