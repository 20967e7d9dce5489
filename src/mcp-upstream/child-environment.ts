/**
 * What a stdio child is started with (spec-language.md, `mcp-server … command`): the
 * program found on PATH at start, no shell, and an environment of PATH, HOME, LANG and
 * the variables the spec names only, so the gateway's own secrets (its database URL,
 * other upstreams' tokens) never reach a server written by someone else.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

const INHERITED = ['PATH', 'HOME', 'LANG'] as const;

export function childEnvironment(
  given: Readonly<Record<string, string>>,
  parent: NodeJS.ProcessEnv,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of INHERITED) {
    const v = parent[name];
    if (v !== undefined) env[name] = v;
  }
  return Object.assign(env, given);
}

/**
 * The program's absolute path, or why it cannot be run. A name with a slash is taken
 * relative to `cwd`; a bare name is looked up on `pathVar` (the child's own PATH), as a
 * shell would, but once, at start, and without one.
 */
export function findProgram(
  program: string,
  pathVar: string | undefined,
  cwd: string,
): { readonly path: string } | { readonly missing: string } {
  if (program.includes('/')) {
    const full = isAbsolute(program) ? program : resolve(cwd, program);
    return isExecutable(full)
      ? { path: full }
      : { missing: `the program ${JSON.stringify(program)} (${full}) is not an executable file` };
  }
  const dirs = (pathVar ?? '').split(delimiter).filter((d) => d !== '');
  for (const dir of dirs) {
    const full = join(resolve(cwd, dir), program);
    if (isExecutable(full)) return { path: full };
  }
  return {
    missing: `the program ${JSON.stringify(program)} is not found on PATH${dirs.length ? ` (${dirs.join(delimiter)})` : ' (PATH is empty)'}`,
  };
}

function isExecutable(file: string): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
