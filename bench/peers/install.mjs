// The real peers, installed on demand into a cache folder (.tools/peers, git-ignored):
// they are measured beside mcp-beaver, never shipped with it. Versions are pinned so
// that two runs compare the same programs.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureNpmTools } from '../lib/npm-tools.mjs';

export const PEER_PACKAGES = {
  '@toolbox-sdk/server-linux-x64': '1.12.0',
  '@bytebase/dbhub': '1.4.0',
};

/** Paths of the peers' entry points under `dir`, installing them first when missing. */
export function ensurePeers(dir, log) {
  // The Toolbox package ships its binary in the tarball: no install script needed.
  return ensureNpmTools(
    dir,
    PEER_PACKAGES,
    {
      toolbox: '@toolbox-sdk/server-linux-x64/bin/toolbox',
      dbhub: '@bytebase/dbhub/dist/index.js',
    },
    log,
  );
}

/**
 * mcp-beaver as `npx mcp-beaver` users get it: the checkout's built package (`npm pack`
 * of the current dist/, which the caller has just built) installed with its production
 * dependencies into `dir`, so that `npx --no-install mcp-beaver` run there resolves that
 * install, with no network and no src/ or tsx. (Run in the checkout, npx would find the
 * checkout's own bin, which prefers src/ through tsx: not what a user runs.) Reinstalls
 * when the tarball changed. Returns the folder to run npx in.
 */
export function ensurePackage(dir, root, log) {
  mkdirSync(dir, { recursive: true });
  // --ignore-scripts: no `prepack` build; the caller's dist/ is packed as it is.
  const pack = spawnSync(
    'npm',
    ['pack', '--json', '--ignore-scripts', '--pack-destination', dir, '--no-audit', '--no-fund'],
    { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 2] },
  );
  if (pack.status !== 0) throw new Error(`npm pack failed (exit ${pack.status})`);
  const [{ filename, shasum }] = JSON.parse(pack.stdout.slice(pack.stdout.indexOf('[')));
  const stamp = join(dir, 'installed.sha1');
  const bin = join(dir, 'node_modules', '.bin', 'mcp-beaver');
  if (existsSync(bin) && existsSync(stamp) && readFileSync(stamp, 'utf8') === shasum) return dir;
  log(`installing the packed mcp-beaver (${filename}) into ${dir}`);
  rmSync(join(dir, 'node_modules'), { recursive: true, force: true });
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify(
      { private: true, dependencies: { 'mcp-beaver': `file:./${filename}` } },
      null,
      2,
    ),
  );
  const r = spawnSync(
    'npm',
    [
      'install',
      '--omit=dev',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      '--ignore-scripts',
      '--no-package-lock',
    ],
    { cwd: dir, stdio: ['ignore', 2, 2] },
  );
  if (r.status !== 0)
    throw new Error(`installing the packed mcp-beaver failed (npm exit ${r.status})`);
  writeFileSync(stamp, shasum);
  return dir;
}

/**
 * The container's command, `node dist/cli/main.js` on the image's Node 24 with the compile
 * cache the image build bakes (Dockerfile stage `warm`): the repository's Node 24
 * (scripts/node24.sh) and a cache in `dir` filled the way that stage fills it
 * (scripts/warm-compile-cache.mjs). Returns {node, cache}, or undefined when Node 24
 * cannot be had (then the row is left out, and said so).
 */
export function ensureContainerCommand(dir, root, main, log) {
  const node24 = spawnSync('bash', [join(root, 'scripts', 'node24.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 2],
  });
  if (node24.status !== 0) {
    log('no Node 24 (scripts/node24.sh failed): the container-command row is left out');
    return undefined;
  }
  const node = node24.stdout.trim();
  const cache = join(dir, 'compile-cache');
  rmSync(cache, { recursive: true, force: true });
  mkdirSync(cache, { recursive: true });
  const warm = spawnSync(node, [join(root, 'scripts', 'warm-compile-cache.mjs'), main], {
    env: { ...process.env, NODE_COMPILE_CACHE: cache, NODE_DISABLE_COMPILE_CACHE: '1' },
    stdio: ['ignore', 2, 2],
  });
  if (warm.status !== 0) throw new Error(`warming the compile cache failed (exit ${warm.status})`);
  log(`container command: ${node} with the compile cache warmed in ${cache}`);
  return { node, cache };
}
