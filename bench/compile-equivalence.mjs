// Two builds compile the same specs to deep-equal results (issue 40, the compile's cost):
// descriptors and diagnostics, message for message. A change meant to make a grant
// cheaper to compile must change nothing of what it compiles to, errors included.
//
// The specs: every specs/*.mcp.kdl, bench/generate-spec.ts's spec of 50 and 500 grants,
// and --mutants edits of each (a line dropped or repeated, a word or a value changed,
// seeded so every run tries the same), which reach most of the compiler's refusals.
//
//   node bench/compile-equivalence.mjs --dist /tmp/base/dist --dist dist [--mutants 300]
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs, isDeepStrictEqual } from 'node:util';
import { tsImport } from 'tsx/esm/api';

const ROOT = resolve(import.meta.dirname, '..');
const { values: opts } = parseArgs({
  options: {
    dist: { type: 'string', multiple: true },
    mutants: { type: 'string', default: '300' },
  },
});
if (opts.dist?.length !== 2) throw new Error('give two --dist');
const [a, b] = await Promise.all(
  opts.dist.map((d) => import(join(resolve(d), 'compiler', 'load-spec.js'))),
);
const { generateSpec } = await tsImport('./generate-spec.ts', import.meta.url);

const specs = readdirSync(join(ROOT, 'specs'))
  .filter((f) => f.endsWith('.mcp.kdl'))
  .map((f) => [f, readFileSync(join(ROOT, 'specs', f), 'utf8')]);
specs.push(['generated-50', generateSpec(50)], ['generated-500', generateSpec(500)]);

// A small seeded generator (mulberry32), so a failure can be reproduced.
let seed = 40;
function random() {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = (xs) => xs[Math.floor(random() * xs.length)];
const WORDS = [
  'string',
  'integer',
  'object',
  'raw',
  'required=#true',
  'min=5',
  'max=1',
  'default="x"',
  'enum "a"',
  'pattern="(a+)+$"',
  'pattern="["',
  'as="_"',
  'format="uri"',
  'format="nope"',
  'kind="list"',
  'max-length=-1',
  '"{owner}"',
  'method "TRACE"',
  'scope "s"',
  'sql "SELECT 1"',
  'path "/x"',
  'body',
  'query',
  'exclusive "a"',
  'describe',
  '#null',
  '1.5',
];

function mutate(text) {
  const lines = text.split('\n');
  const i = Math.floor(random() * lines.length);
  switch (Math.floor(random() * 5)) {
    case 0:
      lines.splice(i, 1);
      break;
    case 1:
      lines.splice(i, 0, lines[i]);
      break;
    case 2: {
      const words = lines[i].split(' ');
      words[Math.floor(random() * words.length)] = pick(WORDS);
      lines[i] = words.join(' ');
      break;
    }
    case 3:
      lines[i] = `${lines[i]} ${pick(WORDS)}`;
      break;
    default:
      lines[i] = lines[i].replace(/\d+|"[^"]*"/, () => pick(['0', '-3', '"Z"', '""', '#true']));
  }
  return lines.join('\n');
}

let compared = 0;
let withErrors = 0;
const differ = [];
function compare(name, text) {
  const left = a.compileSpecText(text, `${name}.mcp.kdl`);
  const right = b.compileSpecText(text, `${name}.mcp.kdl`);
  compared++;
  if (left.diagnostics.length > 0) withErrors++;
  if (!isDeepStrictEqual(left, right)) differ.push([name, text, left, right]);
}
for (const [name, text] of specs) {
  compare(name, text);
  // The 500-grant spec is compiled whole; its mutants would repeat the 50's at ten times the cost.
  if (name === 'generated-500') continue;
  for (let m = 0; m < Number(opts.mutants); m++) compare(`${name}~${m}`, mutate(text));
}
console.log(`${compared} compiles, ${withErrors} with diagnostics, ${differ.length} differ`);
for (const [name, , left, right] of differ.slice(0, 3)) {
  console.log(`${name}:`);
  console.log(JSON.stringify(left.diagnostics).slice(0, 600));
  console.log(JSON.stringify(right.diagnostics).slice(0, 600));
}
process.exitCode = differ.length === 0 ? 0 : 1;
