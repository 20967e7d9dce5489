/**
 * Single use of confirmation request states (docs/spec-language.md, "Confirmation and
 * approval": a state is used once, whatever the answer). The engine spends a state's
 * nonce after opening it and before acting on the answer; only the first spend wins.
 *
 * In memory by default; in Redis (redis-spent-states.ts) when `limits redis-env` is set,
 * so a retry reaching any replica is spent for all of them.
 */

export interface SpentStates {
  /**
   * Records `nonce` as spent until `expiresAt` (epoch ms; after it the state is refused as
   * expired, so nothing needs remembering). True the first time, false after — and false
   * when the spend cannot be recorded: a state that might be replayed is refused. Rejects
   * when the store does not answer (Redis down): the step then says CONSENT_UNAVAILABLE.
   */
  markSpent(nonce: string, expiresAt: number): Promise<boolean>;
  close(): Promise<void>;
}

export interface MemorySpentStatesOptions {
  /** At most this many unexpired nonces are held (default 100 000). */
  readonly maxEntries?: number;
  readonly now?: () => number;
}

export const DEFAULT_MAX_SPENT = 100_000;

export function createMemorySpentStates(opts: MemorySpentStatesOptions = {}): SpentStates {
  const maxEntries = opts.maxEntries ?? DEFAULT_MAX_SPENT;
  const now = opts.now ?? Date.now;
  // Insertion order is close to expiry order (one TTL for all), so expired entries are
  // mostly at the front and dropping them costs little per call.
  const spent = new Map<string, number>();

  const dropExpired = (at: number, everywhere: boolean): void => {
    for (const [nonce, expiresAt] of spent) {
      if (expiresAt <= at) spent.delete(nonce);
      else if (!everywhere) return;
    }
  };

  return {
    async markSpent(nonce, expiresAt) {
      const at = now();
      if (expiresAt <= at) return false;
      dropExpired(at, false);
      const held = spent.get(nonce);
      if (held !== undefined && held > at) return false;
      if (spent.size >= maxEntries) dropExpired(at, true);
      // Full of live nonces: forgetting one would let it be replayed, so refuse this one;
      // its caller can ask again once older states expire.
      if (spent.size >= maxEntries) return false;
      spent.delete(nonce); // an expired leftover: re-inserted at the end, in expiry order
      spent.set(nonce, expiresAt);
      return true;
    },
    async close() {
      spent.clear();
    },
  };
}
