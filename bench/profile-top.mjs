// Reads a V8 .cpuprofile (node --cpu-prof) and prints the functions with the most
// self time, and the most inclusive time, as shares of the sampled total.
// Usage: node bench/profile-top.mjs FILE.cpuprofile [N] [SKIP_MS]
// SKIP_MS leaves out the first milliseconds of the profile (start-up before the load).
import { readFileSync } from 'node:fs';

const file = process.argv[2];
const top = Number(process.argv[3] ?? 30);
const skipMs = Number(process.argv[4] ?? 0);
const prof = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const selfHits = new Map();
let t = 0;
let total = 0;
prof.samples.forEach((id, i) => {
  t += prof.timeDeltas[i] / 1000;
  if (t < skipMs) return;
  selfHits.set(id, (selfHits.get(id) ?? 0) + 1);
  total += 1;
});
const parent = new Map();
for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

const label = (n) => {
  const f = n.callFrame;
  const where = f.url ? f.url.replace(/^.*\/(node_modules|dist|src)\//, '$1/') : '';
  return `${f.functionName || '(anonymous)'} ${where}:${f.lineNumber + 1}`;
};
const self = new Map();
const incl = new Map();
for (const [id, hits] of selfHits) {
  const n = byId.get(id);
  const key = label(n);
  self.set(key, (self.get(key) ?? 0) + hits);
  // Inclusive: each distinct frame on the stack counts once per sample.
  const seen = new Set();
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
    const k = label(byId.get(cur));
    if (seen.has(k)) continue;
    seen.add(k);
    incl.set(k, (incl.get(k) ?? 0) + hits);
  }
}
// Self time by where the code lives: a package, a folder of ours, node, or native.
const byPlace = new Map();
for (const [key, v] of self) {
  const where = key.slice(key.lastIndexOf(' ') + 1);
  const place =
    /^node_modules\/(@[^/]+\/[^/]+|[^/]+)/.exec(where)?.[1] ??
    /^(dist|src)\/([^/]+\/)?/.exec(where)?.[0] ??
    (where.startsWith('node:')
      ? 'node'
      : where.startsWith(':')
        ? key.split(' ')[0]
        : where.split(':')[0]);
  byPlace.set(place, (byPlace.get(place) ?? 0) + v);
}
const show = (title, m) => {
  console.log(`\n${title} (of ${total} samples)`);
  for (const [k, v] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`${((v / total) * 100).toFixed(1).padStart(5)}%  ${k}`);
};
show('self time by place', byPlace);
show('self time', self);
show('inclusive time', incl);
