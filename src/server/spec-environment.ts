/**
 * The environment a spec needs, judged before anything opens: which of the variables it
 * names start-up reads (each backend kind for its grants, the API keys, the consent key,
 * sign-in's token key and its client at the provider, the Redis URL), and which of those are not set, so that start-up names every missing
 * variable in one error rather than one per failed start, and `check --env` can say the
 * same without starting. Only whether a variable is set is ever looked at, never printed.
 */
import type { CompiledSpec } from '../compiler/descriptor.js';
import type { GrantOf, KindName } from '../engine/backends/kind.js';
import { KIND_LIST } from '../engine/backends/kinds.js';
import { hasConsent } from '../engine/consent/consent-services.js';
import type { Env } from '../process/env.js';

export interface SpecVariableState {
  readonly name: string;
  /** What names it in the spec (`auth bearer`, `access api-key`). */
  readonly reads: string;
  /** Where the spec names it; absent for a spec built without its source. */
  readonly line?: number;
  readonly column?: number;
  /** Start-up reads it: a backend, access (sign-in too), consent or the rate limiter needs it. */
  readonly readAtStart: boolean;
  readonly set: boolean;
}

/**
 * What a start reads, by name. A reload builds a new runtime (the kinds, the API keys)
 * but keeps the process's consent key, sign-in services and rate limiter, so it reads no
 * more than those.
 */
function readAtStart(spec: CompiledSpec, when: 'start' | 'reload'): Set<string> {
  const names = KIND_LIST.flatMap((kind) => {
    const grants = spec.tools.filter((d): d is GrantOf<KindName> => d.backend.kind === kind.kind);
    // Each kind is asked of its own grants only, which the filter above makes sure of.
    const variables = kind.variables as
      ((spec: CompiledSpec, grants: readonly GrantOf<KindName>[]) => readonly string[]) | undefined;
    return grants.length > 0 && variables ? variables(spec, grants) : [];
  });
  for (const key of spec.access?.apiKeys ?? []) names.push(key.env);
  if (when === 'start') {
    if (spec.access?.confirmKeyEnv !== undefined && hasConsent(spec))
      names.push(spec.access.confirmKeyEnv);
    // Sign-in is opened once per process (sign-in-services.ts); the compiler refuses
    // sign-in without token-key-env (SPEC_SIGN_IN).
    const signIn = spec.access?.signIn;
    if (signIn) {
      if (spec.access?.tokenKeyEnv !== undefined) names.push(spec.access.tokenKeyEnv);
      names.push(signIn.clientIdEnv, signIn.clientSecretEnv);
    }
    if (spec.redisEnv !== undefined) names.push(spec.redisEnv);
  }
  return new Set(names);
}

function isSet(env: Env, name: string): boolean {
  const value = env[name];
  return value !== undefined && value !== '';
}

/** Every variable the spec names, in file order, and whether start-up reads it and it is set. */
export function specEnvironment(
  spec: CompiledSpec,
  env: Env,
  when: 'start' | 'reload' = 'start',
): SpecVariableState[] {
  const needed = readAtStart(spec, when);
  const named = spec.variables ?? [];
  const rows: SpecVariableState[] = named.map((v) => ({
    name: v.name,
    reads: v.reads,
    line: v.line,
    column: v.column,
    readAtStart: needed.has(v.name),
    set: isSet(env, v.name),
  }));
  for (const name of needed)
    if (!named.some((v) => v.name === name))
      rows.push({ name, reads: 'the spec', readAtStart: true, set: isSet(env, name) });
  return rows;
}

/** The places naming a variable a start (or a reload) reads that is not set. */
export function missingVariables(
  spec: CompiledSpec,
  env: Env,
  when: 'start' | 'reload' = 'start',
): SpecVariableState[] {
  return specEnvironment(spec, env, when).filter((v) => v.readAtStart && !v.set);
}

/**
 * One message for every missing variable, a line each with the place that names it:
 *   2 environment variables the spec reads at start-up are not set:
 *     GITHUB_TOKEN  specs/x.mcp.kdl:3  auth bearer
 */
export function missingVariablesMessage(
  spec: CompiledSpec,
  missing: readonly SpecVariableState[],
  when: 'start' | 'reload' = 'start',
): string {
  const count = new Set(missing.map((v) => v.name)).size;
  const reads = when === 'start' ? 'the spec reads at start-up' : 'the new spec reads';
  const head =
    count === 1
      ? `1 environment variable ${reads} is not set:`
      : `${count} environment variables ${reads} are not set:`;
  const where = (v: SpecVariableState): string =>
    v.line === undefined ? spec.file : `${spec.file}:${v.line}`;
  const nameWidth = Math.max(...missing.map((v) => v.name.length));
  const whereWidth = Math.max(...missing.map((v) => where(v).length));
  const lines = missing.map(
    (v) => `  ${v.name.padEnd(nameWidth)}  ${where(v).padEnd(whereWidth)}  ${v.reads}`,
  );
  const again = when === 'start' ? 'start again' : 'reload';
  return [
    head,
    ...lines,
    `set ${count === 1 ? 'it' : 'them'} and ${again} (\`mcp-beaver check --env ${spec.file}\` lists every variable a spec reads)`,
  ].join('\n');
}
