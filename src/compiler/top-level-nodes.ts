/**
 * Where each top-level node of KDL text starts, found without the parser's locations.
 *
 * Parsing with locations (`storeLocations`) costs the parser about 2.5 times its CPU and
 * keeps a location object for every token: for a 5,000-grant spec most of a cold start
 * (issue 40). A clean spec needs positions only for its top-level nodes (the `source` of
 * each grant, resource, prompt, toolset and upstream server) and for the variables it
 * reads, so the compiler parses without locations and takes those from this scan; a spec
 * with anything to report is parsed again with locations (load-spec.ts), so every
 * message points where it always did.
 *
 * The scan knows only what can hide a brace, a `;` or a line break: comments (`//`,
 * nested `/* *\/`), strings (quoted with escapes, multi-line `"""`, raw `#"..."#`), and a
 * `\` line continuation. A node is commented out by `/-`; it is listed, marked so, as
 * the parser leaves it out of the document. Whoever uses the starts checks that the
 * uncommented ones are as many as the parser's nodes, and falls back to the parser's
 * locations when they are not.
 */

export interface TopLevelNode {
  readonly offset: number;
  readonly line: number;
  readonly column: number;
  /** Where the next top-level node (or the text) starts: this node's text is before it. */
  end: number;
  /** Commented out with `/-`: not in the parsed document. */
  readonly commented: boolean;
  /**
   * A line break or `;` ends the node before it (always true of the first). False after
   * a bare `}` (`a {}b`), which the parser refuses in a whole document but would accept
   * in two pieces: whoever parses the nodes one by one must not.
   */
  readonly terminated: boolean;
}

const NL = 10;
const CR = 13;
const SPACE = 32;
const TAB = 9;
const QUOTE = 34;
const HASH = 35;
const SLASH = 47;
const STAR = 42;
const BACKSLASH = 92;
const SEMI = 59;
const OPEN = 123;
const CLOSE = 125;
const BOM = 0xfeff;

function isBlank(c: number): boolean {
  return c === SPACE || c === TAB || c === BOM || (c > 127 && /\s/u.test(String.fromCharCode(c)));
}

export function topLevelNodes(text: string): TopLevelNode[] {
  const nodes: TopLevelNode[] = [];
  const n = text.length;
  let line = 1;
  let lineStart = 0;
  let depth = 0;
  /** At depth 0, the next significant character starts a node. */
  let expecting = true;
  /** A line break or `;` at depth 0 since the last node started. */
  let terminated = true;
  let i = 0;
  const newline = (at: number): void => {
    line++;
    lineStart = at + 1;
  };
  /** Moves past `end` (exclusive), counting the line breaks in between. */
  const advanceTo = (end: number): void => {
    for (; i < end; i++) if (text.charCodeAt(i) === NL) newline(i);
  };
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === NL) {
      newline(i);
      if (depth === 0) expecting = terminated = true;
      i++;
    } else if (c === CR || isBlank(c)) {
      i++;
    } else if (c === SLASH && text.charCodeAt(i + 1) === SLASH) {
      const end = text.indexOf('\n', i);
      i = end === -1 ? n : end;
    } else if (c === SLASH && text.charCodeAt(i + 1) === STAR) {
      let nest = 0;
      do {
        if (text.startsWith('/*', i)) {
          nest++;
          i += 2;
        } else if (text.startsWith('*/', i)) {
          nest--;
          i += 2;
        } else {
          if (text.charCodeAt(i) === NL) newline(i);
          i++;
        }
      } while (nest > 0 && i < n);
    } else if (c === BACKSLASH) {
      // A line continuation: the node goes on past the line break (and a comment before it).
      i++;
      while (i < n && (isBlank(text.charCodeAt(i)) || text.charCodeAt(i) === CR)) i++;
      if (text.startsWith('//', i)) {
        const end = text.indexOf('\n', i);
        i = end === -1 ? n : end;
      }
      if (text.charCodeAt(i) === NL) {
        newline(i);
        i++;
      }
    } else {
      if (depth === 0 && expecting) {
        const commented = c === SLASH && text.charCodeAt(i + 1) === 45; // `/-`
        const last = nodes[nodes.length - 1];
        if (last) last.end = i;
        nodes.push({ offset: i, line, column: i - lineStart + 1, end: n, commented, terminated });
        expecting = terminated = false;
      }
      if (c === QUOTE || c === HASH) i = skipString(text, i, advanceTo);
      else {
        if (c === OPEN) depth++;
        else if (c === CLOSE) {
          depth--;
          if (depth === 0) expecting = true;
        } else if (c === SEMI && depth === 0) expecting = terminated = true;
        i++;
      }
    }
  }
  return nodes;
}

/**
 * Past the string (or `#` keyword such as `#true`) at `i`. `advanceTo` counts the line
 * breaks of a multi-line string; returns where scanning goes on.
 */
function skipString(text: string, i: number, advanceTo: (end: number) => void): number {
  let hashes = 0;
  while (text.charCodeAt(i + hashes) === HASH) hashes++;
  if (text.charCodeAt(i + hashes) !== QUOTE) return i + Math.max(hashes, 1); // #true, #null
  const multi = text.startsWith('"""', i + hashes);
  const open = i + hashes + (multi ? 3 : 1);
  if (hashes > 0) {
    // Raw: no escapes; closed by the quote(s) and as many #.
    const close = `${multi ? '"""' : '"'}${'#'.repeat(hashes)}`;
    const end = text.indexOf(close, open);
    const stop = end === -1 ? text.length : end + close.length;
    advanceTo(stop);
    return stop;
  }
  let j = open;
  while (j < text.length) {
    const c = text.charCodeAt(j);
    if (c === BACKSLASH) j += 2;
    else if (multi ? text.startsWith('"""', j) : c === QUOTE) {
      j += multi ? 3 : 1;
      break;
    } else if (!multi && c === NL)
      break; // not closed on its line: the parser refuses it
    else j++;
  }
  advanceTo(Math.min(j, text.length));
  return Math.min(j, text.length);
}
