/**
 * The cache every obtained token lives in (token-cache.ts), on its own: renewals after a
 * 401 share one request and never throw away a token another call already renewed, the
 * cache stays bounded, and a request that throws is not remembered.
 */
import { describe, expect, it } from 'vitest';
import {
  MAX_HELD,
  TokenCache,
  type Fetched,
} from '../../src/engine/backends/upstream/identity/token-cache.js';
import { obtained } from '../../src/engine/backends/upstream/identity/token-credential.js';

function counter(): { fetch: () => Promise<Fetched>; count: () => number } {
  let n = 0;
  return {
    fetch: async () => {
      n++;
      await new Promise((r) => setImmediate(r));
      return obtained({ accessToken: `token-number-${n}` }, Number.MAX_SAFE_INTEGER);
    },
    count: () => n,
  };
}

const header = (o: Awaited<ReturnType<TokenCache<string>['renew']>>): string =>
  o.ok ? o.credential.headers[0]![1] : o.error.code;

describe('the token cache', () => {
  it('renews once for many calls that saw the same token refused', async () => {
    const cache = new TokenCache<string>();
    const { fetch, count } = counter();
    const first = await cache.get('k', fetch);
    if (!first.ok) throw new Error('no token');
    const renewed = await Promise.all(
      Array.from({ length: 10 }, () => cache.renew('k', first.credential, fetch)),
    );
    expect(count()).toBe(2);
    expect(new Set(renewed.map(header))).toEqual(new Set(['Bearer token-number-2']));
  });

  it('answers a late renewal for a token already replaced with the replacement, asking nothing', async () => {
    const cache = new TokenCache<string>();
    const { fetch, count } = counter();
    const first = await cache.get('k', fetch);
    if (!first.ok) throw new Error('no token');
    await cache.renew('k', first.credential, fetch);
    const late = await cache.renew('k', first.credential, fetch);
    expect(header(late)).toBe('Bearer token-number-2');
    expect(count()).toBe(2);
  });

  it(`holds at most ${MAX_HELD} tokens, dropping the oldest`, async () => {
    const cache = new TokenCache<number>();
    // One settled token for every key: a redactor per token (obtained()) is not what is measured here.
    const one = obtained({ accessToken: 'the-same-token' }, Number.MAX_SAFE_INTEGER);
    const fetch = (): Promise<Fetched> => Promise.resolve(one);
    for (let i = 0; i <= MAX_HELD; i++) await cache.get(i, fetch);
    expect(cache.size).toBe(MAX_HELD);
  });

  it('does not remember a request that threw: the next call asks again', async () => {
    const cache = new TokenCache<string>();
    let calls = 0;
    const failing = (): Promise<Fetched> => {
      calls++;
      return Promise.reject(new Error('bug'));
    };
    await expect(cache.get('k', failing)).rejects.toThrow('bug');
    await expect(cache.get('k', failing)).rejects.toThrow('bug');
    expect(calls).toBe(2);
  });
});
