/**
 * The metachar gate (security.md, "Path values"): a path value fills exactly one
 * segment, so anything that could end, climb out of or re-interpret a segment is
 * refused before validation, whatever the field's own pattern says.
 */
import type { PathPart } from '../../compiler/descriptor.js';
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

/** A segment of a template with a parameter and literal text (`{id}.json`): its pieces. */
export type MixedSegment = readonly ({ readonly literal: string } | { readonly param: string })[];

/**
 * The segments of a template that mix literal text and parameters, compiled once at load:
 * `/items/{id}.json` has one, `[{param:'id'},{literal:'.json'}]`; a whole-segment
 * parameter is not one (its value alone is checked).
 */
export function mixedSegments(path: readonly PathPart[]): readonly MixedSegment[] {
  const segments: PathPart[][] = [[]];
  for (const part of path) {
    if ('param' in part) {
      segments.at(-1)!.push(part);
      continue;
    }
    const [first, ...rest] = part.literal.split('/');
    if (first) segments.at(-1)!.push({ literal: first });
    for (const text of rest) segments.push(text ? [{ literal: text }] : []);
  }
  return Object.freeze(
    segments
      .filter((s) => s.length > 1 && s.some((p) => 'param' in p))
      .map((s) => Object.freeze(s.map((p) => Object.freeze(p)))),
  );
}

/**
 * Checks every string path argument present in the input (and each string item of an
 * array one), then each mixed segment whose values are all present: whatever its values,
 * a built segment is never `.` or `..`.
 */
export function gatePathValues(
  pathArgs: readonly string[],
  input: Record<string, unknown>,
  segments: readonly MixedSegment[] = [],
): EngineError | undefined {
  const details: { field: string; message: string }[] = [];
  const check = (v: unknown, field: string, shown: string): void => {
    if (typeof v !== 'string') return; // the schema check reports non-strings
    const problem = pathValueProblem(v);
    if (problem) details.push({ field, message: `path argument ${shown} ${problem}` });
  };
  for (const name of pathArgs) {
    const v = Object.hasOwn(input, name) ? input[name] : undefined;
    if (Array.isArray(v)) v.forEach((item, i) => check(item, `/${name}/${i}`, `${name}[${i}]`));
    else check(v, `/${name}`, name);
  }
  if (details.length === 0)
    for (const segment of segments) {
      const problem = builtSegmentProblem(segment, input);
      if (problem) details.push(problem);
    }
  if (details.length === 0) return undefined;
  return engineError('PATH_VALUE_REJECTED', details.map((d) => d.message).join('; '), { details });
}

/** The segment as sent, when it would be a relative path segment; absent values skip it. */
export function builtSegmentProblem(
  segment: MixedSegment,
  input: Record<string, unknown>,
): { field: string; message: string } | undefined {
  let built = '';
  for (const piece of segment) {
    if ('literal' in piece) {
      built += piece.literal;
      continue;
    }
    const v = Object.hasOwn(input, piece.param) ? input[piece.param] : undefined;
    if (v === undefined) return undefined;
    built += Array.isArray(v) ? v.map(String).join(',') : String(v);
  }
  if (built !== '.' && built !== '..') return undefined;
  const names = segment.flatMap((p) => ('param' in p ? [p.param] : []));
  const template = segment.map((p) => ('param' in p ? `{${p.param}}` : p.literal)).join('');
  return {
    field: `/${names[0]}`,
    message: `path argument${names.length > 1 ? 's' : ''} ${names.join(', ')} make${names.length > 1 ? '' : 's'} the segment ${template} ${JSON.stringify(built)}, a relative path segment`,
  };
}
