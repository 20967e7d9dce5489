/**
 * JSON.stringify with a byte limit: the JSON of a value when it is at most `limit`
 * bytes, undefined as soon as it is known to be longer. The envelope cut asks "does
 * this part fit in what is left?" of parts that can be the whole result (the `data`
 * array of `{"data":[…]}`); a plain JSON.stringify would write all of it to learn that
 * it does not, so cutting a 1 MB result to 40 KB would serialize the 1 MB again. Here
 * the work stops at the limit, so a cut costs about what it keeps.
 *
 * Same text as JSON.stringify for what a result holds (parsed JSON, driver rows):
 * members that are undefined, functions or symbols are left out of objects and are
 * `null` in arrays; a value with `toJSON` (a Date, a Buffer) is written natively.
 */
import { byteLength } from './array-census.js';

export function jsonWithin(value: unknown, limit: number): string | undefined {
  const w = new BoundedWriter(limit);
  if (!w.value(value)) return undefined;
  const json = w.out.join('');
  return byteLength(json) <= limit ? json : undefined;
}

/**
 * Writes pieces while the limit is not passed; every method answers "still within it".
 * Counted in UTF-16 units, a lower bound of the UTF-8 bytes (measuring each small piece
 * exactly would cost more than writing it): the walk stops once the units alone are
 * over, and jsonWithin measures the bytes of the text once at the end.
 */
class BoundedWriter {
  readonly out: string[] = [];

  constructor(private left: number) {}

  value(v: unknown): boolean {
    if (v === null || typeof v !== 'object') {
      // A string's JSON is at least its UTF-16 length plus the quotes: a long one is
      // refused without writing it.
      if (typeof v === 'string' && v.length + 2 > this.left) return false;
      return this.put(JSON.stringify(v) ?? 'null');
    }
    if (typeof (v as { toJSON?: unknown }).toJSON === 'function')
      return this.put(JSON.stringify(v) ?? 'null');
    return Array.isArray(v) ? this.array(v) : this.object(v as Record<string, unknown>);
  }

  private array(arr: readonly unknown[]): boolean {
    if (!this.put('[')) return false;
    for (let i = 0; i < arr.length; i++) {
      if (i > 0 && !this.put(',')) return false;
      const el = arr[i];
      if (!(absent(el) ? this.put('null') : this.value(el))) return false;
    }
    return this.put(']');
  }

  private object(obj: Record<string, unknown>): boolean {
    if (!this.put('{')) return false;
    let first = true;
    for (const [k, v] of Object.entries(obj)) {
      if (absent(v)) continue;
      if (!this.put(first ? `${JSON.stringify(k)}:` : `,${JSON.stringify(k)}:`)) return false;
      if (!this.value(v)) return false;
      first = false;
    }
    return this.put('}');
  }

  private put(s: string): boolean {
    this.left -= s.length;
    this.out.push(s);
    return this.left >= 0;
  }
}

/** What JSON.stringify leaves out of an object and writes as null in an array. */
function absent(v: unknown): boolean {
  return v === undefined || typeof v === 'function' || typeof v === 'symbol';
}
