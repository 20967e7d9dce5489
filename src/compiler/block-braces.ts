/**
 * A `{` never closed, or a `}` that closes nothing, found where the fix goes. The
 * parser meets a missing `}` only at the end of the file and an extra one only where the
 * braces run out, often far below the mistake; braces are counted here (outside comments
 * and strings), and the indentation of the lines, when it disagrees with the counting,
 * names the likelier block.
 */
import type { Position } from './diagnostics.js';
import { scanKdl, type Mark } from './kdl-scan.js';

export interface BraceMistake {
  readonly code: 'SPEC_UNCLOSED_BLOCK' | 'SPEC_STRAY_BRACE';
  readonly at: Position;
  readonly message: string;
  /** The offset where the parser gives up because of it: its own error there says less. */
  readonly parserStop: number;
}

interface Block {
  /** The node's text up to its `{`: `can list issues`. */
  readonly head: string;
  readonly node: Mark;
  readonly brace: Mark;
  /** The leading white space of the node's line. */
  readonly indent: number;
  readonly parent?: Block;
}

/** A `}` that is the first thing on its line, with the block it closes. */
interface Closing {
  readonly block: Block;
  readonly closer: Mark;
  readonly indent: number;
}

const where = (p: Position): string => `${p.line}:${p.column}`;

export function braceMistake(text: string): BraceMistake | undefined {
  const lineOf = (m: Mark): string => text.slice(m.offset - m.column + 1, m.offset);
  const indentOf = (m: Mark): number => /^[ \t]*/.exec(lineOf(m))![0].length;
  const stack: Block[] = [];
  // Closings indented less than their node's line: a `}` meant for an outer block.
  const shallow: Closing[] = [];
  // The first `}` indented deeper than its node's line, since a top-level block closed as
  // indented: where an extra `}` starts closing every block one level too early.
  let deep: Closing | undefined;
  let node: Mark | undefined;
  let continued = false;
  for (const m of scanKdl(text)) {
    const c = m.char;
    // A string running to the end of the file hides the braces below it: the parser's
    // own error is the one to read.
    if (m.open === 'file') return undefined;
    if (c === '\n' || c === ';') {
      // A `\` continues the node on the next line.
      if (c === ';' || !continued) node = undefined;
      continued = false;
    } else if (c === '\\') continued = true;
    else if (c === '{') {
      const start = node ?? m;
      const written = text.slice(start.offset, m.offset).replace(/\\(?=\s)/g, ' ');
      const head = written.replace(/\s+/g, ' ').trim();
      stack.push({ head, node: start, brace: m, indent: indentOf(start), parent: stack.at(-1) });
      node = undefined;
    } else if (c === '}') {
      const block = stack.pop();
      if (!block) return stray(m, deep);
      if (lineOf(m).trim() === '') {
        const closing = { block, closer: m, indent: indentOf(m) };
        if (closing.indent < block.indent) shallow.push(closing);
        if (closing.indent > block.indent) deep ??= closing;
        else if (!block.parent) deep = undefined;
      } else if (!block.parent) deep = undefined;
      // The node goes on after its children, to the end of its line.
      node = block.node;
    } else if (!/\s/.test(c)) node ??= m;
  }
  if (stack.length === 0) return undefined;
  const open = new Set(stack);
  const inOpen = (b: Block): boolean =>
    b.parent !== undefined && (open.has(b.parent) || inOpen(b.parent));
  return unclosed(
    text,
    stack,
    shallow.find((s) => inOpen(s.block)),
  );
}

/** `can list issues`, as the node is written up to its `{`. */
function named(b: Block): string {
  const head = b.head.length > 40 ? `${b.head.slice(0, 39)}…` : b.head;
  return head === '' ? 'a node' : `\`${head}\``;
}

function unclosed(text: string, stack: readonly Block[], shallow?: Closing): BraceMistake {
  const lines = text.split('\n');
  const end = `${lines.length}:${lines.at(-1)!.length + 1}`;
  const open = `the file ends at ${end} with ${stack.length === 1 ? 'a block' : `${stack.length} blocks`} open`;
  const b = shallow?.block ?? stack.at(-1)!;
  const opens = `${named(b)} opens a block at ${where(b.brace)} that`;
  return {
    code: 'SPEC_UNCLOSED_BLOCK',
    at: b.node,
    message: shallow
      ? `${opens} is likely never closed: the } at ${where(shallow.closer)}, indented less than ${named(b)}, closes it instead, and ${open}`
      : `${opens} is never closed: ${open}`,
    parserStop: text.length,
  };
}

function stray(brace: Mark, deep?: Closing): BraceMistake {
  return {
    code: 'SPEC_STRAY_BRACE',
    at: deep?.closer ?? brace,
    message: deep
      ? `this } is likely one too many: indented deeper than ${named(deep.block)} at ${where(deep.block.node)}, it closes that block early, and the } at ${where(brace)} then closes no block`
      : 'this } closes no block: every { above it is closed already',
    parserStop: brace.offset,
  };
}
