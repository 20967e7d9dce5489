/**
 * What the documented commands write into a checkout is ignored by git, so that
 * `git status` stays clean after them: `npm pack` leaves mcp-beaver-<version>.tgz in
 * the current folder, `npm run build` dist/, `npm run build:binary` dist-bin/, `npm test`
 * the CLI it spawns under .test-build/ (test/helpers/cli-build.ts).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  version: string;
};

describe('the build artifacts', () => {
  it.each([
    `mcp-beaver-${version}.tgz`,
    'dist/cli/main.js',
    'dist-bin/mcp-beaver',
    '.test-build/1-1/main.js',
  ])('%s is ignored by git', (path) => {
    // check-ignore exits 0 for an ignored path (existing or not), 1 otherwise.
    const out = execFileSync('git', ['check-ignore', '--no-index', path], {
      cwd: root,
      encoding: 'utf8',
    });
    expect(out.trim()).toBe(path);
  });
});
