/**
 * KDL text → typed Spec. Checks shape only: known nodes and properties, value types,
 * nodes that may appear once, all from the kinds' tables (kinds/top.ts and below).
 * Meaning (tool names, templates, SQL, patterns) is for `compile-spec.ts`, so that one
 * file reports every error it has in one run.
 */
import { InvalidKdlError, parse, type Document } from '@bgotink/kdl';
import { braceMistake } from './block-braces.js';
import { Diagnostics, type Position, type SpecErrorCode } from './diagnostics.js';
import type { SpecVariable } from './descriptor.js';
import { readTable, setScannedPosition } from './kdl-reader.js';
import { readSpec, TOP, type Spec } from './kinds/top.js';
import { unterminatedString } from './open-string.js';
import { specVariables } from './spec-variables.js';
import { topLevelNodes } from './top-level-nodes.js';

export interface ParseResult {
  /** Undefined only when the text is not KDL at all. */
  readonly spec?: Spec;
  readonly diagnostics: Diagnostics;
}

/**
 * `locations: false` parses without the parser's locations (a third of the CPU, and no
 * location object per token): top-level nodes get their positions from a scan of the
 * text, the variables theirs from a parse of their own node with locations, and any
 * other position is 1:1. So a caller that gets diagnostics parses again with locations
 * (load-spec.ts). Undefined when the fast parse cannot be trusted to place the nodes
 * (the scan and the parser disagree, or the text is not KDL): parse with locations.
 */
export function parseSpec(
  text: string,
  file: string,
  { locations = true }: { locations?: boolean } = {},
): ParseResult | undefined {
  const diag = new Diagnostics(file);
  let doc: Document;
  let variables: SpecVariable[];
  if (locations) {
    try {
      doc = parse(text, { as: 'document', storeLocations: true });
    } catch (err) {
      if (!(err instanceof InvalidKdlError)) throw err;
      reportSyntax(err, text, diag);
      return { diagnostics: diag };
    }
    variables = specVariables(doc.nodes);
  } else {
    try {
      doc = parse(text, { as: 'document', storeLocations: false });
    } catch (err) {
      if (!(err instanceof InvalidKdlError)) throw err;
      return undefined;
    }
    const found = placeTopLevel(text, doc);
    if (!found) return undefined;
    variables = found;
  }
  const top = readTable(doc.nodes, TOP, { diag, subject: [] });
  // A `wrap` whose values were refused still counts as given.
  if (!doc.nodes.some((n) => n.getName() === 'wrap'))
    diag.error(
      'SPEC_MISSING',
      { line: 1, column: 1 },
      [],
      'the spec needs `wrap "<server name>"` once',
    );
  return { spec: readSpec(top, file, variables), diagnostics: diag };
}

/**
 * Gives each top-level node of `doc` (parsed without locations) its scanned position, and
 * returns the spec's variables placed exactly: each top-level node that names one is
 * parsed again, alone and with locations (a few nodes of a large spec), its lines moved
 * to where the node starts. Undefined when the scan does not find the parser's nodes.
 */
function placeTopLevel(text: string, doc: Document): SpecVariable[] | undefined {
  const starts = topLevelNodes(text).filter((s) => !s.commented);
  if (starts.length !== doc.nodes.length) return undefined;
  const variables: SpecVariable[] = [];
  for (const [i, node] of doc.nodes.entries()) {
    const start = starts[i]!;
    if (node.getName() !== nodeNameAt(text, start.offset)) return undefined;
    setScannedPosition(node, { line: start.line, column: start.column });
    if (specVariables([node]).length === 0) continue;
    let alone: Document;
    try {
      alone = parse(text.slice(start.offset, start.end), { as: 'document', storeLocations: true });
    } catch {
      return undefined;
    }
    for (const v of specVariables(alone.nodes))
      variables.push({
        ...v,
        line: v.line + start.line - 1,
        column: v.line === 1 ? v.column + start.column - 1 : v.column,
      });
  }
  return variables;
}

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
