/** Descriptors are plain data frozen all the way down: no stage can change what was compiled. */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/**
 * Freezes like `deepFreeze`, and makes equal plain-data subtrees one object: the input
 * schema of two grants with the same arguments, the `restrict` entries every grant of a
 * spec carries, a field `{"type": "string"}` written a thousand times. A 5,000-grant
 * spec's descriptors were 15 MB of such repeats (issue 40), and the engine's caches
 * keyed by identity (prepare-operation.ts) prepare a shared part once.
 *
 * Equal means the same own keys in the same order, the same prototype (Object's or
 * none) and equal values, a number by `Object.is` (so -0 and NaN keep to themselves).
 * An object or array frozen already, or not plain data, is kept as it is and shared only
 * by identity. One interner serves one compile: it holds what it has seen.
 */
export class Interner {
  /** Each shared subtree by its key: its values' and keys' numbers, not their text. */
  readonly #byKey = new Map<string, object>();
  /** The number of each object kept (shared or kept by identity). */
  readonly #ids = new WeakMap<object, number>();
  /** The number of each string seen, as a value or a key. */
  readonly #strings = new Map<string, number>();
  #next = 0;

  /** `value` frozen, or the equal subtree seen first in its place. */
  intern<T>(value: T): T {
    return value !== null && typeof value === 'object' ? (this.#object(value)[0] as T) : value;
  }

  /** [the object to keep, its number]. */
  #object(value: object): [object, number] {
    const proto = Object.getPrototypeOf(value) as unknown;
    const array = Array.isArray(value);
    const plain = array ? proto === Array.prototype : proto === Object.prototype || proto === null;
    if (!plain || Object.isFrozen(value)) return [deepFreeze(value), this.#idOf(value)];
    const record = value as Record<string, unknown>;
    // An array's length is in its key: [1, , 2] is not [1, 2].
    let key = array ? `[${(value as unknown[]).length}` : proto === null ? '{0' : '{';
    for (const k of Object.keys(record)) {
      const v = record[k];
      let inner: string;
      if (v !== null && typeof v === 'object') {
        const [kept, id] = this.#object(v);
        if (kept !== v) record[k] = kept;
        inner = `o${id}`;
      } else inner = this.#scalar(v);
      key += array ? `,${inner}` : `,${this.#stringId(k)}=${inner}`;
    }
    const seen = this.#byKey.get(key);
    if (seen) return [seen, this.#idOf(seen)];
    Object.freeze(value);
    this.#byKey.set(key, value);
    return [value, this.#idOf(value)];
  }

  #scalar(v: unknown): string {
    switch (typeof v) {
      case 'string':
        return `s${this.#stringId(v)}`;
      case 'number':
        return Object.is(v, -0) ? 'n-0' : `n${v}`;
      case 'boolean':
        return v ? 't' : 'f';
      case 'undefined':
        return 'u';
      case 'function':
        return `o${this.#idOf(v)}`;
      default:
        // null; a bigint or a symbol is no descriptor's, and equal to nothing else.
        return v === null ? 'z' : `x${this.#next++}`;
    }
  }

  #stringId(s: string): number {
    let id = this.#strings.get(s);
    if (id === undefined) this.#strings.set(s, (id = this.#strings.size));
    return id;
  }

  #idOf(value: object): number {
    let id = this.#ids.get(value);
    if (id === undefined) this.#ids.set(value, (id = this.#next++));
    return id;
  }
}
