// The real peers, installed on demand into a cache folder (.tools/peers, git-ignored):
// they are measured beside mcp-beaver, never shipped with it. Versions are pinned so
// that two runs compare the same programs.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const PEER_PACKAGES = {
  '@toolbox-sdk/server-linux-x64': '1.12.0',
  '@bytebase/dbhub': '1.4.0',
};

/** Paths of the peers' entry points under `dir`, installing them first when missing. */
export function ensurePeers(dir, log) {
  const manifest = join(dir, 'package.json');
  const wanted = JSON.stringify({ private: true, dependencies: PEER_PACKAGES }, null, 2);
  const paths = {
    toolbox: join(dir, 'node_modules', '@toolbox-sdk', 'server-linux-x64', 'bin', 'toolbox'),
    dbhub: join(dir, 'node_modules', '@bytebase', 'dbhub', 'dist', 'index.js'),
  };
  const current = existsSync(manifest) ? readFileSync(manifest, 'utf8') : '';
  if (current !== wanted || !Object.values(paths).every((p) => existsSync(p))) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(manifest, wanted);
    log(`installing the peers into ${dir} (${Object.keys(PEER_PACKAGES).join(', ')})`);
    // Install scripts stay off: the Toolbox package ships its binary in the tarball.
    const r = spawnSync(
      'npm',
      ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--no-package-lock'],
      { cwd: dir, stdio: ['ignore', 2, 2] },
    );
    if (r.status !== 0) throw new Error(`installing the peers failed (npm exit ${r.status})`);
  }
  return paths;
}
