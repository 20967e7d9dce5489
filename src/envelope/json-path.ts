/**
 * JSONPath names for places in a result: `$`, `$.items`, `$.items[3].labels`, `$['a b']`.
 * Bracketed names are JSON-escaped with `'` escaped as `\'`, so a key holding `']['` cannot
 * read as two steps.
 */
const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

export function childPath(parent: string, key: string): string {
  return IDENT.test(key)
    ? `${parent}.${key}`
    : `${parent}['${JSON.stringify(key).slice(1, -1).replace(/'/g, "\\'")}']`;
}

export function indexPath(parent: string, index: number): string {
  return `${parent}[${index}]`;
}

/**
 * Every element of an array at `parent`: coverage names arrays whose paths differ only
 * in indexes by one path (`$[*].tags`). A key spelled `[*]` is bracketed by childPath
 * (`$['[*]']`), so the two never meet.
 */
export function eachPath(parent: string): string {
  return `${parent}[*]`;
}
