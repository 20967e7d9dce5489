/**
 * The CLI the tests spawn: the esbuild bundle `npm run build` ships (scripts/lib/cli-bundle.mjs),
 * built fresh by test/global-setup.ts at the start of every run, so a test never runs a
 * stale build. Spawning bin/mcp-beaver.js in a checkout compiles the TypeScript sources
 * through tsx on every start: 1-2 s of CPU idle, 13-20 s with both cores busy (issue 39).
 *
 * Each run builds into a folder of its own, .test-build/<pid>-<time>/, so two runs in one
 * checkout (a file run by hand beside the suite) never swap the chunks under each other's
 * children. The folder sits two levels below the repository root as dist/cli/ does: the
 * modules read ../../package.json and ../../specs/ relative to themselves.
 */
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { bundleCli } from '../../scripts/lib/cli-bundle.mjs';

const ROOT = join(import.meta.dirname, '..', '..');
const BUILDS = join(ROOT, '.test-build');

export interface CliBuild {
  /** The bundle's entry point: spawn `node <main>`. */
  readonly main: string;
  /** Builds again into the same folder (vitest --watch reruns on a changed source). */
  rebuild(): Promise<void>;
  /** Removes this run's folder. */
  remove(): void;
}

/** Whether the process that made the folder `name` (`<pid>-<time>`) still runs. */
function ownerAlive(name: string): boolean {
  const pid = Number(name.split('-')[0]);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but is another user's.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Builds the CLI for this run; throws with esbuild's message when the sources do not build. */
export async function buildCli(): Promise<CliBuild> {
  mkdirSync(BUILDS, { recursive: true });
  // Folders of runs that were killed before their teardown.
  for (const name of readdirSync(BUILDS))
    if (!ownerAlive(name)) rmSync(join(BUILDS, name), { recursive: true, force: true });
  const dir = join(BUILDS, `${process.pid}-${Date.now()}`);
  try {
    await bundle(dir);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    main: join(dir, 'main.js'),
    rebuild: () => bundle(dir),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

async function bundle(dir: string): Promise<void> {
  try {
    await bundleCli({ outdir: dir, script: 'test/helpers/cli-build.ts' });
  } catch (err) {
    throw new Error(
      `the test run could not build the CLI (src/cli/main.ts with esbuild) that the tests spawn:\n${(err as Error).message}`,
      { cause: err },
    );
  }
}
