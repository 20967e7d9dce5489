/** What every command prints the same way: failures as one line, usage, spec loading. */
import type { SpecOverrides } from '../compiler/compile-spec.js';
import type { CompiledSpec } from '../compiler/descriptor.js';
import { formatDiagnostic } from '../compiler/diagnostics.js';
import { compileSpecFile } from '../compiler/load-spec.js';
import type { CommandSpec, FlagTable } from './flags.js';
import { renderHelp } from './render-help.js';

/** Turning failures into one readable line for a terminal. */
export function readableError(err: unknown): string {
  if (
    err &&
    typeof err === 'object' &&
    'code' in err &&
    (err as { code: unknown }).code === 'ENOENT'
  ) {
    return 'no such file';
  }
  if (err && typeof err === 'object' && 'code' in err && err.code === 'EISDIR') {
    return 'is a folder, not a spec file';
  }
  return err instanceof Error ? err.message : String(err);
}

export interface CommandMessages {
  /** A missing or wrong argument: the message, then the help, exit 2. */
  usage(message: string): number;
  /** A wrong option value: one line, no help text to scroll past, exit 2. */
  badValue(message: string): number;
}

export function commandMessages<F extends FlagTable>(command: CommandSpec<F>): CommandMessages {
  return {
    usage(message) {
      process.stderr.write(`mcp-beaver ${command.name}: ${message}\n\n${renderHelp(command)}`);
      return 2;
    },
    badValue(message) {
      process.stderr.write(`mcp-beaver ${command.name}: ${message}\n`);
      return 2;
    },
  };
}

/**
 * Compiles a spec for a command that needs it whole: the spec, or the exit code after
 * printing why not (every diagnostic with file:line:col; warnings too, on stderr).
 */
export async function loadSpecOrReport(
  file: string,
  overrides: SpecOverrides = {},
): Promise<CompiledSpec | number> {
  let result;
  try {
    result = await compileSpecFile(file, overrides);
  } catch (err) {
    process.stderr.write(`${file}: ${readableError(err)}\n`);
    return 1;
  }
  for (const d of result.diagnostics) process.stderr.write(`${formatDiagnostic(d)}\n`);
  return result.compiled ?? 1;
}
