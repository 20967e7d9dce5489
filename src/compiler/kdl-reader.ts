/**
 * The one reader of KDL nodes. Every node kind is a row (`NodeKind`): its arguments and
 * properties with their value types, its children (a `Table` of the kinds it may hold,
 * which of them may repeat) and `build`, which turns what was read into the typed Spec.
 * The rows live with their kinds (kinds/*.ts); this file knows no node by name.
 * The reader refuses whatever the row does not list, with the table's own "known: ..."
 * hint, and leaves out a value it reported, so the caller keeps going and one run
 * lists every error of a file (spec-language.md, "Load errors").
 */
import { getLocation, type Entry, type Node } from '@bgotink/kdl';
import { closestName } from './closest-name.js';
import type { Diagnostics, Located, Position, Subject } from './diagnostics.js';
import type { SpecErrorCode } from './diagnostics.js';

export type Scalar = string | number | boolean | null;

export interface ValueDecl {
  readonly type: 'string' | 'scalar' | 'integer' | 'number' | 'boolean';
  /** integer: the least value allowed (0 unless given). */
  readonly min?: number;
  readonly required?: boolean;
}

export interface ArgDecl extends ValueDecl {
  /** How messages name the argument: "a verb (can list issues)". */
  readonly what: string;
}

export interface ReadContext {
  readonly diag: Diagnostics;
  /** Prefix of the messages about this node: "grant list_issues". */
  readonly subject: Subject;
}

/** A row kind picked by one argument's value: auth kinds, database modes, field types. */
export interface Variants {
  readonly arg: number;
  readonly kinds: Readonly<Record<string, Partial<NodeKind>>>;
  /** The kind when the argument is absent; 'stop' reads no further. */
  readonly missing?: string | 'stop';
  /** The kind of any other value (a name, as `database "orders"`); absent: `unknown` refuses it. */
  readonly other?: string;
  /** Refusal of a value outside `kinds`; `stop` reads no further. */
  readonly unknown: (value: string) => { code: SpecErrorCode; message: string; stop: boolean };
  /** Subject of that refusal (default: the node's own subject). */
  readonly subject?: (name: string, ctx: ReadContext) => Subject;
}

export interface NodeKind<T = unknown> {
  readonly args?: readonly ArgDecl[];
  /** Every argument after `args` (scope names, enum values). */
  readonly rest?: ArgDecl;
  readonly props?: Readonly<Record<string, ValueDecl>>;
  /** Properties the kind knows but this variant refuses (SPEC_PROPERTY_TYPE), with why. */
  readonly refused?: Readonly<Record<string, string>>;
  readonly variants?: Variants;
  /** Known children; absent: the node takes none. */
  readonly children?: Table;
  /** Subject of its children's messages; undefined (arguments missing) skips them. */
  readonly inner?: (n: ReadNode, subject: Subject) => Subject | undefined;
  readonly build: (n: ReadNode, ctx: ReadContext) => T | undefined;
}

interface RowRules {
  /** May appear once; a function words the duplicate's refusal itself. */
  readonly once?: true | ((name: string) => string);
  /** Why the node is refused here (SPEC_PROPERTY_TYPE), e.g. enum on an object field. */
  readonly refuse?: string;
}

/**
 * A row that reads its node itself, by `readNode`, after rules of its own kind: a field
 * refuses a name that is no argument name before reading anything, and names its
 * messages after its block ("query field per_page").
 */
export interface ReadsItself {
  readonly read: (node: Node, ctx: ReadContext) => unknown;
}

export type TableRow = (NodeKind | ReadsItself) & RowRules;

export interface Table {
  /** The kinds, in the order the "known: ..." hint lists them. */
  readonly kinds: Readonly<Record<string, TableRow>>;
  /** The kind of every other name (fields, restrict entries). */
  readonly other?: TableRow;
  /** "in a grant"; absent at the top level. */
  readonly where?: string;
  /** A second `once` node "may appear once" (default) or "is given twice". */
  readonly twice?: string;
  /** Replaces the unknown-node message. */
  readonly unknown?: (name: string) => string;
}

/** One node as read: valid values only, children already built. */
export interface ReadNode {
  readonly name: string;
  readonly at: Position;
  readonly node: Node;
  /** The subject of the node's own messages. */
  readonly subject: Subject;
  /** The variant picked, when the kind has variants. */
  readonly variant?: string;
  /** Every required argument and property is there and valid. */
  readonly complete: boolean;
  /** Arguments by position (`rest` included); a reported one is undefined. */
  readonly args: readonly (Located<Scalar> | undefined)[];
  readonly props: ReadonlyMap<string, Located<Scalar>>;
  readonly children: readonly Built[];
}

export interface Built {
  readonly name: string;
  readonly at: Position;
  readonly value: unknown;
  /** Read by the table's `other` row: a field, a restrict entry. */
  readonly free: boolean;
}

/**
 * Positions of top-level nodes parsed without the parser's locations (parse-spec.ts
 * says when), from the text's own scan (top-level-nodes.ts).
 */
const scannedPositions = new WeakMap<Node, Position>();

export function setScannedPosition(node: Node, at: Position): void {
  scannedPositions.set(node, at);
}

export function positionOf(item: Node | Entry): Position {
  const target = item.type === 'node' ? item.name : item;
  const loc = getLocation(target);
  if (loc) return { line: loc.start.line, column: loc.start.column };
  return (item.type === 'node' && scannedPositions.get(item)) || UNPLACED;
}

/**
 * Where a node or value parsed without locations is said to be: such a parse compiles a
 * spec that reports nothing (load-spec.ts), so no message reads it. One object for all
 * of them, not one per value read.
 */
const UNPLACED: Position = Object.freeze({ line: 1, column: 1 });

/** A value as the file wrote it: `1152921504606846976`, not its rounded double. */
function written(entry: Entry): string {
  return entry.value.representation ?? JSON.stringify(entry.getValue());
}

function kindOf(v: Scalar): string {
  return v === null ? 'null' : typeof v;
}

/** Why `entry` does not hold a `decl.type`, or undefined when it does. */
function misfit(entry: Entry, decl: ValueDecl, what: string): string | undefined {
  const value = entry.getValue();
  switch (decl.type) {
    case 'scalar':
      return undefined;
    case 'string':
      return typeof value === 'string'
        ? undefined
        : `${what} must be a string, got ${kindOf(value)}`;
    case 'boolean':
      return typeof value === 'boolean'
        ? undefined
        : `${what} must be #true or #false, got ${kindOf(value)}`;
    case 'number':
      if (typeof value !== 'number') return `${what} must be a number, got ${kindOf(value)}`;
      if (!Number.isFinite(value)) return `${what}${written(entry)} is not a finite number`;
      return Number.isInteger(value) && !Number.isSafeInteger(value)
        ? `${what}${written(entry)} is beyond the exactly representable integers (±2^53-1)`
        : undefined;
    case 'integer': {
      const min = decl.min ?? 0;
      if (typeof value !== 'number' || !Number.isInteger(value))
        return `${what} must be a whole number, got ${written(entry)}`;
      if (!Number.isSafeInteger(value))
        return `${what} ${written(entry)} is beyond the exactly representable integers (±2^53-1)`;
      return value < min ? `${what} must be at least ${min}, got ${value}` : undefined;
    }
  }
}

function readValue(entry: Entry, decl: ValueDecl, what: string, ctx: ReadContext) {
  const problem = misfit(entry, decl, what);
  const at = positionOf(entry);
  if (problem === undefined) return { value: entry.getValue(), at };
  ctx.diag.error('SPEC_VALUE_TYPE', at, ctx.subject, problem);
  return undefined;
}

/**
 * What readNode needs of a kind besides the row itself, worked out once per kind (the
 * rows are module constants): its declared and refused properties as lists, and the
 * merged kind of each variant. A field row has fifteen properties and a dozen variants;
 * rebuilding these per node was a tenth of reading a 500-grant spec.
 */
interface KindPlan {
  /** The declared properties this kind does not refuse, in row order. */
  readonly props: readonly (readonly [string, ValueDecl])[];
  readonly refused: readonly (readonly [string, string])[];
  readonly variants: Map<string, NodeKind>;
}
const plans = new WeakMap<NodeKind, KindPlan>();

function planOf(kind: NodeKind): KindPlan {
  let plan = plans.get(kind);
  if (!plan) {
    const refused = kind.refused ?? {};
    plan = {
      props: Object.entries(kind.props ?? {}).filter(([prop]) => !Object.hasOwn(refused, prop)),
      refused: Object.entries(refused),
      variants: new Map(),
    };
    plans.set(kind, plan);
  }
  return plan;
}

const NO_ARGS: readonly ArgDecl[] = [];
const NO_PROPS: Readonly<Record<string, unknown>> = {};
const NO_CHILDREN: readonly Built[] = [];

/**
 * Reads argument `i` into `args`; false when a required one is missing or reported.
 * A module function, not a closure per node: a spec reads thousands of nodes.
 */
function readArg(
  node: Node,
  entries: readonly Entry[],
  i: number,
  decl: ArgDecl,
  args: (Located<Scalar> | undefined)[],
  ctx: ReadContext,
): boolean {
  const entry = entries[i];
  if (entry) args[i] = readValue(entry, decl, decl.what, ctx);
  else if (decl.required !== false)
    ctx.diag.error(
      'SPEC_MISSING',
      positionOf(node),
      ctx.subject,
      `\`${node.getName()}\` needs ${decl.what}`,
    );
  return decl.required === false || args[i] !== undefined;
}

function variantOf<T>(row: NodeKind<T>, picked: string, extra: Partial<NodeKind>): NodeKind<T> {
  const known = planOf(row).variants;
  let kind = known.get(picked);
  if (!kind) {
    kind = { ...row, ...extra, props: { ...row.props, ...extra.props } } as NodeKind;
    known.set(picked, kind);
  }
  return kind as NodeKind<T>;
}

/**
 * The node's properties by name, the last of a repeated one winning as in
 * `Node.getPropertyEntry` (which walks every entry, backwards, per name asked).
 */
function propertyEntries(node: Node): Properties {
  let found: { byName: Map<string, Entry>; all: Entry[] } | undefined;
  for (const entry of node.entries) {
    const prop = entry.getName();
    if (prop === null) continue;
    found ??= { byName: new Map(), all: [] };
    found.byName.set(prop, entry);
    found.all.push(entry);
  }
  return found ?? NO_PROPERTIES;
}
interface Properties {
  readonly byName: ReadonlyMap<string, Entry>;
  readonly all: readonly Entry[];
}
/** Of the many nodes that have no property (`describe "…"`, a block), one answer. */
const NO_PROPERTIES: Properties = { byName: new Map(), all: [] };

/** Reads one node by its row; undefined when the row's build gives nothing. */
export function readNode<T>(node: Node, row: NodeKind<T>, ctx: ReadContext): T | undefined {
  const name = node.getName();
  const at = positionOf(node);
  const { subject } = ctx;
  const entries = node.getArgumentEntries();
  let kind: NodeKind<T> = row;
  let variant: string | undefined;
  let stop = false;
  let complete = true;

  const args: (Located<Scalar> | undefined)[] = [];
  const rowArgs = row.args ?? NO_ARGS;
  for (let i = 0; i < rowArgs.length; i++)
    if (!readArg(node, entries, i, rowArgs[i]!, args, ctx)) complete = false;
  if (row.variants) {
    const v = row.variants;
    // An absent argument and a reported one are alike: both take `missing`.
    const picked = (args[v.arg]?.value as string | undefined) ?? v.missing;
    if (picked === 'stop') return undefined;
    if (picked !== undefined && Object.hasOwn(v.kinds, picked)) {
      variant = picked;
      kind = variantOf(row, picked, v.kinds[picked]!);
    } else if (picked !== undefined && v.other !== undefined) {
      variant = v.other;
      kind = variantOf(row, v.other, v.kinds[v.other]!);
    } else if (picked !== undefined) {
      const refusal = v.unknown(picked);
      const where = v.subject ? v.subject(name, ctx) : subject;
      ctx.diag.error(refusal.code, args[v.arg]!.at, where, refusal.message);
      if (refusal.stop) return undefined;
      stop = true;
    }
  }
  const declared = kind.args ?? NO_ARGS;
  for (let i = rowArgs.length; i < declared.length; i++)
    if (!readArg(node, entries, i, declared[i]!, args, ctx)) complete = false;
  let used = declared.length;
  if (kind.rest) {
    for (let i = declared.length; i < entries.length; i++)
      if (!readArg(node, entries, i, kind.rest, args, ctx)) complete = false;
    used = Math.max(used, entries.length);
  }

  const props = new Map<string, Located<Scalar>>();
  const plan = planOf(kind);
  const given = propertyEntries(node);
  for (const [prop, why] of plan.refused) {
    const entry = given.byName.get(prop);
    if (entry) ctx.diag.error('SPEC_PROPERTY_TYPE', positionOf(entry), subject, why);
  }
  for (const [prop, decl] of plan.props) {
    const entry = given.byName.get(prop);
    const value = entry && readValue(entry, decl, `${prop}=`, ctx);
    if (value) props.set(prop, value);
    else if (decl.required) complete = false;
    if (!entry && decl.required)
      ctx.diag.error('SPEC_MISSING', at, subject, `\`${name}\` needs ${prop}=`);
  }
  for (const entry of given.all) {
    const prop = entry.getName() ?? '';
    if (
      !Object.hasOwn(kind.props ?? NO_PROPS, prop) &&
      !Object.hasOwn(kind.refused ?? NO_PROPS, prop)
    ) {
      const known = Object.keys(kind.props ?? {});
      const guess = closestName(prop, known);
      const hint =
        known.length === 0
          ? ' (it takes none)'
          : `${guess ? `; did you mean ${guess}=?` : ''} (known: ${known.map((k) => `${k}=`).join(', ')})`;
      ctx.diag.error(
        'SPEC_UNKNOWN_PROPERTY',
        positionOf(entry),
        subject,
        `\`${name}\` has no property ${prop}=${hint}`,
      );
    }
  }
  for (let i = used; i < entries.length; i++) {
    ctx.diag.error(
      'SPEC_UNKNOWN_PROPERTY',
      positionOf(entries[i]!),
      subject,
      `\`${name}\` takes ${used} argument(s), found an extra one: ${JSON.stringify(entries[i]!.getValue())}`,
    );
  }
  // Its children are set once they are read (below): one object a node, not two.
  const read: { -readonly [K in keyof ReadNode]: ReadNode[K] } = {
    name,
    at,
    node,
    subject,
    args,
    props,
    children: NO_CHILDREN,
    variant,
    complete,
  };
  const nodes = node.children?.nodes ?? [];
  if (!kind.children) {
    for (const child of nodes)
      ctx.diag.error(
        'SPEC_UNKNOWN_NODE',
        positionOf(child),
        subject,
        `\`${name}\` takes no children, found \`${child.getName()}\``,
      );
    // A refused variant still has its common values checked; what it builds is dropped.
    const value = kind.build(read, ctx);
    return stop ? undefined : value;
  }
  const inner = kind.inner ? kind.inner(read, subject) : subject;
  if (inner === undefined) return undefined;
  read.children = readTable(nodes, kind.children, { diag: ctx.diag, subject: inner });
  return kind.build(read, ctx);
}

/** Reads a list of sibling nodes by their table. */
export function readTable(nodes: Iterable<Node>, table: Table, ctx: ReadContext): Built[] {
  const out: Built[] = [];
  // Made at the first `once` row: most tables a spec reads (fields, enums) have none.
  let first: Map<string, Position> | undefined;
  for (const node of nodes) {
    const name = node.getName();
    const at = positionOf(node);
    const row: TableRow | undefined = Object.hasOwn(table.kinds, name)
      ? table.kinds[name]
      : table.other;
    if (!row) {
      const known = Object.keys(table.kinds).join(', ');
      const guess = closestName(name, Object.keys(table.kinds));
      const mean = guess ? `; did you mean \`${guess}\`?` : '';
      const message = table.unknown
        ? table.unknown(name)
        : table.where
          ? `unknown node \`${name}\` ${table.where}${mean} (known: ${known})`
          : `unknown top-level node \`${name}\`${mean} (known: ${known})`;
      ctx.diag.error('SPEC_UNKNOWN_NODE', at, ctx.subject, message);
      // A confident typo is read as the kind it meant, what it builds dropped: its
      // properties and children are checked now, not after the fix.
      const meant = guess === undefined ? undefined : table.kinds[guess];
      if (meant && meant.refuse === undefined) readRow(node, meant, ctx);
      continue;
    }
    if (row.refuse !== undefined) {
      ctx.diag.error('SPEC_PROPERTY_TYPE', at, ctx.subject, row.refuse);
      continue;
    }
    if (row.once) {
      first ??= new Map();
      const seen = first.get(name);
      if (seen) {
        const message =
          typeof row.once === 'function'
            ? row.once(name)
            : `\`${name}\` ${table.twice ?? 'may appear once'} (first at line ${seen.line})`;
        ctx.diag.error('SPEC_DUPLICATE', at, ctx.subject, message);
        continue;
      }
      first.set(name, at);
    }
    const value = readRow(node, row, ctx);
    if (value !== undefined) out.push({ name, at, value, free: row === table.other });
  }
  return out;
}

function readRow(node: Node, row: TableRow, ctx: ReadContext): unknown {
  return 'read' in row ? row.read(node, ctx) : readNode(node, row, ctx);
}

/** The built values of the children named `name`, in file order. */
export function childrenNamed<T>(children: readonly Built[], name: string): T[] {
  return children.filter((c) => c.name === name).map((c) => c.value as T);
}

/** The built value of the first child named `name` (a `once` kind has one). */
export function childNamed<T>(children: readonly Built[], name: string): T | undefined {
  return children.find((c) => c.name === name)?.value as T | undefined;
}

/** A property's value as read (its type was checked against the row). */
export function prop<T extends Scalar>(n: ReadNode, name: string): T | undefined {
  return n.props.get(name)?.value as T | undefined;
}

export function propAt(n: ReadNode, name: string): Position {
  return n.props.get(name)?.at ?? n.at;
}

/** The properties read, under camelCase names (`max-bytes` → `maxBytes`), in row order. */
export function camelProps(n: ReadNode, located = false): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of n.props) out[camelName(k)] = located ? v : v.value;
  return out;
}

/** `max-bytes` → `maxBytes`, each property name of the rows converted once. */
function camelName(prop: string): string {
  let name = camelNames.get(prop);
  if (name === undefined) {
    name = prop.replace(/-(\w)/g, (_, c: string) => c.toUpperCase());
    // Only the rows' names (a fixed few) are read into props.
    camelNames.set(prop, name);
  }
  return name;
}
const camelNames = new Map<string, string>();

export function arg<T extends Scalar>(n: ReadNode, i: number): T | undefined {
  return n.args[i]?.value as T | undefined;
}

export function argAt(n: ReadNode, i: number): Position {
  const entry = n.node.getArgumentEntries()[i];
  return entry ? positionOf(entry) : n.at;
}
