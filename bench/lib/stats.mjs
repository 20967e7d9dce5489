// Summaries and number formats shared by the benchmark reports.

/** Median, min and max of the finite numbers in `xs`; undefined when there are none. */
export function stats(xs) {
  const s = xs.filter((x) => typeof x === 'number' && Number.isFinite(x)).sort((a, b) => a - b);
  if (s.length === 0) return undefined;
  return { median: s[Math.floor(s.length / 2)], min: s[0], max: s[s.length - 1] };
}

/** The median as `stats` takes it (the upper one of an even count); undefined when none. */
export const median = (xs) => stats(xs)?.median;

export const f0 = (x) => (x === undefined ? '–' : x.toFixed(0));
export const f1 = (x) => (x === undefined ? '–' : x.toFixed(1));
export const f2 = (x) => (x === undefined ? '–' : x.toFixed(2));
/** "median (min–max)" with `f` for each number. */
export const range = (s, f) => (s ? `${f(s.median)} (${f(s.min)}–${f(s.max)})` : '–');

/** The p-th percentile (nearest rank) of the finite numbers in `xs`; undefined when none. */
export function percentile(xs, p) {
  const s = xs.filter((x) => typeof x === 'number' && Number.isFinite(x)).sort((a, b) => a - b);
  if (s.length === 0) return undefined;
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}
