#!/usr/bin/env node
/**
 * `npm run build:binary`: dist-bin/mcp-beaver, one executable that runs `serve`, `check`
 * and `tools` with no node_modules beside it (a Node single executable application).
 *
 *   1. esbuild bundles scripts/sea-entry.ts and everything it imports into one CommonJS
 *      file (scripts/lib/sea-bundle.mjs: a single executable runs one CommonJS script, and
 *      its `require` only loads Node's built-in modules);
 *   2. `node --experimental-sea-config` turns the bundle into a blob;
 *   3. postject injects the blob into a copy of the node binary running this script,
 *      so the executable is that Node version, for this platform and architecture.
 *
 * What the binary leaves out (the `demo` command, `database embedded`, `import`, OTLP over
 * gRPC) is said in scripts/lib/sea-bundle.mjs; each stops with a message saying what to
 * use instead. Run this script with another node binary to build on that version:
 * `/path/to/node scripts/build-binary.mjs`.
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
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import postject from 'postject';
import { bundleOneFile } from './lib/sea-bundle.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outDir = join(root, 'dist-bin');
const exe = join(outDir, process.platform === 'win32' ? 'mcp-beaver.exe' : 'mcp-beaver');
const SENTINEL_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

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
  await mkdir(outDir, { recursive: true });
  const work = await mkdtemp(join(tmpdir(), 'mcp-beaver-sea-'));
  try {
    const bundle = join(work, 'mcp-beaver.cjs');
    await bundleOneFile({
      entry: 'scripts/sea-entry.ts',
      outfile: bundle,
      script: 'scripts/build-binary.mjs',
    });

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
