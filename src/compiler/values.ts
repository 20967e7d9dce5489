/** Small value grammars of the spec language: durations and rate limits. */

const DURATION = /^(\d{1,9})(ms|s|m|h)$/;
const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;

/** `500ms`, `10s`, `2m`, `1h` → milliseconds; undefined when the text is not one. */
export function parseDuration(text: string): number | undefined {
  const m = DURATION.exec(text);
  if (!m) return undefined;
  const ms = Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS];
  return ms > 0 ? ms : undefined;
}

const RATE = /^(\d{1,9})\/(s|m|h)$/;

/** `60/m` → 60 calls per 60 000 ms. */
export function parseRateLimit(text: string): { count: number; windowMs: number } | undefined {
  const m = RATE.exec(text);
  if (!m) return undefined;
  const count = Number(m[1]);
  if (count < 1) return undefined;
  return { count, windowMs: UNIT_MS[m[2] as 's' | 'm' | 'h'] };
}
