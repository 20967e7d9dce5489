/**
 * What the two esbuild bundles of the CLI share: `npm run build`'s dist/cli/main.js
 * (scripts/bundle-cli.mjs) and the single binary's (scripts/build-binary.mjs).
 *
 * - The catalog page's files are inlined: catalog-assets.ts reads them from beside its own
 *   module at boot, and neither a bundle chunk nor the binary has that folder beside it.
 * - The options both bundles are built with, so the two cannot drift apart.
 */
import { readFile, readdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..');
const CATALOG_ASSETS = join(root, 'src/projection/catalog/catalog-assets.ts');
const CATALOG_ASSETS_DIR = join(root, 'src/projection/catalog/assets');

/** Every file below assets/, named as catalog-assets.ts names it: `catalog.css`, `script/page.js`. */
async function assetNames() {
  const entries = await readdir(CATALOG_ASSETS_DIR, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(CATALOG_ASSETS_DIR, join(e.parentPath, e.name)).split(sep).join('/'))
    .sort();
}

/** The esbuild options of both bundles; each adds its entry, format and output. */
export const SHARED_BUILD_OPTIONS = Object.freeze({
  bundle: true,
  platform: 'node',
  target: 'node20',
  legalComments: 'none',
  logLevel: 'warning',
});

/** pg loads pg-native only when asked for (and catches its absence): never bundled. */
export const ALWAYS_EXTERNAL = Object.freeze(['pg-native']);

/**
 * An esbuild plugin that gives catalog-assets.ts's export with every file of its folder
 * (and of the folders in it) inlined as a string. `check(script)` after the build throws if the bundle never loaded
 * that module (it was moved or renamed, and the bundle would read files it does not have).
 */
export function catalogInlinePlugin() {
  let embedded = false;
  return {
    plugin: {
      name: 'mcp-beaver-catalog-inline',
      setup(b) {
        b.onLoad({ filter: /[\\/]catalog-assets\.ts$/ }, async (args) => {
          if (args.path !== CATALOG_ASSETS) return undefined;
          embedded = true;
          const files = {};
          for (const name of await assetNames())
            files[name] = await readFile(join(CATALOG_ASSETS_DIR, name), 'utf8');
          return {
            contents: `export const CATALOG_FILES = Object.freeze(${JSON.stringify(files)});\n`,
            loader: 'js',
          };
        });
      },
    },
    check(script) {
      if (!embedded)
        throw new Error(
          `the bundle did not load ${relative(root, CATALOG_ASSETS)}; update scripts/lib/catalog-inline-plugin.mjs (and ${script})`,
        );
    },
  };
}
