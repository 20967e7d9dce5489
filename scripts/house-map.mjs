#!/usr/bin/env node
/**
 * The house as a map: `node scripts/house-map.mjs [src-dir]` prints the folders of src/
 * (rooms) with their files and lines, the arrows between folders (how many imports cross
 * each one), the folder-level circles, the file-level circles, and the largest files.
 *
 * Why a script and not a picture: docs/architecture.md describes the house in words, and
 * this is how those words are checked. It reads static `from '…'` imports, dynamic
 * `import('…')` and re-exports alike, because a circle through a lazy import is still a
 * circle to the reader (and, at run time, to the module loader once both are loaded).
 * `import type` counts as an arrow between folders but not toward file-level circles:
 * type-only imports vanish at run time.
 *
 * This map is static: what one request really runs through, room by room, is measured by
 * scripts/request-walk.mjs, and docs/architecture.md ("One request through the rooms")
 * reads both.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';

const SRC = process.argv[2] ?? join(import.meta.dirname, '..', 'src');

const files = readdirSync(SRC, { recursive: true })
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
  .map((f) => normalize(f));

/** A file's relative imports: { to, typeOnly }. */
function importsOf(file) {
  const text = readFileSync(join(SRC, file), 'utf8');
  const found = [];
  const staticForm = /^\s*(import|export)(\s+type)?[^'";]*?from\s+'(\.{1,2}\/[^']+)\.js'/gms;
  for (const m of text.matchAll(staticForm)) found.push({ spec: m[3], typeOnly: Boolean(m[2]) });
  for (const m of text.matchAll(/import\(\s*'(\.{1,2}\/[^']+)\.js'\s*\)/g))
    found.push({ spec: m[1], typeOnly: false });
  return found.map(({ spec, typeOnly }) => ({
    to: relative(SRC, join(SRC, dirname(file), `${spec}.ts`)),
    typeOnly,
  }));
}

/** The folder a file lives in, two levels deep at most (engine/backends, projection/mcp). */
function roomOf(file) {
  const parts = file.split(sep).slice(0, -1);
  return parts.length === 0 ? '(root)' : parts.slice(0, 2).join('/');
}

const lines = new Map(files.map((f) => [f, readFileSync(join(SRC, f), 'utf8').split('\n').length]));
const graph = new Map(files.map((f) => [f, importsOf(f)]));

// Rooms.
const rooms = new Map();
for (const f of files) {
  const r = rooms.get(roomOf(f)) ?? { files: 0, lines: 0 };
  r.files += 1;
  r.lines += lines.get(f);
  rooms.set(roomOf(f), r);
}
const sorted = [...lines.values()].sort((a, b) => a - b);
console.log(
  `${files.length} files, ${sorted.reduce((a, b) => a + b, 0)} lines, median ${sorted[Math.floor(sorted.length / 2)]}`,
);
console.log('\nrooms (files, lines):');
for (const [room, r] of [...rooms].sort())
  console.log(`  ${room.padEnd(24)} ${String(r.files).padStart(3)} ${String(r.lines).padStart(6)}`);

// Arrows between top-level folders.
const top = (f) => f.split(sep)[0].replace(/\.ts$/, '');
const arrows = new Map();
for (const [from, deps] of graph)
  for (const { to } of deps) {
    if (top(from) === top(to)) continue;
    const key = `${top(from)} -> ${top(to)}`;
    arrows.set(key, (arrows.get(key) ?? 0) + 1);
  }
console.log('\narrows between folders (imports crossing):');
for (const [k, n] of [...arrows].sort()) console.log(`  ${k.padEnd(30)} ${n}`);

// Folder circles: pairs and longer, found on the folder graph.
const folderGraph = new Map();
for (const k of arrows.keys()) {
  const [a, b] = k.split(' -> ');
  folderGraph.set(a, [...(folderGraph.get(a) ?? []), b]);
}
console.log('\nfolder circles:');
const circles = cycles(folderGraph);
console.log(circles.length ? circles.map((c) => `  ${c.join(' -> ')}`).join('\n') : '  none');

// File circles, runtime imports only.
const runtime = new Map(
  [...graph].map(([f, deps]) => [f, deps.filter((d) => !d.typeOnly).map((d) => d.to)]),
);
console.log('\nfile circles (runtime imports, static or dynamic):');
const fileCircles = cycles(runtime);
console.log(
  fileCircles.length ? fileCircles.map((c) => `  ${c.join(' -> ')}`).join('\n') : '  none',
);
const all = new Map([...graph].map(([f, deps]) => [f, deps.map((d) => d.to)]));
console.log('\nfile circles a reader follows (type imports too):');
const readCircles = cycles(all);
console.log(
  readCircles.length ? readCircles.map((c) => `  ${c.join(' -> ')}`).join('\n') : '  none',
);

console.log('\nlargest files:');
for (const [f, n] of [...lines].sort((a, b) => b[1] - a[1]).slice(0, 12))
  console.log(`  ${String(n).padStart(5)} ${f}`);

/** Elementary circles, one per strongly connected set, shortest through its first node. */
function cycles(g) {
  const found = [];
  const seen = new Set();
  for (const start of [...g.keys()].sort()) {
    if (seen.has(start)) continue;
    // Breadth-first back to start gives the shortest circle through it.
    const prev = new Map([[start, null]]);
    const queue = [start];
    let hit;
    while (queue.length && !hit) {
      const n = queue.shift();
      for (const m of g.get(n) ?? []) {
        if (m === start) {
          hit = n;
          break;
        }
        if (!prev.has(m)) {
          prev.set(m, n);
          queue.push(m);
        }
      }
    }
    if (!hit) continue;
    const path = [];
    for (let n = hit; n !== null; n = prev.get(n)) path.unshift(n);
    path.forEach((n) => seen.add(n));
    found.push([...path, start]);
  }
  return found;
}
