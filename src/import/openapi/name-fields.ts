/** Argument names from upstream names: `created[gte]` → `created_gte` (sent with `as=`). */
import { FIELD_NAME } from '../../compiler/naming.js';

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

/**
 * Why a parameter or field named `__proto__` is left out: the upstream name would be
 * its `as=`, which check refuses (the argument could be renamed, the upstream name not).
 */
export function reservedNote(name: string): string {
  return `its name ${name} is reserved (check refuses it: JSON readers treat it as the object's prototype)`;
}

export const REFUSED_SEGMENTS = 'an encoded dot segment, "..;" or an encoded slash';

/**
 * The first literal segment of a path template that the gateway refuses to send, or
 * undefined: `%2e%2e` and `.%2E` (dot segments once a server decodes them), `..;` (read
 * as `..` by servers that strip `;` parameters), and `%2f` or `%5c` (a slash or
 * backslash inside what should be one segment), in any case.
 */
export function refusedSegment(path: string): string | undefined {
  for (const segment of path.split('/')) {
    if (/^\{[^{}]*\}$/.test(segment)) continue;
    const decoded = segment.replace(/%2e/gi, '.');
    if (/^\.{1,2}(;.*)?$/.test(decoded) || /%2f|%5c/i.test(segment)) return segment;
  }
  return undefined;
}
