#!/usr/bin/env node
/**
 * The last step of `npm run build`: dist/cli/main.js, which tsc has just written, is
 * replaced by an esbuild bundle of src/cli/main.ts and the packages it needs to serve
 * (scripts/lib/cli-bundle.mjs, which the test suite's build shares).
 *
 * Why: a cold start was mostly module loading (issue 19). Node resolved, stat'ed, read
 * and compiled some 600 files one by one (fastify, pino, undici, pg, ajv, prom-client and
 * ours); one bundle is read once and needs no resolution. Everything else in dist/ stays
 * as tsc wrote it (the package's other modules, and tests against them).
 */
import { readdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleCli } from './lib/cli-bundle.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = join(root, 'dist', 'cli');

// Chunks of an earlier build (their names carry a hash, so nothing overwrites them), and
// tsc's source map of the main.js this replaces.
for (const f of await readdir(outdir))
  if (/^chunk-\w+\.js$/.test(f) || f === 'main.js.map') await rm(join(outdir, f));

await bundleCli({ outdir, script: 'scripts/bundle-cli.mjs' });
