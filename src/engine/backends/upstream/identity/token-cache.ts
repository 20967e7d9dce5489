/**
 * The tokens one upstream's identity holds, by key (one key for client credentials; one
 * per subject token for exchange). Three rules, each a guarantee in docs/security.md,
 * "Upstream credentials (client credentials and token exchange)":
 *
 * - single flight: while a token is being obtained for a key, every other call for that
 *   key waits on the same request; the token endpoint sees one request, not one per call;
 * - a held token answers synchronously, the same settled object every time (no promise,
 *   no allocation on the hot path), until its `usableUntil`;
 * - a failure is remembered only for a short, growing backoff (BACKOFF_MS up to
 *   MAX_BACKOFF_MS), so that a dead endpoint is not hammered by every call and a
 *   recovered one is tried again soon.
 */
import type { CallCredential, IdentityOutcome } from '../identity-types.js';

/** The first backoff after a failed token request, doubled per consecutive failure. */
export const BACKOFF_MS = 1_000;
export const MAX_BACKOFF_MS = 30_000;
/** Keys held at most (exchange: one per subject token); the oldest go first past it. */
export const MAX_HELD = 10_000;

/** A token obtained: what calls send, until when (epoch ms, margin already taken off). */
export interface Obtained {
  readonly outcome: IdentityOutcome & { readonly ok: true };
  readonly usableUntil: number;
}

export type Fetched = Obtained | (IdentityOutcome & { readonly ok: false });

interface Failure {
  readonly outcome: IdentityOutcome & { readonly ok: false };
  readonly until: number;
  readonly streak: number;
}

export class TokenCache<K> {
  private readonly held = new Map<K, Obtained>();
  private readonly inFlight = new Map<K, Promise<IdentityOutcome>>();
  private readonly failed = new Map<K, Failure>();

  constructor(private readonly now: () => number = Date.now) {}

  /** The held token for `key`, the request under way, or a new one made by `fetch`. */
  get(key: K, fetch: () => Promise<Fetched>): IdentityOutcome | Promise<IdentityOutcome> {
    const held = this.held.get(key);
    if (held !== undefined) {
      if (held.usableUntil > this.now()) return held.outcome;
      this.held.delete(key);
    }
    const flying = this.inFlight.get(key);
    if (flying !== undefined) return flying;
    const failure = this.failed.get(key);
    if (failure !== undefined && failure.until > this.now()) return failure.outcome;
    return this.start(key, fetch, failure?.streak ?? 0);
  }

  /**
   * The upstream refused `used` (401): it is dropped, unless another call has already
   * replaced it, and the token for `key` is obtained again (joined if under way).
   */
  renew(key: K, used: CallCredential, fetch: () => Promise<Fetched>): Promise<IdentityOutcome> {
    const held = this.held.get(key);
    if (held !== undefined) {
      if (held.outcome.credential !== used && held.usableUntil > this.now())
        return Promise.resolve(held.outcome);
      this.held.delete(key);
    }
    const flying = this.inFlight.get(key);
    if (flying !== undefined) return flying;
    // A renewal is asked for by an upstream's 401, not by a failing endpoint: no backoff.
    return this.start(key, fetch, this.failed.get(key)?.streak ?? 0);
  }

  private start(key: K, fetch: () => Promise<Fetched>, streak: number): Promise<IdentityOutcome> {
    const request = fetch().then(
      (got) => this.settle(key, got, streak),
      // fetch() turns every failure into a value; a throw is a bug, and is not cached.
      (err: unknown) => {
        this.inFlight.delete(key);
        throw err;
      },
    );
    this.inFlight.set(key, request);
    return request;
  }

  private settle(key: K, got: Fetched, streak: number): IdentityOutcome {
    this.inFlight.delete(key);
    if ('usableUntil' in got) {
      this.failed.delete(key);
      if (this.held.size >= MAX_HELD) this.evict();
      this.held.set(key, got);
      return got.outcome;
    }
    const backoff = Math.min(BACKOFF_MS * 2 ** streak, MAX_BACKOFF_MS);
    this.failed.set(key, { outcome: got, until: this.now() + backoff, streak: streak + 1 });
    if (this.failed.size > MAX_HELD) this.failed.delete(this.failed.keys().next().value as K);
    return got;
  }

  /** Past MAX_HELD: the expired go, then the oldest, so the map stays bounded. */
  private evict(): void {
    const now = this.now();
    for (const [k, v] of this.held) if (v.usableUntil <= now) this.held.delete(k);
    while (this.held.size >= MAX_HELD) this.held.delete(this.held.keys().next().value as K);
  }

  /** How many tokens are held (tests, metrics). */
  get size(): number {
    return this.held.size;
  }

  clear(): void {
    this.held.clear();
    this.failed.clear();
  }
}
