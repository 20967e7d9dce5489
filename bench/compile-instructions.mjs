// Instructions a spec's parse+compile costs, counted by callgrind (issue 40): one node
// process per (dist, grant count) imports DIST/compiler/load-spec.js and compiles
// bench/generate-spec.ts's spec with compileSpecText, under `valgrind --tool=callgrind`.
// The count includes node's start and module loading, which do not depend on the spec,
// so the per-grant figure is the difference of two counts over the difference of grants.
// Instruction counts barely move with the machine's load, unlike CPU time.
//
//   node bench/compile-instructions.mjs --dist /tmp/base/dist --dist dist [--grants 10,1000]
//                                       [--reps 1]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { tsImport } from 'tsx/esm/api';

const { values: opts } = parseArgs({
  options: {
    dist: { type: 'string', multiple: true },
    grants: { type: 'string', default: '10,1000' },
    reps: { type: 'string', default: '1' },
    // V8 without its helper threads: concurrent compiles and marking otherwise land
    // at different points from run to run, and one count of a build moved by 15 %.
    'node-flags': { type: 'string', default: '--single-threaded' },
  },
});
const DISTS = (opts.dist ?? ['dist']).map((d) => resolve(d));
const COUNTS = opts.grants.split(',').map(Number);
const REPS = Number(opts.reps);
const FLAGS = opts['node-flags'].split(' ').filter(Boolean);
const work = mkdtempSync(join(tmpdir(), 'mcpb-compile-instructions-'));
const { generateSpec } = await tsImport('./generate-spec.ts', import.meta.url);

// The compile under count: it must succeed with every grant, or the count means nothing.
const RUNNER = `
import { readFileSync } from 'node:fs';
const [dist, file, n] = process.argv.slice(2);
const { compileSpecText } = await import(dist + '/compiler/load-spec.js');
const result = compileSpecText(readFileSync(file, 'utf8'), file);
if (result.compiled?.tools.length !== Number(n)) {
  console.error(result.diagnostics.slice(0, 3));
  process.exit(1);
}
`;
const runner = join(work, 'runner.mjs');
writeFileSync(runner, RUNNER);

function instructions(dist, file, n) {
  const run = spawnSync(
    'valgrind',
    [
      '--tool=callgrind',
      '--callgrind-out-file=/dev/null',
      process.execPath,
      ...FLAGS,
      runner,
      dist,
      file,
      String(n),
    ],
    { encoding: 'utf8' },
  );
  const collected = /Collected : (\d+)/.exec(run.stderr);
  if (run.status !== 0 || !collected) throw new Error(`${dist} ${n}: ${run.stderr.slice(-2000)}`);
  return Number(collected[1]);
}

const files = new Map(
  COUNTS.map((n) => {
    const file = join(work, `generated-${n}.mcp.kdl`);
    writeFileSync(file, generateSpec(n));
    return [n, file];
  }),
);
// counts[dist][n] = instructions of each rep; dists take turns within a rep.
const counts = DISTS.map(() => new Map(COUNTS.map((n) => [n, []])));
for (let rep = 0; rep < REPS; rep++) {
  for (const n of COUNTS) {
    DISTS.forEach((dist, d) => counts[d].get(n).push(instructions(dist, files.get(n), n)));
  }
}
rmSync(work, { recursive: true, force: true });

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const G = (x) => (x / 1e9).toFixed(3);
const [low, high] = [COUNTS[0], COUNTS.at(-1)];
console.log(`dist | ${COUNTS.map((n) => `${n} grants (G instr)`).join(' | ')} | M instr a grant`);
const perGrant = DISTS.map((dist, d) => {
  const m = counts[d];
  const per = (median(m.get(high)) - median(m.get(low))) / (high - low);
  const cells = COUNTS.map((n) => m.get(n).map(G).join(', '));
  console.log(`${dist} | ${cells.join(' | ')} | ${(per / 1e6).toFixed(3)}`);
  return per;
});
for (let d = 1; d < DISTS.length; d++) {
  console.log(`${DISTS[d]} ÷ ${DISTS[0]}, a grant: ${(perGrant[d] / perGrant[0]).toFixed(3)}`);
}
