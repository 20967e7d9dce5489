/**
 * `pick` / `omit` paths (spec-language.md, "Shaping results (`pick` and `omit`)"): dotted field
 * names, `[]` after a name to step into every element of that array (`labels[].name`).
 * Parsed once: the spec's check reports what cannot be parsed, lowering keeps the texts,
 * and the envelope builds its shaper from the same tree at boot. The paths are the
 * envelope's language: the compiler reads them from here (compiler → envelope, never
 * back).
 */

/** `pick` / `omit`: the fields a grant's result keeps or drops, as a descriptor holds them. */
export interface ShapeDescriptor {
  readonly mode: 'pick' | 'omit';
  readonly paths: readonly string[];
}

/** One dotted step: a field name and how many array levels (`[]`) follow it. */
export interface ShapeStep {
  readonly name: string;
  readonly each: number;
}

export type ParsedPath =
  | { readonly ok: true; readonly steps: readonly ShapeStep[] }
  | { readonly ok: false; readonly reason: string };

export function parseShapePath(text: string): ParsedPath {
  if (text === '') return { ok: false, reason: 'a path names at least one field' };
  const steps: ShapeStep[] = [];
  for (const segment of text.split('.')) {
    const m = /^([^.[\]]+)((?:\[\])*)$/.exec(segment);
    if (!m) {
      return {
        ok: false,
        reason:
          segment === ''
            ? 'a path has a field name between every two dots, and none at either end'
            : `${JSON.stringify(segment)} is not a field name, optionally followed by []`,
      };
    }
    steps.push({ name: m[1]!, each: m[2]!.length / 2 });
  }
  if (steps.at(-1)!.each > 0)
    return {
      ok: false,
      reason:
        'a path ends with a field name: `[]` steps into elements, so name a field of them (or drop the [])',
    };
  return { ok: true, steps };
}

/** The named fields as a tree. A field named whole covers every path below it. */
export type ShapeNode =
  | { readonly kind: 'whole' }
  | { readonly kind: 'fields'; readonly fields: Map<string, ShapeNode> }
  | { readonly kind: 'each'; readonly of: ShapeNode };

const WHOLE: ShapeNode = { kind: 'whole' };

export type ShapeTree =
  | { readonly ok: true; readonly root: Map<string, ShapeNode> }
  /** `index`: the path that names a field both as an array (`a[]`) and not (`a.b`). */
  | { readonly ok: false; readonly index: number; readonly reason: string };

/** The tree of parsed paths; a field named both with and without `[]` is refused. */
export function shapeTree(paths: readonly (readonly ShapeStep[])[]): ShapeTree {
  const root = new Map<string, ShapeNode>();
  for (const [index, steps] of paths.entries()) {
    let fields = root;
    for (const [i, { name, each }] of steps.entries()) {
      if (i === steps.length - 1) {
        fields.set(name, WHOLE);
        break;
      }
      const inner = descend(fields, name, each);
      if (inner === 'whole') break;
      if (inner === 'conflict') {
        const spelled = steps
          .slice(0, i + 1)
          .map((s) => s.name + '[]'.repeat(s.each))
          .join('.');
        return {
          ok: false,
          index,
          reason: `${spelled} steps into ${name} differently from an earlier path (with and without [])`,
        };
      }
      fields = inner;
    }
  }
  return { ok: true, root };
}

/** The fields under `name` followed by `each` array levels, made when absent. */
function descend(
  fields: Map<string, ShapeNode>,
  name: string,
  each: number,
): Map<string, ShapeNode> | 'whole' | 'conflict' {
  let node = fields.get(name);
  if (node === undefined) {
    const inner = new Map<string, ShapeNode>();
    let made: ShapeNode = { kind: 'fields', fields: inner };
    for (let j = 0; j < each; j++) made = { kind: 'each', of: made };
    fields.set(name, made);
    return inner;
  }
  for (let j = 0; j < each; j++) {
    if (node.kind === 'whole') return 'whole';
    if (node.kind !== 'each') return 'conflict';
    node = node.of;
  }
  if (node.kind === 'whole') return 'whole';
  return node.kind === 'fields' ? node.fields : 'conflict';
}

/** Parses every path of a checked grant (the shaper at boot: errors were reported). */
export function shapeTreeOf(paths: readonly string[]): Map<string, ShapeNode> {
  const steps = paths.map((p) => {
    const parsed = parseShapePath(p);
    if (!parsed.ok) throw new Error(`shaping with an unchecked path ${p}: ${parsed.reason}`);
    return parsed.steps;
  });
  const tree = shapeTree(steps);
  if (!tree.ok) throw new Error(`shaping with unchecked paths: ${tree.reason}`);
  return tree.root;
}
