/**
 * `mcp-beaver check --env`: the environment variables a spec names, what names each and
 * where, and whether it is set here, as start-up would judge them
 * (server/spec-environment.ts). A value is never printed, only whether there is one;
 * a variable start-up reads that is not set is an `ENV_UNSET` error, as serve would stop.
 */
import type { CompiledSpec } from '../compiler/descriptor.js';
import type { CheckErrorCode } from '../compiler/diagnostics.js';
import type { Env } from '../process/env.js';
import { specEnvironment, type SpecVariableState } from '../server/spec-environment.js';

export interface EnvReport {
  /** The table, for stdout. */
  readonly lines: readonly string[];
  /** One `file:line:col: error ENV_UNSET` line per place naming a missing variable. */
  readonly errors: readonly string[];
}

function state(v: SpecVariableState): string {
  const here = v.set ? 'set' : 'not set';
  return v.readAtStart ? here : `${here} (not read: nothing in the spec uses it)`;
}

export function checkEnv(spec: CompiledSpec, env: Env): EnvReport {
  const rows = specEnvironment(spec, env);
  const names = new Set(rows.map((r) => r.name));
  const missing = new Set(rows.filter((r) => r.readAtStart && !r.set).map((r) => r.name));
  const head =
    `${spec.file}: ${names.size} environment variable${names.size === 1 ? '' : 's'}` +
    (missing.size > 0 ? `, ${missing.size} that start-up reads not set` : '');
  const table: Row[] = [['variable', 'line', 'read by', 'here'], ...rows.map(cells)];
  const width = (i: 0 | 1 | 2): number => Math.max(...table.map((row) => row[i].length));
  const [w0, w1, w2] = [width(0), width(1), width(2)];
  const lines = [
    head,
    ...(rows.length === 0
      ? []
      : table.map(
          ([name, line, reads, here]) =>
            `  ${name.padEnd(w0)}  ${line.padStart(w1)}  ${reads.padEnd(w2)}  ${here}`,
        )),
  ];
  const code: CheckErrorCode = 'ENV_UNSET';
  const errors = rows
    .filter((r) => r.readAtStart && !r.set)
    .map(
      (r) =>
        `${spec.file}:${r.line ?? 1}:${r.column ?? 1}: error ${code}: ${r.reads}: ${r.name} is not set, and start-up reads it`,
    );
  return { lines, errors };
}

type Row = readonly [string, string, string, string];

function cells(r: SpecVariableState): Row {
  return [r.name, r.line === undefined ? '' : String(r.line), r.reads, state(r)];
}
