/** Argument names from upstream names: `created[gte]` → `created_gte` (sent with `as=`). */
import { FIELD_NAME } from '../../spec/parse-field.js';

/** Node names a block reads as something else: `exclusive` groups, `enum` values. */
const KEYWORDS = new Set(['exclusive', 'enum']);

export function fieldName(upstream: string): string {
  if (KEYWORDS.has(upstream)) return `${upstream}_`;
  if (FIELD_NAME.test(upstream) && upstream !== '__proto__') return upstream;
  let name = upstream
    .replace(/[^A-Za-z0-9_]+/g, '_')
    .replace(/_+/g, '_')
    .replace(/^_+|_+$/g, '');
  if (name === '' || name === 'proto') name = 'field';
  if (/^[0-9]/.test(name)) name = `_${name}`;
  return name.slice(0, 64);
}

/** `name`, or `name_2`, `name_3`... whichever is not taken yet (the caller records it). */
export function uniqueName(name: string, taken: ReadonlySet<string>): string {
  if (!taken.has(name)) return name;
  for (let i = 2; ; i++) {
    const suffix = `_${i}`;
    const candidate = `${name.slice(0, 64 - suffix.length)}${suffix}`;
    if (!taken.has(candidate)) return candidate;
  }
}
