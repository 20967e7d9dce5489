/**
 * How long a client ID metadata document's answer is kept, and where (security.md,
 * "Client ID metadata documents"). A client's own caching headers decide within bounds:
 * at least a minute so a client cannot make every `/authorize` a fetch, at most a day so
 * a changed document is read again. After a refusal the URL is not fetched again for a
 * short while, for the same reason: a hostile client must not turn the gateway into a
 * fetch loop against a slow host. That is a back-off, not a cached document (the draft
 * forbids caching error responses as a client's metadata): the next fetch reads afresh.
 */

export const CACHE_TTL_MS = Object.freeze({
  min: 60_000,
  max: 24 * 60 * 60_000,
  /** Without max-age. */
  default: 5 * 60_000,
  /** The back-off after a refused or failed fetch. */
  failure: 30_000,
});

export const CACHE_MAX_ENTRIES = 1000;

/**
 * Milliseconds to keep a good document for, from its `Cache-Control`; 0 for `no-store`
 * and `no-cache` (fetched again on the next sign-in).
 */
export function cacheTtlMs(cacheControl: string | undefined): number {
  if (cacheControl === undefined) return CACHE_TTL_MS.default;
  let maxAge: number | undefined;
  for (const directive of cacheControl.toLowerCase().split(',')) {
    const [name = '', value] = directive.trim().split('=', 2) as [string, string | undefined];
    if (name === 'no-store' || name === 'no-cache') return 0;
    if (name === 'max-age' && value !== undefined) {
      const seconds = Number(value.replace(/^"|"$/g, ''));
      if (Number.isInteger(seconds) && seconds >= 0) maxAge = seconds * 1000;
    }
  }
  if (maxAge === undefined) return CACHE_TTL_MS.default;
  return Math.min(CACHE_TTL_MS.max, Math.max(CACHE_TTL_MS.min, maxAge));
}

interface Entry<T> {
  readonly value: T;
  readonly until: number;
}

/** A map bounded to `limit` entries, least recently used out first, each with its own expiry. */
export class ExpiringLru<T> {
  readonly #entries = new Map<string, Entry<T>>();

  constructor(
    private readonly limit: number,
    private readonly now: () => number,
  ) {}

  get(key: string): T | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.until <= this.now()) {
      this.#entries.delete(key);
      return undefined;
    }
    // Map keeps insertion order: re-inserting makes this the most recently used.
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: T, ttlMs: number): void {
    this.#entries.delete(key);
    if (ttlMs <= 0) return;
    this.#entries.set(key, { value, until: this.now() + ttlMs });
    while (this.#entries.size > this.limit) {
      const oldest = this.#entries.keys().next().value as string;
      this.#entries.delete(oldest);
    }
  }

  get size(): number {
    return this.#entries.size;
  }
}
