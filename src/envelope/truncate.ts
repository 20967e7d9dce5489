/**
 * Cuts a JSON value to fit a byte budget while keeping it valid JSON
 * (spec-language.md, "The result envelope"): arrays lose elements from the end,
 * long strings are shortened with a marker, object members after the cut are dropped.
 * Counts, by coverage path, the array elements it keeps. One pass: each element is
 * serialized at most once per level it is cut at, and the JSON of what is kept is
 * assembled from those serializations, never written again.
 */
import { byteLength } from './array-census.js';
import type { PathNode } from './json-path.js';

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
  fit(
    value: unknown,
    budget: number,
    path: PathNode,
    json = JSON.stringify(value),
  ): Fitted | undefined {
    const size = byteLength(json);
    if (size <= budget) {
      this.keep(value, path);
      return { value, json };
    }
    if (typeof value === 'string') {
      const s = shortenString(value, budget);
      return s === undefined ? undefined : { value: s, json: JSON.stringify(s) };
    }
    if (Array.isArray(value)) return this.fitArray(value, budget, path);
    if (value !== null && typeof value === 'object')
      return this.fitObject(value as Record<string, unknown>, budget, path);
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
      const json = JSON.stringify(arr[i]) ?? 'null';
      const size = byteLength(json);
      if (size <= left) {
        out.push(arr[i]);
        parts.push(json);
        this.keep(arr[i], each);
        used += sep + size;
        continue;
      }
      if (left >= MIN_USEFUL) {
        const part = this.fit(arr[i], left, each, json);
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
      if (v === undefined) continue;
      const keyJson = JSON.stringify(k);
      const overhead = byteLength(keyJson) + 1 + (first ? 0 : 1); // "k": and a comma
      const left = budget - used - overhead;
      const json = JSON.stringify(v);
      const size = byteLength(json);
      if (size <= left) {
        put(out, k, v);
        parts.push(`${keyJson}:${json}`);
        this.keep(v, path.child(k));
        used += overhead + size;
        first = false;
        continue;
      }
      if (left >= MIN_USEFUL) {
        const part = this.fit(v, left, path.child(k), json);
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
 * The longest prefix of `s` (whole code points) plus a marker whose JSON fits `budget`.
 * The marker says how much was cut so a reader never mistakes the cut for the value.
 */
export function shortenString(s: string, budget: number): string | undefined {
  const chars = [...s];
  const marker = (n: number): string => `…[${n} more characters]`;
  let lo = 0;
  let hi = chars.length;
  let best: string | undefined;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const candidate = chars.slice(0, mid).join('') + marker(chars.length - mid);
    if (byteLength(JSON.stringify(candidate)) <= budget) {
      best = candidate;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return best;
}
