/**
 * The in-process limiter: one fixed window per key, opened by the key's first call
 * (so a caller's window ends `windowMs` after that call). The map is bounded: expired
 * windows are swept periodically, and at the cap the oldest window is dropped first.
 */
import type { RateDecision, RateLimit, RateLimiter } from './rate-limiter.js';

export interface MemoryLimiterOptions {
  /** Most keys held at once (default 100 000). */
  readonly maxKeys?: number;
  /** How often expired windows are dropped (default 30 s). */
  readonly sweepIntervalMs?: number;
  readonly now?: () => number;
}

interface Window {
  readonly end: number;
  count: number;
}

export interface MemoryLimiter extends RateLimiter {
  /** Keys held now (tests). */
  readonly size: number;
}

export function createMemoryLimiter(opts: MemoryLimiterOptions = {}): MemoryLimiter {
  const maxKeys = Math.max(1, opts.maxKeys ?? 100_000);
  const now = opts.now ?? Date.now;
  // Insertion order is window-opening order: the first entry is the oldest window.
  const windows = new Map<string, Window>();
  const sweep = (): void => {
    const t = now();
    for (const [k, w] of windows) if (w.end <= t) windows.delete(k);
  };
  const timer = setInterval(sweep, opts.sweepIntervalMs ?? 30_000);
  timer.unref();

  function open(key: string, t: number, windowMs: number): Window {
    if (windows.size >= maxKeys) {
      sweep();
      while (windows.size >= maxKeys) {
        const oldest = windows.keys().next();
        if (oldest.done) break;
        windows.delete(oldest.value);
      }
    }
    const w: Window = { end: t + windowMs, count: 0 };
    windows.set(key, w);
    return w;
  }

  return {
    get size() {
      return windows.size;
    },
    hit(key: string, limit: RateLimit): Promise<RateDecision> {
      const t = now();
      // The window length is part of the key: a reload that changes it starts afresh.
      const k = `${limit.windowMs}:${key}`;
      let w = windows.get(k);
      if (w === undefined || w.end <= t) {
        if (w !== undefined) windows.delete(k);
        w = open(k, t, limit.windowMs);
      }
      w.count += 1;
      const allowed = w.count <= limit.count;
      return Promise.resolve({ allowed, retryAfterMs: allowed ? 0 : w.end - t });
    },
    close() {
      clearInterval(timer);
      windows.clear();
      return Promise.resolve();
    },
  };
}
