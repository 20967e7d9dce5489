/** Importing in-process and checking the draft as `mcp-beaver check` does. */
import { join } from 'node:path';
import { importOpenApi, type ImportOptions } from '../../src/import/openapi/import-openapi.js';
import { compileSpecText } from '../../src/compiler/load-spec.js';
import { formatDiagnostic } from '../../src/compiler/diagnostics.js';
import { schemaProblems } from '../../src/engine/guards/validate.js';

export const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'openapi');
export const EXAMPLES = join(
  import.meta.dirname,
  '..',
  '..',
  'node_modules',
  '@readme',
  'oas-examples',
);
export const GITHUB = join(
  import.meta.dirname,
  '..',
  '..',
  'node_modules',
  '@octokit',
  'openapi',
  'generated',
  'api.github.com.json',
);

export function draft(file: string, options: Partial<ImportOptions> = {}) {
  return importOpenApi(file, { include: [], exclude: [], tags: [], writes: false, ...options });
}

/** What `check` says of a draft: every error it would print, and the tools it would list. */
export function check(text: string): { errors: string[]; names: string[] } {
  const r = compileSpecText(text, 'draft.mcp.kdl');
  const errors = r.diagnostics.filter((d) => d.severity === 'error').map(formatDiagnostic);
  if (!r.compiled) return { errors, names: [] };
  errors.push(...schemaProblems(r.compiled.tools).map((p) => `${p.tool}: ${p.message}`));
  return { errors, names: r.compiled.tools.map((t) => t.name) };
}

export function checkErrors(text: string): string[] {
  return check(text).errors;
}

/** The tool names the draft serves, in order. */
export function toolNames(text: string): string[] {
  const r = compileSpecText(text, 'draft.mcp.kdl');
  return r.compiled ? r.compiled.tools.map((t) => t.name) : [];
}

/** The text of one grant, from its source comment to its closing brace. */
export function grantText(text: string, source: string): string {
  const start = text.indexOf(`// ${source}\n`);
  if (start < 0) throw new Error(`no grant from ${source}`);
  const end = text.indexOf('\n}\n', start);
  return text.slice(start, end + 2);
}
