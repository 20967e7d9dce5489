/**
 * Rate limits (spec-language.md, `rate-limit "60/m"`): calls allowed per caller per
 * window, per grant. A limiter counts hits under an opaque key; the pipeline asks it
 * after the scope check, so callers who may not call a grant never spend its quota.
 */
import type { Caller } from '../caller.js';
import { engineError, type EngineError } from '../error-catalogue.js';

export interface RateLimit {
  readonly count: number;
  readonly windowMs: number;
}

export interface RateDecision {
  readonly allowed: boolean;
  /** Time to the end of the caller's window when refused; 0 when allowed. */
  readonly retryAfterMs: number;
}

export interface RateLimiter {
  /** Counts one call under `key`. Never rejects: a limiter that cannot count falls back. */
  hit(key: string, limit: RateLimit): Promise<RateDecision>;
  close(): Promise<void>;
}

/** The per-operation check the pipeline runs: undefined when the call may go on. */
export type RateCheck = (caller: Caller) => Promise<EngineError | undefined>;

const UNITS: readonly (readonly [number, string])[] = [
  [3_600_000, 'h'],
  [60_000, 'm'],
  [1_000, 's'],
];

/** `60/m` back from a window, for messages. */
export function formatRateLimit(limit: RateLimit): string {
  for (const [ms, unit] of UNITS) {
    if (limit.windowMs === ms) return `${limit.count}/${unit}`;
    if (limit.windowMs % ms === 0) return `${limit.count} per ${limit.windowMs / ms}${unit}`;
  }
  return `${limit.count} per ${limit.windowMs}ms`;
}

/** Whole seconds to wait, rounded up and at least 1 (Retry-After takes whole seconds). */
export function retryAfterSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

export function prepareRateLimit(tool: string, limit: RateLimit, limiter: RateLimiter): RateCheck {
  const text = formatRateLimit(limit);
  return async (caller) => {
    const d = await limiter.hit(`${tool}\u0000${caller.id}`, limit);
    if (d.allowed) return undefined;
    const retryAfter = retryAfterSeconds(d.retryAfterMs);
    return engineError(
      'RATE_LIMITED',
      `${tool} allows ${text} calls per caller and this caller has used them; retry after ${retryAfter} s`,
      { retryAfter, details: { limit: text } },
    );
  };
}
