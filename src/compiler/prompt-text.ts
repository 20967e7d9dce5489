/**
 * Prompt message text: `{name}` placeholders split out once at load, so a get only
 * joins pieces. Braces around anything that is not a name stay literal text.
 */
import type { PromptTextPart } from './descriptor.js';

export const PROMPT_NAME = /^[A-Za-z0-9_.-]{1,64}$/;
const PLACEHOLDER = /\{([A-Za-z0-9_.-]{1,64})\}/g;

export function splitPlaceholders(text: string): PromptTextPart[] {
  const parts: PromptTextPart[] = [];
  let last = 0;
  for (const m of text.matchAll(PLACEHOLDER)) {
    if (m.index > last) parts.push({ literal: text.slice(last, m.index) });
    parts.push({ argument: m[1]! });
    last = m.index + m[0].length;
  }
  if (last < text.length) parts.push({ literal: text.slice(last) });
  return parts;
}

/** The argument names a text's placeholders use, in order of appearance. */
export function placeholdersOf(text: string): string[] {
  return splitPlaceholders(text).flatMap((p) => ('argument' in p ? [p.argument] : []));
}

/** Joins the pieces with each argument's value, encoded by `encode` (URIs percent-encode). */
export function fillPlaceholders(
  parts: readonly PromptTextPart[],
  values: Readonly<Record<string, string>>,
  encode: (v: string) => string = (v) => v,
): string {
  let out = '';
  for (const p of parts) out += 'literal' in p ? p.literal : encode(values[p.argument] ?? '');
  return out;
}
