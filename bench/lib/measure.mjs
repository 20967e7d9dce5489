// In-process timing of one function: median ns per byte over runs bounded by count and
// by time (the micro benches of the envelope and of redaction).

import { median } from './stats.mjs';

/**
 * Runs `fn` `warmups` times, then at least `minRuns` times and, while `budgetMs` lasts,
 * up to `maxRuns`; returns the median ns per byte of `bytes` and the runs made.
 */
export function measureNsPerByte(fn, bytes, { budgetMs, warmups, minRuns, maxRuns }) {
  for (let i = 0; i < warmups; i++) fn();
  const times = [];
  const until = performance.now() + budgetMs;
  while (times.length < minRuns || (performance.now() < until && times.length < maxRuns)) {
    const t0 = performance.now();
    fn();
    times.push(performance.now() - t0);
  }
  return { nsPerByte: (median(times) * 1e6) / bytes, runs: times.length };
}
