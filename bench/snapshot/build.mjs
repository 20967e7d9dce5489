// The startup-snapshot experiment of issue 40 (not shipped; bench/RESULTS.md, "A V8
// startup snapshot of serve"): a V8 startup snapshot of the CLI, with serve's modules
// evaluated at build time. Run it with the node that will run the blob (a blob only
// loads in the same Node build, with the same V8 flags):
//
//   /path/to/node bench/snapshot/build.mjs --out DIR [--minify]
//   node bench/startup-cpu.mjs --command "/path/to/node --snapshot-blob DIR/mcp-beaver.blob"
//
// The bundle is the single binary's (scripts/lib/sea-bundle.mjs), from
// bench/snapshot/entry.ts, with stand-ins (lazy-module.ts) for the modules a snapshot
// cannot hold:
// - node:http, node:https, node:http2, node:tls: their bindings are not registered for
//   snapshots, and loading one aborts the build ("global handle not serialized");
// - node:cluster: it chooses primary or worker from NODE_UNIQUE_ID when it loads;
// - prom-client: processStartTime.js captures `Date.now() - process.uptime()` at load;
// - undici on Node ≥ 22, where the web global its cookies module reads loads Node's own
//   undici, which loads node:http (build-guards.ts); on Node 20 undici is in the snapshot,
//   with its one module-level use of node:http (lib/core/util.js, `{ IncomingMessage }`,
//   compared in destroy()) rewritten to a use at call time.
// bench/snapshot/probe.mjs checks that a snapshot-started server answers as main's does.
// --minify: esbuild's minifyWhitespace and minifySyntax (no renaming), a smaller heap.
import { spawnSync } from 'node:child_process';
import { mkdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { bundleOneFile } from '../../scripts/lib/sea-bundle.mjs';

const ROOT = dirname(dirname(dirname(fileURLToPath(import.meta.url))));
const LAZY_MODULE = join(ROOT, 'bench', 'snapshot', 'lazy-module.ts');
const require = createRequire(join(ROOT, 'package.json'));
const { values: opts } = parseArgs({
  options: { out: { type: 'string' }, minify: { type: 'boolean', default: false } },
});
if (!opts.out) throw new Error('--out DIR is required');
const out = resolve(opts.out);
const major = Number(process.versions.node.split('.')[0]);

const RUNTIME_BUILTINS = /^(node:)?(http|https|http2|tls|cluster)$/;
const RUNTIME_PACKAGES = ['prom-client', ...(major >= 22 ? ['undici'] : [])];

/**
 * The members a stand-in answers from the build's own copy (the same Node, so the same
 * values), because modules in the snapshot read them at load: constants only. Everything
 * else is the process's own state (cluster's isPrimary/isWorker, the agents, settings) and
 * is loaded at run time.
 */
const BUILD_COPIES = {
  'node:http': ['STATUS_CODES', 'METHODS', 'maxHeaderSize'],
  'node:http2': ['constants'],
};

/** The source of a stand-in for `id`; `loadReal` is a package's loader (a built-in's is Node's). */
function standIn(id, real, loadReal) {
  const data = Object.fromEntries((BUILD_COPIES[id] ?? []).map((k) => [k, real[k]]));
  return [
    `const { lazyModule } = require(${JSON.stringify(LAZY_MODULE)});`,
    `module.exports = lazyModule(${JSON.stringify(id)}, ${JSON.stringify(Object.getOwnPropertyNames(real))}, ${JSON.stringify(data)}${loadReal ? `, ${loadReal}` : ''});`,
  ].join('\n');
}

const runtimeOnly = {
  name: 'snapshot-runtime-only',
  setup(b) {
    b.onResolve({ filter: RUNTIME_BUILTINS }, (a) => ({
      path: `node:${a.path.replace(/^node:/, '')}`,
      namespace: 'runtime-builtin',
    }));
    b.onLoad({ filter: /.*/, namespace: 'runtime-builtin' }, (a) => ({
      contents: standIn(a.path, require(a.path)),
      loader: 'js',
      resolveDir: ROOT,
    }));
    b.onResolve({ filter: new RegExp(`^(${RUNTIME_PACKAGES.join('|')})$`) }, (a) => ({
      path: a.path,
      namespace: 'runtime-package',
    }));
    b.onLoad({ filter: /.*/, namespace: 'runtime-package' }, (a) => ({
      contents: standIn(
        a.path,
        require(a.path),
        `() => require(${JSON.stringify(require.resolve(a.path))})`,
      ),
      loader: 'js',
      resolveDir: ROOT,
    }));
    b.onLoad({ filter: /undici[\\/]lib[\\/]core[\\/]util\.js$/ }, async (a) => {
      const source = await readFile(a.path, 'utf8');
      const patched = source
        .replace(
          "const { IncomingMessage } = require('node:http')",
          "const http = require('node:http')",
        )
        .replace('constructor === IncomingMessage', 'constructor === http.IncomingMessage');
      if (patched.includes('IncomingMessage }'))
        throw new Error(`${a.path}: its use of node:http changed; update bench/snapshot/build.mjs`);
      return { contents: patched, loader: 'js' };
    });
  },
};

await mkdir(out, { recursive: true });
const bundle = join(out, 'mcp-beaver.cjs');
const blob = join(out, 'mcp-beaver.blob');
await bundleOneFile({
  entry: 'bench/snapshot/entry.ts',
  outfile: bundle,
  script: 'bench/snapshot/build.mjs',
  plugins: [runtimeOnly],
  options: opts.minify ? { minifyWhitespace: true, minifySyntax: true } : {},
});
const built = spawnSync(process.execPath, ['--snapshot-blob', blob, '--build-snapshot', bundle], {
  encoding: 'utf8',
});
// Node warns about every built-in it has not verified for snapshots (worker_threads,
// module, perf_hooks, async_hooks, vm, …); they build and run, so only the rest is shown.
const said = built.stderr
  .split('\n')
  .filter(
    (l) => !/not yet fully verified|^It may still work|^To request support|trace-warnings/.test(l),
  )
  .join('\n')
  .trim();
if (said) process.stderr.write(`${said}\n`);
if (built.status !== 0) throw new Error(`node --build-snapshot failed (${built.status})`);
process.stdout.write(`${process.execPath} --snapshot-blob ${blob}\n`);
