#!/usr/bin/env node
/**
 * The last step of `npm run build`: dist/cli/main.js, which tsc has just written, is
 * replaced by an esbuild bundle of src/cli/main.ts and the packages it needs to serve.
 *
 * Why: a cold start was mostly module loading (issue 19). Node resolved, stat'ed, read
 * and compiled some 600 files one by one (fastify, pino, undici, pg, ajv, prom-client and
 * ours); one bundle is read once and needs no resolution. Everything else in dist/ stays
 * as tsc wrote it (the package's other modules, and tests against them).
 *
 * - Each command's modules stay lazy: the bundle is split at every dynamic import
 *   (`splitting`), so `check` never parses fastify and `serve` never parses the
 *   OpenAPI importer. The chunks sit beside main.js, so the paths our modules read
 *   relative to themselves (../../package.json, ../../specs/) hold as in tsc's output.
 * - Packages a spec loads only when it asks for them stay in node_modules, loaded on
 *   first use as before: jose (OAuth), ioredis (redis-env), the embedded Postgres's binaries,
 *   the MCP client (tools/call/discover against a URL), the OpenAPI parsers (import)
 *   and the OTLP/gRPC exporters (`OTEL_EXPORTER_OTLP_PROTOCOL=grpc`).
 * - The catalog page's files are inlined, as in the single binary (build-binary.mjs; both
 *   use scripts/lib/catalog-inline-plugin.mjs): catalog-assets.ts reads them relative to
 *   its own module, which a chunk is not.
 */
import { readdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import {
  ALWAYS_EXTERNAL,
  SHARED_BUILD_OPTIONS,
  catalogInlinePlugin,
} from './lib/catalog-inline-plugin.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = join(root, 'dist', 'cli');

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

const catalog = catalogInlinePlugin();

// Chunks of an earlier build (their names carry a hash, so nothing overwrites them), and
// tsc's source map of the main.js this replaces.
for (const f of await readdir(outdir))
  if (/^chunk-\w+\.js$/.test(f) || f === 'main.js.map') await rm(join(outdir, f));

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
catalog.check('scripts/bundle-cli.mjs');
