/**
 * `npx tsx bench/number-text.ts`: what keeping the caller's number texts costs the
 * request path. parseJson against JSON.parse on bodies without such numbers (the
 * common path: one scan of the text outside its strings) and with one (a second read),
 * and the argument writer against JSON.stringify.
 */
import { performance } from 'node:perf_hooks';
import { median as medianOf } from './lib/stats.mjs';
import { parseJson, stringifyJson } from '../src/json/number-text.js';

const median = (xs: number[]): number => medianOf(xs)!;

/** Median µs per call of `f` over `rounds` rounds of `n` calls. */
function time(f: () => unknown, n: number, rounds = 15): number {
  for (let i = 0; i < n; i++) f();
  const per: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) f();
    per.push(((performance.now() - t0) * 1000) / n);
  }
  return median(per);
}

const small = JSON.stringify({
  jsonrpc: '2.0',
  id: 7,
  method: 'tools/call',
  params: {
    name: 'create_issue_comment',
    arguments: {
      owner: 'acme',
      repo: 'rocket',
      number: 1347,
      body: 'Looks good: shipped in 2.4.1',
    },
  },
});
const items = Array.from({ length: 2000 }, (_, i) => ({
  id: `550e8400-e29b-41d4-a716-${String(446655440000 + i)}`,
  price: 12.5 + i,
  qty: i,
  tags: ['a', 'b'],
  note: 'x'.repeat(20),
}));
const medium = JSON.stringify({ items });
const large = JSON.stringify({ items: Array.from({ length: 20 }, () => items) });
const withBig = medium.replace('"qty":0', '"qty":12345678901234567890');

console.log(`node ${process.version}`);
console.log('body | bytes | JSON.parse µs | parseJson µs | overhead');
for (const [name, text, n] of [
  ['tools/call, no big number', small, 20000],
  ['2,000 items, no big number', medium, 40],
  ['40,000 items, no big number', large, 3],
  ['2,000 items, one big number', withBig, 40],
] as const) {
  const a = time(() => JSON.parse(text), n);
  const b = time(() => parseJson(text), n);
  console.log(
    `${name} | ${text.length} | ${a.toFixed(2)} | ${b.toFixed(2)} | ${(((b - a) / a) * 100).toFixed(0)}%`,
  );
}
const plain = JSON.parse(withBig) as unknown;
const kept = parseJson(withBig);
const s1 = time(() => JSON.stringify(plain), 40);
const s2 = time(() => stringifyJson(kept.value, kept.texts), 40);
console.log(
  `writing 2,000 items: JSON.stringify ${s1.toFixed(2)} µs, with a kept number ${s2.toFixed(2)} µs`,
);
