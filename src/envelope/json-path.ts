/**
 * JSONPath names for places in a result: `$`, `$.items`, `$.items[*].labels`, `$['a b']`.
 * Bracketed names are JSON-escaped with `'` escaped as `\'`, so a key holding `']['` cannot
 * read as two steps.
 */
const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

export function childPath(parent: string, key: string): string {
  return IDENT.test(key)
    ? `${parent}.${key}`
    : `${parent}['${JSON.stringify(key).slice(1, -1).replace(/'/g, "\\'")}']`;
}

/**
 * Every element of an array at `parent`: coverage names arrays whose paths differ only
 * in indexes by one path (`$[*].tags`). A key spelled `[*]` is bracketed by childPath
 * (`$['[*]']`), so the two never meet.
 */
export function eachPath(parent: string): string {
  return `${parent}[*]`;
}

/**
 * A coverage path and the paths below it, each made once per result: the walks over a
 * result step through these rather than spell the same `$[*].tags` for every row.
 */
export class PathNode {
  private kids: Map<string, PathNode> | undefined;
  private every: PathNode | undefined;

  constructor(readonly path: string) {}

  child(key: string): PathNode {
    this.kids ??= new Map();
    let node = this.kids.get(key);
    if (!node) {
      node = new PathNode(childPath(this.path, key));
      this.kids.set(key, node);
    }
    return node;
  }

  each(): PathNode {
    return (this.every ??= new PathNode(eachPath(this.path)));
  }
}
