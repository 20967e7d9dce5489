/**
 * `serve --warm-up <requests>|off`, or MCP_BEAVER_WARM_UP (the Helm chart's way): how
 * many requests the warm-up sends before the gateway listens. The flag wins over the
 * variable; neither given, the default.
 */
export const WARM_UP_ENV = 'MCP_BEAVER_WARM_UP';

/**
 * Off unless asked: a developer's `serve` should answer at once, and a pod asks through
 * the image (its Dockerfile sets MCP_BEAVER_WARM_UP) or the chart (`server.warmUp`).
 */
export const DEFAULT_WARM_UP = 0;

/** The size the image and the chart ask for, chosen by measurement (bench section `warmup`). */
export const POD_WARM_UP = 500;

/** More than this is a typo: the curve is flat long before (bench/RESULTS.md). */
export const MAX_WARM_UP = 100_000;

/** The requests to send (0: off), or a message saying what the value takes. */
export function parseWarmUp(
  flag: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): number | string {
  const fromEnv = env[WARM_UP_ENV];
  const text = flag ?? (fromEnv === '' ? undefined : fromEnv);
  if (text === undefined) return DEFAULT_WARM_UP;
  if (text === 'off') return 0;
  const n = /^[0-9]+$/.test(text) ? Number(text) : NaN;
  if (Number.isInteger(n) && n <= MAX_WARM_UP) return n;
  const given = flag === undefined ? `${WARM_UP_ENV}=${JSON.stringify(text)}` : '--warm-up';
  return `${given}: the warm-up takes a number of requests from 0 to ${MAX_WARM_UP}, or off`;
}
