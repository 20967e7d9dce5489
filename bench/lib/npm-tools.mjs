// What the benchmarks measure but never ship (the peers, the import corpus, the MCP
// bridges, a second SQL driver): pinned npm packages installed on demand into a folder
// of .tools/ (git-ignored) and reused offline after the first run. Never a
// devDependency: every `npm ci` would carry them for one bench.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Installs `packages` ({name: exact version}) into `dir` unless its package.json already
 * pins exactly those and every path of `entries` ({key: path under dir/node_modules})
 * exists; returns `entries` as absolute paths. Install scripts stay off: what these
 * packages need ships in their tarballs.
 */
export function ensureNpmTools(dir, packages, entries, log) {
  const manifest = join(dir, 'package.json');
  const wanted = JSON.stringify({ private: true, dependencies: packages }, null, 2);
  const paths = Object.fromEntries(
    Object.entries(entries).map(([k, p]) => [k, join(dir, 'node_modules', p)]),
  );
  const current = existsSync(manifest) ? readFileSync(manifest, 'utf8') : '';
  if (current === wanted && Object.values(paths).every((p) => existsSync(p))) return paths;
  mkdirSync(dir, { recursive: true });
  writeFileSync(manifest, wanted);
  const names = Object.entries(packages).map(([n, v]) => `${n}@${v}`);
  log(`installing ${names.join(', ')} into ${dir} (once)`);
  const r = spawnSync(
    'npm',
    ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--no-package-lock'],
    { cwd: dir, stdio: ['ignore', 2, 2] },
  );
  if (r.status !== 0)
    throw new Error(`installing ${names.join(', ')} failed (npm exit ${r.status})`);
  return paths;
}
