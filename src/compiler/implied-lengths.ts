/**
 * Length bounds that say nothing a schema does not already say, left out of the schema a
 * model reads: a path param's default 1..1024 beside an enum whose every value fits it
 * (`restrict owner "acme"`), or beside an anchored pattern that cannot match a shorter or
 * longer text (`^[a-z][a-z0-9-]{0,99}$`). Validation is unchanged: a value the bound would
 * refuse is refused by the enum or the pattern anyway.
 */
import type { JsonSchema } from './descriptor.js';

export function withoutImpliedLengths(schema: JsonSchema): JsonSchema {
  if (schema.type === 'array' && schema.items) {
    const items = withoutImpliedLengths(schema.items as JsonSchema);
    return items === schema.items ? schema : { ...schema, items };
  }
  if (schema.minLength === undefined && schema.maxLength === undefined) return schema;
  const bounds = impliedBounds(schema);
  if (!bounds) return schema;
  const out: Record<string, unknown> = { ...schema };
  if (typeof out.minLength === 'number' && bounds.min >= out.minLength) delete out.minLength;
  if (typeof out.maxLength === 'number' && bounds.max <= out.maxLength) delete out.maxLength;
  return out;
}

interface Bounds {
  readonly min: number;
  readonly max: number;
}

/** The tightest length bounds the enum or some pattern imposes, in code points. */
function impliedBounds(schema: JsonSchema): Bounds | undefined {
  const found: Bounds[] = [];
  const values = schema.enum as readonly unknown[] | undefined;
  if (values && values.every((v) => typeof v === 'string')) {
    const lengths = values.map((v) => [...(v as string)].length);
    found.push({ min: Math.min(...lengths), max: Math.max(...lengths) });
  }
  const patterns = [
    schema.pattern,
    ...((schema.allOf as JsonSchema[] | undefined) ?? []).map((s) => s.pattern),
  ];
  for (const p of patterns) {
    const b = typeof p === 'string' ? patternBounds(p) : undefined;
    if (b) found.push(b);
  }
  if (found.length === 0) return undefined;
  return {
    min: Math.max(...found.map((b) => b.min)),
    max: Math.min(...found.map((b) => b.max)),
  };
}

/**
 * Bounds of the texts an anchored pattern `^…$` of single-character atoms (literals,
 * escapes, classes, `.`) with quantifiers can match; undefined for anything else
 * (groups, alternation, zero-width escapes, an unbounded repeat), which keeps the bound.
 */
export function patternBounds(source: string): Bounds | undefined {
  // Read once per text: a spec repeats its patterns (a restrict rule's in every grant).
  if (boundsOf.has(source)) return boundsOf.get(source);
  if (boundsOf.size >= MAX_BOUNDS) boundsOf.clear();
  const bounds = readBounds(source);
  boundsOf.set(source, bounds);
  return bounds;
}

/** Bounds by pattern text; cleared when full, so reloads of changing specs stay bounded. */
const boundsOf = new Map<string, Bounds | undefined>();
const MAX_BOUNDS = 10_000;

function readBounds(source: string): Bounds | undefined {
  if (!source.startsWith('^') || !source.endsWith('$') || source.endsWith('\\$')) return undefined;
  const body = source.slice(1, -1);
  let min = 0;
  let max = 0;
  let i = 0;
  while (i < body.length) {
    const ch = body[i]!;
    if ('()|^$'.includes(ch)) return undefined;
    // One atom: one code point of the text.
    if (ch === '[') {
      const end = classEnd(body, i);
      if (end < 0) return undefined;
      i = end + 1;
    } else if (ch === '\\') {
      const next = body[i + 1];
      if (next === undefined || /[bBkpPux0-9c]/.test(next)) return undefined;
      i += 2;
    } else {
      i += body.codePointAt(i)! > 0xffff ? 2 : 1;
    }
    const q = quantifier(body, i);
    if (!q) return undefined;
    min += q.min;
    max += q.max;
    i = q.end;
  }
  return Number.isFinite(max) ? { min, max } : undefined;
}

function classEnd(body: string, start: number): number {
  for (let i = start + 1; i < body.length; i++) {
    if (body[i] === '\\') i++;
    else if (body[i] === '[')
      return -1; // nested classes (v flag) are not read here
    else if (body[i] === ']' && i > start + 1) return i;
  }
  return -1;
}

function quantifier(
  body: string,
  i: number,
): { min: number; max: number; end: number } | undefined {
  const ch = body[i];
  if (ch === '?') return lazy(body, i + 1, 0, 1);
  if (ch === '*' || ch === '+') return undefined;
  if (ch === '{') {
    const m = /^\{(\d+)(,(\d*))?\}/.exec(body.slice(i));
    if (!m) return undefined;
    const lo = Number(m[1]);
    const hi = m[2] === undefined ? lo : m[3] === '' ? Infinity : Number(m[3]);
    if (!Number.isFinite(hi)) return undefined;
    return lazy(body, i + m[0].length, lo, hi);
  }
  return { min: 1, max: 1, end: i };
}

function lazy(body: string, end: number, min: number, max: number) {
  return { min, max, end: body[end] === '?' ? end + 1 : end };
}
