/**
 * The esbuild bundle of the CLI (src/cli/main.ts), written to a folder of the caller's
 * choice: `npm run build` writes it to dist/cli/ (scripts/bundle-cli.mjs) and the test
 * suite to a folder of its own under .test-build/ (test/helpers/cli-build.ts), so that the
 * tests spawn the very bundle users run rather than the sources through tsx, which costs
 * seconds of CPU per start on a busy machine (issue 39).
 *
 * The folder must sit two levels below the repository root, as dist/cli/ does: our
 * modules read ../../package.json and ../../specs/ relative to themselves, and every chunk
 * sits beside main.js.
 *
 * - Each command's modules stay lazy: the bundle is split at every dynamic import
 *   (`splitting`), so `check` never parses fastify and `serve` never parses the
 *   OpenAPI importer.
 * - Packages a spec loads only when it asks for them stay in node_modules, loaded on
 *   first use: jose (OAuth), ioredis (redis-env), the embedded Postgres's binaries,
 *   the MCP client (tools/call/discover against a URL), the OpenAPI parsers (import)
 *   and the OTLP/gRPC exporters (`OTEL_EXPORTER_OTLP_PROTOCOL=grpc`).
 * - The catalog page's files are inlined, as in the single binary (build-binary.mjs; both
 *   use catalog-inline-plugin.mjs): catalog-assets.ts reads them relative to its own
 *   module, which a chunk is not.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import {
  ALWAYS_EXTERNAL,
  SHARED_BUILD_OPTIONS,
  catalogInlinePlugin,
} from './catalog-inline-plugin.mjs';

const root = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..');

/** Loaded on first use, from node_modules, by the specs and commands that need them. */
const EXTERNAL = [
  'jose',
  'ioredis',
  '@modelcontextprotocol/client',
  '@readme/openapi-parser',
  'swagger2openapi',
  'yaml',
  // OTLP over gRPC (telemetry/grpc-exporters.ts), only for a gateway configured for it:
  // @grpc/grpc-js stays in node_modules, never parsed by one that exports over HTTP.
  '@opentelemetry/exporter-trace-otlp-grpc',
  '@opentelemetry/exporter-metrics-otlp-grpc',
  '@opentelemetry/otlp-grpc-exporter-base',
  '@grpc/grpc-js',
  ...ALWAYS_EXTERNAL,
];

/**
 * Bundles src/cli/main.ts into `outdir` (main.js and its chunks). `script` names the
 * caller in the message thrown when the catalog's assets were not inlined.
 */
export async function bundleCli({ outdir, script }) {
  const catalog = catalogInlinePlugin();
  await build({
    entryPoints: [join(root, 'src/cli/main.ts')],
    outdir,
    entryNames: '[name]',
    chunkNames: 'chunk-[hash]',
    ...SHARED_BUILD_OPTIONS,
    splitting: true,
    format: 'esm',
    external: EXTERNAL,
    // The packages bundled are CommonJS: their require() of Node's modules, and their
    // __dirname, need the names CommonJS gives them, in every output file.
    banner: {
      js: [
        "import { createRequire as __mcpbRequire } from 'node:module';",
        "import { fileURLToPath as __mcpbPath } from 'node:url';",
        'const require = __mcpbRequire(import.meta.url);',
        'const __filename = __mcpbPath(import.meta.url);',
        "const __dirname = __mcpbPath(new URL('.', import.meta.url));",
      ].join('\n'),
    },
    plugins: [catalog.plugin],
  });
  catalog.check(script);
}
