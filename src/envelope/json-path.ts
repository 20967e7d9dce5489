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
 * result step through these rather than spell the same `$[*].tags` for every row. A
 * node's text is spelled when first read: the census steps into every nested object of
 * a result, and most hold no array, so most paths are never read.
 */
export class PathNode {
  private kids: Map<string, PathNode> | undefined;
  private every: PathNode | undefined;

  /** `$`, the root of a result's paths. */
  static root(): PathNode {
    return new PathNode(undefined, undefined, '$');
  }

  /** A step below `parent`: a key, or every element of an array when `key` is undefined. */
  private constructor(
    private readonly parent: PathNode | undefined,
    private readonly key: string | undefined,
    private text: string | undefined,
  ) {}

  get path(): string {
    if (this.text !== undefined) return this.text;
    const above = this.parent!.path;
    return (this.text = this.key === undefined ? eachPath(above) : childPath(above, this.key));
  }

  child(key: string): PathNode {
    this.kids ??= new Map();
    let node = this.kids.get(key);
    if (!node) {
      node = new PathNode(this, key, undefined);
      this.kids.set(key, node);
    }
    return node;
  }

  each(): PathNode {
    return (this.every ??= new PathNode(this, undefined, undefined));
  }
}
