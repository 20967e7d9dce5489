/**
 * KDL text → typed Spec. Checks shape only: known nodes and properties, value types,
 * nodes that may appear once, all from the kinds' tables (kinds/top.ts and below).
 * Meaning (tool names, templates, SQL, patterns) is for `compile-spec.ts`, so that one
 * file reports every error it has in one run.
 */
import { InvalidKdlError, parse, type Document, type Node } from '@bgotink/kdl';
import { braceMistake } from './block-braces.js';
import { Diagnostics, type Position, type SpecErrorCode } from './diagnostics.js';
import type { SpecVariable } from './descriptor.js';
import { readTable, setScannedPosition } from './kdl-reader.js';
import { readSpec, TOP, type Spec } from './kinds/top.js';
import { unterminatedString } from './open-string.js';
import { namesAVariable, specVariables } from './spec-variables.js';
import { topLevelNodes, type TopLevelNode } from './top-level-nodes.js';

export interface ParseResult {
  /** Undefined only when the text is not KDL at all. */
  readonly spec?: Spec;
  readonly diagnostics: Diagnostics;
}

/**
 * `locations: false` parses without the parser's locations (a third of the CPU, and no
 * location object per token), one top-level node at a time (`topLevelByPiece`): those
 * nodes get their positions from a scan of the text, the variables theirs from a parse
 * of their own node with locations, and any other position is 1:1. So a caller that gets
 * diagnostics parses again with locations (load-spec.ts). Undefined when the fast parse
 * cannot be trusted to place the nodes (the scan and the parser disagree, or the text
 * is not KDL): parse with locations.
 */
export function parseSpec(
  text: string,
  file: string,
  { locations = true }: { locations?: boolean } = {},
): ParseResult | undefined {
  if (!locations) return parseByNode(text, file);
  const diag = new Diagnostics(file);
  let doc: Document;
  try {
    doc = parse(text, { as: 'document', storeLocations: true });
  } catch (err) {
    if (!(err instanceof InvalidKdlError)) throw err;
    reportSyntax(err, text, diag);
    return { diagnostics: diag };
  }
  const top = readTable(doc.nodes, TOP, { diag, subject: [] });
  // A `wrap` whose values were refused still counts as given.
  if (!doc.nodes.some((n) => n.getName() === 'wrap')) missingWrap(diag);
  return { spec: readSpec(top, file, specVariables(doc.nodes)), diagnostics: diag };
}

function missingWrap(diag: Diagnostics): void {
  diag.error(
    'SPEC_MISSING',
    { line: 1, column: 1 },
    [],
    'the spec needs `wrap "<server name>"` once',
  );
}

/** Thrown by `topLevelByPiece` when a piece of the text does not parse as expected. */
export class NotPlaced extends Error {}

/**
 * The top-level nodes of `text`, parsed without locations one at a time: each node's
 * text (from the scan, top-level-nodes.ts) is parsed alone when the consumer asks for
 * the next node, so the parser's model of one node is garbage by the time the next is
 * parsed. Of a 5,000-grant spec the whole document was 50 MB of heap alive through the
 * read, copied by every young-generation collection on its way to the old one: half
 * the parse's CPU and most of the peak heap (issue 40).
 *
 * The pieces are the whole text, and each must be what the scan says: what precedes
 * the first node parses to no node, each piece to exactly one node with a plain name,
 * as the scan saw it (none when commented out with `/-`), and every node but the first
 * follows a line break or `;` (the parser refuses `a {}b` in one document, but not as
 * `a {}` and `b`) and no line continuation (escapedBefore). Otherwise, and for any text
 * that is not KDL, it throws NotPlaced,
 * whenever that is found: the caller parses the whole text again.
 */
export function* topLevelByPiece(
  text: string,
): Generator<{ readonly node: Node; readonly start: TopLevelNode; readonly piece: string }> {
  const starts = topLevelNodes(text);
  const before = text.slice(0, starts[0]?.offset ?? text.length);
  if (!parsesTo(before, 0) || starts.some((s) => !s.terminated)) throw new NotPlaced();
  for (const start of starts) {
    if (escapedBefore(text, start.offset)) throw new NotPlaced();
    const piece = text.slice(start.offset, start.end);
    if (start.commented) {
      if (!parsesTo(piece, 0)) throw new NotPlaced();
      continue;
    }
    const name = nodeNameAt(text, start.offset);
    // The parser does not check a document's first token as it checks the others (it
    // takes `.5` or a name holding U+2066 there): in one piece of a larger document
    // such a name would go unnoticed. Only plain names, as every node kind has, pass.
    if (name === undefined || !PLAIN_NAME.test(name)) throw new NotPlaced();
    const node = parsesTo(piece, 1)?.[0];
    if (!node || node.getName() !== name) throw new NotPlaced();
    yield { node, start, piece };
  }
}

/**
 * The parse without locations (`topLevelByPiece`), each node read as soon as it is
 * parsed and given its scanned position. Undefined when the pieces cannot be placed.
 */
function parseByNode(text: string, file: string): ParseResult | undefined {
  const diag = new Diagnostics(file);
  const variables: SpecVariable[] = [];
  let wrap = false;
  function* nodes(): Generator<Node> {
    for (const { node, start, piece } of topLevelByPiece(text)) {
      setScannedPosition(node, { line: start.line, column: start.column });
      if (node.getName() === 'wrap') wrap = true;
      if (namesAVariable(node)) variables.push(...placedVariables(piece, start));
      yield node;
    }
  }
  let top: ReturnType<typeof readTable>;
  try {
    top = readTable(nodes(), TOP, { diag, subject: [] });
  } catch (err) {
    if (err instanceof NotPlaced) return undefined;
    throw err;
  }
  if (!wrap) missingWrap(diag);
  return { spec: readSpec(top, file, variables), diagnostics: diag };
}

/** The nodes of `piece` (without locations unless asked), when it parses to `count` of them. */
function parsesTo(
  piece: string,
  count: number,
  storeLocations = false,
): readonly Node[] | undefined {
  try {
    const { nodes } = parse(piece, { as: 'document', storeLocations });
    return nodes.length === count ? nodes : undefined;
  } catch (err) {
    if (err instanceof InvalidKdlError) return undefined;
    throw err;
  }
}

/**
 * The variables of one top-level node placed exactly: its text parsed again, alone and
 * with locations (a few nodes of a large spec), its lines moved to where the node starts.
 */
function placedVariables(piece: string, start: TopLevelNode): SpecVariable[] {
  const alone = parsesTo(piece, 1, true);
  if (!alone) throw new NotPlaced();
  return specVariables(alone).map((v) => ({
    ...v,
    line: v.line + start.line - 1,
    column: v.line === 1 ? v.column + start.column - 1 : v.column,
  }));
}

/**
 * Whether a `\` and blanks come right before `offset`. A line continuation must end at
 * a line break, a comment or the end of the text: `a; \\ b` is refused whole, but its
 * first piece would end with the continuation at its end of text, which is allowed.
 */
function escapedBefore(text: string, offset: number): boolean {
  let i = offset - 1;
  while (i >= 0 && /[\s\ufeff]/u.test(text[i]!)) i--;
  return i >= 0 && text[i] === '\\';
}

/** A node name no KDL rule can refuse: a letter, then letters, digits, `-` and `_`. */
const PLAIN_NAME = /^[A-Za-z][A-Za-z0-9_-]*$/;

/** The bare identifier at `offset` (enough to check the scan against the parser). */
function nodeNameAt(text: string, offset: number): string | undefined {
  const m = /^[^\s{}();=[\]"#/\\]+/u.exec(text.slice(offset, offset + 128));
  return m?.[0];
}

function reportSyntax(err: InvalidKdlError, text: string, diag: Diagnostics): void {
  // A string left open makes the parser fail at the next quote, lines below: the
  // opening quote is where the fix goes.
  const open = unterminatedString(text);
  if (open) {
    diag.error(
      'SPEC_SYNTAX',
      open,
      [],
      'invalid KDL: this string is not closed on its line (a missing closing ")',
    );
    return;
  }
  // A brace left open or one too many is told where it is, in place of the parser's
  // complaint at the end of the file or at the last `}`; its other errors stand.
  const braces = braceMistake(text);
  const found: { code: SpecErrorCode; at?: Position; message: string }[] = [];
  if (braces) found.push(braces);
  // The parser may carry several errors (`errors`) or one with a start position.
  for (const one of err.errors && err.errors.length > 0 ? err.errors : [err]) {
    if (braces && one.start?.offset === braces.parserStop) continue;
    const message = one.message.replace(/ at \d+:\d+$/, '');
    found.push({ code: 'SPEC_SYNTAX', at: one.start, message: `invalid KDL: ${message}` });
  }
  const place = (p?: Position): number => (p ? p.line * 1e6 + p.column : 0);
  found.sort((a, b) => place(a.at) - place(b.at));
  for (const f of found) diag.error(f.code, f.at, [], f.message);
}
