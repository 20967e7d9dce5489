/**
 * Examples, defaults and extension values are values, not references: an `example` that
 * shows a JSON Schema (`{"$ref": "#/definitions/Pet"}`) or an `x-` extension that quotes
 * one must not send the bundler looking for a file. The importer drafts nothing from such
 * object values (a default or enum value it keeps is a scalar), so a literal subtree that
 * holds a `$ref` is dropped before references are resolved.
 */
import { isObject } from './json.js';

/** Keys whose value is data in any OpenAPI object that has them. */
const LITERAL_KEYS = new Set(['example', 'default', 'const', 'enum']);

/** Drops, in place, every literal subtree that holds a `$ref` key; returns the node. */
export function dropLiteralRefs<T>(node: T): T {
  const stack: unknown[] = [node];
  while (stack.length > 0) {
    const n = stack.pop();
    if (Array.isArray(n)) {
      for (const x of n) if (typeof x === 'object' && x !== null) stack.push(x);
      continue;
    }
    if (!isObject(n)) continue;
    for (const [key, value] of Object.entries(n)) {
      if (typeof value !== 'object' || value === null) continue;
      if ((LITERAL_KEYS.has(key) || key.startsWith('x-')) && holdsRef(value)) {
        Reflect.deleteProperty(n, key);
      } else if (key === 'examples' && Array.isArray(value)) {
        // A schema's `examples` (JSON Schema): a list of values.
        if (holdsRef(value)) Reflect.deleteProperty(n, key);
      } else if (key === 'examples' && isObject(value)) {
        // A media type's or components' `examples`: Example Objects, each a `$ref` of its
        // own (kept: that is a reference) or a `value` (data).
        for (const example of Object.values(value))
          if (isObject(example) && holdsRef(example.value)) delete example.value;
        stack.push(value);
      } else stack.push(value);
    }
  }
  return node;
}

function holdsRef(node: unknown): boolean {
  return someObject(node, (o) => '$ref' in o);
}

/** Whether `test` holds for an object anywhere in the tree (arrays and objects walked). */
export function someObject(node: unknown, test: (o: Record<string, unknown>) => boolean): boolean {
  const stack: unknown[] = [node];
  while (stack.length > 0) {
    const n = stack.pop();
    if (Array.isArray(n)) {
      for (const x of n) if (typeof x === 'object' && x !== null) stack.push(x);
    } else if (isObject(n)) {
      if (test(n)) return true;
      for (const v of Object.values(n)) if (typeof v === 'object' && v !== null) stack.push(v);
    }
  }
  return false;
}
