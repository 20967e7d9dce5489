/**
 * Cuts a JSON value to fit a byte budget while keeping it valid JSON
 * (spec-language.md, "The result envelope"): arrays lose elements from the end,
 * long strings are shortened with a marker, object members after the cut are dropped.
 * Counts, by coverage path, the array elements it keeps. One pass, and bounded by what
 * is kept: a part is serialized only up to the bytes left for it (jsonWithin), so the
 * part the cut falls in is not written whole to learn it does not fit, and the JSON of
 * what is kept is assembled from those serializations, never written again.
 */
import { byteLength } from './array-census.js';
import type { PathNode } from './json-path.js';
import { jsonWithin } from './json-within.js';

export { byteLength };

/** Below this many bytes left, a member is dropped rather than squeezed. */
const MIN_USEFUL = 16;

/** A part that fits: the value kept and its JSON, written as the cut went. */
export interface Fitted {
  readonly value: unknown;
  readonly json: string;
}

export class Truncator {
  /**
   * Elements kept, by coverage path (`$[*].tags`): the summed lengths of the arrays at
   * that path in what `fit` returns. Only the kept part is walked, so this costs at
   * most max-bytes of work.
   */
  readonly kept = new Map<string, number>();

  /**
   * A version of `value` whose JSON is at most `budget` bytes, with that JSON, or
   * undefined when nothing useful fits. `json` is the value's own serialization when
   * known. The JSON is assembled from the serializations each level already made to
   * measure its parts, so what is kept is never serialized again.
   */
  fit(value: unknown, budget: number, path: PathNode, json?: string): Fitted | undefined {
    const whole = json === undefined ? jsonWithin(value, budget) : json;
    if (whole !== undefined && byteLength(whole) <= budget) {
      this.keep(value, path);
      return { value, json: whole };
    }
    return this.cut(value, budget, path);
  }

  /**
   * `fit` of a value taken to be longer than `budget`, whose JSON is not measured whole
   * first (an envelope's result, known to be over by its size). An array or object
   * that fits after all is kept whole element by element; a scalar is checked.
   */
  cut(value: unknown, budget: number, path: PathNode): Fitted | undefined {
    if (Array.isArray(value)) return this.fitArray(value, budget, path);
    if (value !== null && typeof value === 'object')
      return this.fitObject(value as Record<string, unknown>, budget, path);
    const json = jsonWithin(value, budget); // a long string is refused by its length alone
    if (json !== undefined) return { value, json };
    if (typeof value === 'string') return shortenString(value, budget);
    return undefined; // a number or literal that does not fit at all
  }

  /** Counts the arrays of a part that is kept whole. */
  private keep(value: unknown, path: PathNode): void {
    if (Array.isArray(value)) {
      this.count(path, value.length);
      const each = path.each();
      for (const el of value) if (el !== null && typeof el === 'object') this.keep(el, each);
    } else if (value !== null && typeof value === 'object') {
      for (const [k, v] of Object.entries(value))
        if (v !== null && typeof v === 'object') this.keep(v, path.child(k));
    }
  }

  private count(path: PathNode, kept: number): void {
    this.kept.set(path.path, (this.kept.get(path.path) ?? 0) + kept);
  }

  private fitArray(arr: unknown[], budget: number, path: PathNode): Fitted | undefined {
    if (budget < 2) return undefined;
    const out: unknown[] = [];
    const parts: string[] = [];
    const each = path.each();
    let used = 2; // []
    for (let i = 0; i < arr.length; i++) {
      const sep = out.length > 0 ? 1 : 0;
      const left = budget - used - sep;
      const json = jsonWithin(arr[i], left);
      if (json !== undefined) {
        out.push(arr[i]);
        parts.push(json);
        this.keep(arr[i], each);
        used += sep + byteLength(json);
        continue;
      }
      if (left >= MIN_USEFUL) {
        const part = this.cut(arr[i], left, each);
        if (part !== undefined) {
          out.push(part.value);
          parts.push(part.json);
        }
      }
      break;
    }
    this.count(path, out.length);
    return { value: out, json: `[${parts.join(',')}]` };
  }

  private fitObject(
    obj: Record<string, unknown>,
    budget: number,
    path: PathNode,
  ): Fitted | undefined {
    if (budget < 2) return undefined;
    const out: Record<string, unknown> = {};
    const parts: string[] = [];
    let used = 2; // {}
    let first = true;
    for (const [k, v] of Object.entries(obj)) {
      if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
      const keyJson = JSON.stringify(k);
      const overhead = byteLength(keyJson) + 1 + (first ? 0 : 1); // "k": and a comma
      const left = budget - used - overhead;
      const json = jsonWithin(v, left);
      if (json !== undefined) {
        put(out, k, v);
        parts.push(`${keyJson}:${json}`);
        this.keep(v, path.child(k));
        used += overhead + byteLength(json);
        first = false;
        continue;
      }
      if (left >= MIN_USEFUL) {
        const part = this.cut(v, left, path.child(k));
        if (part !== undefined) {
          put(out, k, part.value);
          parts.push(`${keyJson}:${part.json}`);
        }
      }
      break;
    }
    return { value: out, json: `{${parts.join(',')}}` };
  }
}

/** An own member even for a key such as `__proto__`, which plain assignment would not create. */
function put(obj: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * The longest prefix of `s` (whole code points) plus a marker whose JSON fits `budget`,
 * with that JSON. The marker says how much was cut so a reader never mistakes the cut
 * for the value. Searched in code units (a slice, not an array of characters): only the
 * first `budget` units can be kept, each being at least a byte, and the code points are
 * counted, not copied.
 *
 * The marker's `…` is written as `\u2026` in the JSON (the value holds the character
 * itself): one character past U+00FF makes V8 hold a string, and every string it is
 * concatenated into, as two bytes a character. A cut of one-byte text then stays one
 * JSON string of one byte a character, which the MCP text block quotes and sends as it
 * is (projection/mcp/tool-result-text.ts). Three bytes more than the raw character,
 * counted like the rest.
 */
export function shortenString(s: string, budget: number): Fitted | undefined {
  // Without a high surrogate, code points are code units (one native scan to know).
  const count = /[\uD800-\uDBFF]/.test(s)
    ? (to: number): number => codePoints(s, 0, to)
    : (to: number): number => to;
  const total = count(s.length);
  const markerJson = (n: number): string => `\\u2026[${n} more characters]`;
  /** The prefix of `mid` units (one fewer at a surrogate pair) and its marker, if it fits. */
  const probe = (mid: number): Fitted | undefined => {
    const end = mid > 0 && mid < s.length && isHighSurrogate(s.charCodeAt(mid - 1)) ? mid - 1 : mid;
    const prefix = s.slice(0, end);
    const more = total - count(end);
    // Text with nothing JSON escapes is its own JSON between quotes; one scan for that
    // costs a third of what JSON.stringify does over the same text (bench/RESULTS.md,
    // "A large result's answer").
    const json = NOTHING_TO_ESCAPE.test(prefix)
      ? `"${prefix}${markerJson(more)}"`
      : `${JSON.stringify(prefix).slice(0, -1)}${markerJson(more)}"`;
    if (byteLength(json) > budget) return undefined;
    return { value: `${prefix}…[${more} more characters]`, json };
  };
  // Each unit is at least a byte and the marker at least its shortest (the one a longer
  // prefix would have): no longer prefix fits. Plain text (no escapes, one byte a unit)
  // fits at that bound, found in one probe.
  const room = (n: number): number => Math.min(s.length, budget - 2 - markerJson(n).length);
  let hi = room(0);
  if (hi >= 0) hi = room(total - count(hi));
  let best = hi >= 0 ? probe(hi) : undefined;
  if (best !== undefined) return best;
  let lo = 0;
  hi -= 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const candidate = probe(mid);
    if (candidate !== undefined) {
      best = candidate;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return best;
}

/**
 * Text JSON.stringify writes as it is: no quote, backslash or control character (which
 * it escapes), and no surrogate (it escapes a lone one; a pair takes the longer way).
 */
// eslint-disable-next-line no-control-regex -- the control characters are what JSON escapes
const NOTHING_TO_ESCAPE = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

/** Code points of `s` between code units `from` and `to`, as `[...s]` counts them. */
function codePoints(s: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    n += 1;
    const next = s.charCodeAt(i + 1);
    if (isHighSurrogate(s.charCodeAt(i)) && next >= 0xdc00 && next <= 0xdfff && i + 1 < to) i += 1;
  }
  return n;
}
