/**
 * `npm ci` of the project prints no engine warning on the Node running the tests: every
 * locked package, and the project's own `engines`, admit it. CI runs this file on the
 * machine's Node 20 (npm test) and on Node 24 (scripts/test-node24.sh). `npm ci
 * --dry-run` reads package.json and package-lock.json only: no download, no install.
 */
import { execFile } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const exec = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');

/** The npm on PATH, as its JavaScript entry (the `npm` command links to bin/npm-cli.js). */
function npmCliScript(): string {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const npm = join(dir, 'npm');
    if (!dir || !existsSync(npm)) continue;
    const real = realpathSync(npm);
    return real.endsWith('.js') ? real : join(dirname(real), 'npm-cli.js');
  }
  throw new Error('no npm on PATH');
}

describe(`the project's install on Node ${process.versions.node}`, () => {
  it('npm ci warns about no engine (the locked packages and the project admit this Node)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mcp-beaver-engines-'));
    try {
      for (const f of ['package.json', 'package-lock.json'])
        await copyFile(join(ROOT, f), join(dir, f));
      // npm run by this node, so that npm compares the engines with this node's version.
      const npmCli = npmCliScript();
      const { stdout, stderr } = await exec(
        process.execPath,
        [npmCli, 'ci', '--dry-run', '--ignore-scripts', '--no-audit', '--no-fund'],
        { cwd: dir, env: { PATH: process.env.PATH, HOME: process.env.HOME }, timeout: 120_000 },
      );
      const output = `${stdout}\n${stderr}`;
      expect(output).toMatch(/added \d+ packages/);
      expect(output).not.toContain('EBADENGINE');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 150_000);

  it('keeps the Kubernetes models (Node >= 22) out of the project install, in charts/', async () => {
    const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {
      devDependencies: Record<string, string>;
    };
    const charts = JSON.parse(await readFile(join(ROOT, 'charts', 'package.json'), 'utf8')) as {
      devDependencies: Record<string, string>;
    };
    expect(Object.keys(pkg.devDependencies).filter((d) => d.includes('kubernetes-models'))).toEqual(
      [],
    );
    expect(Object.keys(charts.devDependencies)).toContain('kubernetes-models');
  });
});
