/**
 * The metachar gate (security.md, "Path parameters"): a path value fills exactly one
 * segment, so anything that could end, climb out of or re-interpret a segment is
 * refused before validation, whatever the field's own pattern says.
 */
import { engineError, type EngineError } from '../error-catalogue.js';

// Separators and URL syntax, escapes, controls (C0, DEL, C1), bidi and zero-width marks,
// and lone surrogates (encodeURIComponent throws on them: the call would end as INTERNAL).
const INVISIBLE =
  '\\u0000-\\u001f\\u007f-\\u009f\\u061c\\u200b-\\u200f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ufeff\\ud800-\\udfff';
const FORBIDDEN = new RegExp(`[/\\\\?#%${INVISIBLE}]`, 'u');
/** Characters shown by code point in messages: they would not print. */
const UNPRINTABLE = new RegExp(`[${INVISIBLE}]`, 'u');

export function pathValueProblem(value: string): string | undefined {
  if (value === '') return 'is empty';
  if (value === '.' || value === '..')
    return `is ${JSON.stringify(value)}, a relative path segment`;
  const m = FORBIDDEN.exec(value);
  if (m) {
    const ch = m[0];
    const shown = UNPRINTABLE.test(ch)
      ? `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`
      : JSON.stringify(ch);
    return `contains ${shown}, which cannot appear in a path segment`;
  }
  return undefined;
}

/** Checks every string path argument present in the input. */
export function gatePathValues(
  pathArgs: readonly string[],
  input: Record<string, unknown>,
): EngineError | undefined {
  const details: { field: string; message: string }[] = [];
  for (const name of pathArgs) {
    const v = Object.hasOwn(input, name) ? input[name] : undefined;
    if (typeof v !== 'string') continue; // the schema check reports non-strings
    const problem = pathValueProblem(v);
    if (problem) details.push({ field: `/${name}`, message: `path argument ${name} ${problem}` });
  }
  if (details.length === 0) return undefined;
  return engineError('PATH_VALUE_REJECTED', details.map((d) => d.message).join('; '), { details });
}
