/**
 * KDL text → typed Spec. Checks shape only: known nodes and properties, value types,
 * nodes that may appear once, all from the kinds' tables (kinds/top.ts and below).
 * Meaning (tool names, templates, SQL, patterns) is for `compile-spec.ts`, so that one
 * file reports every error it has in one run.
 */
import { InvalidKdlError, parse, type Document } from '@bgotink/kdl';
import { braceMistake } from './block-braces.js';
import { Diagnostics, type Position, type SpecErrorCode } from './diagnostics.js';
import { readTable } from './kdl-reader.js';
import { readSpec, TOP, type Spec } from './kinds/top.js';
import { unterminatedString } from './open-string.js';
import { specVariables } from './spec-variables.js';

export interface ParseResult {
  /** Undefined only when the text is not KDL at all. */
  readonly spec?: Spec;
  readonly diagnostics: Diagnostics;
}

export function parseSpec(text: string, file: string): ParseResult {
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
  if (!doc.nodes.some((n) => n.getName() === 'wrap'))
    diag.error(
      'SPEC_MISSING',
      { line: 1, column: 1 },
      [],
      'the spec needs `wrap "<server name>"` once',
    );
  return { spec: readSpec(top, file, specVariables(doc.nodes)), diagnostics: diag };
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
