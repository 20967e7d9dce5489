/**
 * `npm run bench:compile`: cold and warm parse+compile of generated specs, reported
 * against the KDL parse alone of the same text (the floor the compiler builds on).
 */
import { performance } from 'node:perf_hooks';
import { median as medianOf } from './lib/stats.mjs';
import { generateSpec } from './generate-spec.js';

const t0 = performance.now();
const { parse } = await import('@bgotink/kdl');
const tKdl = performance.now();
const { compileSpecText } = await import('../src/compiler/load-spec.js');
const tCompiler = performance.now();

const median = (xs: number[]): number => medianOf(xs)!;

console.log(`node ${process.version}`);
console.log(
  `import: @bgotink/kdl ${(tKdl - t0).toFixed(1)} ms, compiler ${(tCompiler - tKdl).toFixed(1)} ms`,
);
console.log(
  'grants | cold compile ms | warm median ms | kdl parse median ms | compile/parse | per grant µs',
);
for (const n of [50, 500, 2000]) {
  const text = generateSpec(n);
  const c0 = performance.now();
  const first = compileSpecText(text, `generated-${n}.mcp.kdl`);
  const cold = performance.now() - c0;
  if (!first.compiled || first.compiled.tools.length !== n) {
    console.error(first.diagnostics.slice(0, 5));
    throw new Error(`generated spec of ${n} grants did not compile`);
  }
  const runs = n >= 2000 ? 3 : 7;
  const compile: number[] = [];
  const parseOnly: number[] = [];
  for (let i = 0; i < runs; i++) {
    const a = performance.now();
    parse(text, { as: 'document', storeLocations: true });
    const b = performance.now();
    compileSpecText(text, 'x.mcp.kdl');
    const c = performance.now();
    parseOnly.push(b - a);
    compile.push(c - b);
  }
  const warm = median(compile);
  const floor = median(parseOnly);
  console.log(
    `${String(n).padStart(6)} | ${cold.toFixed(1).padStart(15)} | ${warm.toFixed(1).padStart(14)} | ${floor.toFixed(1).padStart(19)} | ${(warm / floor).toFixed(2).padStart(13)} | ${((warm / n) * 1000).toFixed(0).padStart(12)}`,
  );
}

// `mcp-beaver import openapi` on GitHub's REST description (13 MB, 1,223 operations),
// then `check` of the draft: compile plus the input schemas compiled as serve compiles them.
{
  const { join } = await import('node:path');
  const github = join(
    import.meta.dirname,
    '..',
    'node_modules',
    '@octokit',
    'openapi',
    'generated',
    'api.github.com.json',
  );
  const i0 = performance.now();
  const { importOpenApi } = await import('../src/import/openapi/import-openapi.js');
  const { schemaProblems } = await import('../src/engine/guards/validate.js');
  const tImport = performance.now() - i0;
  console.log(`\nimport openapi (module load ${tImport.toFixed(0)} ms), GitHub's description:`);
  console.log('mode      | grants | import ms | check ms (compile + schemas)');
  for (const writes of [false, true]) {
    const a = performance.now();
    const draft = await importOpenApi(github, { include: [], exclude: [], tags: [], writes });
    const b = performance.now();
    const result = compileSpecText(draft.text, 'github.mcp.kdl');
    if (!result.compiled || schemaProblems(result.compiled.tools).length > 0)
      throw new Error('the GitHub draft did not pass check');
    const c = performance.now();
    console.log(
      `${(writes ? '--writes' : 'read-only').padEnd(9)} | ${String(result.compiled.tools.length).padStart(6)} | ${(b - a).toFixed(0).padStart(9)} | ${(c - b).toFixed(0).padStart(8)}`,
    );
  }
}
