/** The spec compiler's front door: file or text in, CompiledSpec and diagnostics out. */
import { readFile } from 'node:fs/promises';
import { compileSpec, type SpecOverrides } from './compile-spec.js';
import type { Diagnostic } from './diagnostics.js';
import type { CompiledSpec } from './descriptor.js';
import { parseSpec } from './parse-spec.js';

export interface CompileResult {
  /** Present only when there is no error (warnings allowed). */
  readonly compiled?: CompiledSpec;
  readonly diagnostics: readonly Diagnostic[];
}

export function compileSpecText(
  text: string,
  file: string,
  overrides: SpecOverrides = {},
): CompileResult {
  // First without the parser's locations (most of a large spec's parse, issue 40): a
  // clean spec needs only its top-level nodes' and variables' positions, which that
  // parse has. A spec with anything to say (an error, a warning) is compiled again with
  // locations, so that each message points at its token.
  const fast = parseSpec(text, file, { locations: false });
  if (fast?.spec) {
    const compiled = compileSpec(fast.spec, fast.diagnostics, overrides);
    if (fast.diagnostics.list.length === 0) return { compiled, diagnostics: [] };
  }
  const { spec, diagnostics } = parseSpec(text, file)!;
  if (!spec) return { diagnostics: diagnostics.list };
  const compiled = compileSpec(spec, diagnostics, overrides);
  const sorted = [...diagnostics.list].sort((a, b) => a.line - b.line || a.column - b.column);
  return diagnostics.errors.length > 0
    ? { diagnostics: sorted }
    : { compiled, diagnostics: sorted };
}

export async function compileSpecFile(
  path: string,
  overrides: SpecOverrides = {},
): Promise<CompileResult> {
  const text = await readFile(path, 'utf8');
  return compileSpecText(text, path, overrides);
}
