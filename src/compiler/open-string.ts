/**
 * Where a quoted string that never closes on its line opened. KDL's "..." strings may
 * not span lines, so a missing closing quote makes the parser fail far below, at the next
 * quote it pairs with; a syntax error is then reported at the opening quote instead.
 * Comments, raw strings (#"..."#) and multi-line strings (""") are skipped.
 */
export interface OpenString {
  readonly line: number;
  readonly column: number;
}

export function unterminatedString(text: string): OpenString | undefined {
  let line = 1;
  let lineStart = 0;
  let i = 0;
  const newline = (at: number): void => {
    line++;
    lineStart = at + 1;
  };
  while (i < text.length) {
    const c = text[i]!;
    if (c === '\n') {
      newline(i);
      i++;
    } else if (text.startsWith('//', i)) {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (text.startsWith('/*', i)) {
      // Block comments nest in KDL.
      let depth = 0;
      do {
        if (text.startsWith('/*', i)) {
          depth++;
          i += 2;
        } else if (text.startsWith('*/', i)) {
          depth--;
          i += 2;
        } else {
          if (text[i] === '\n') newline(i);
          i++;
        }
      } while (depth > 0 && i < text.length);
    } else if (c === '#' && /^#+"/.test(text.slice(i, i + 64))) {
      const hashes = /^#+/.exec(text.slice(i))![0];
      const multi = text.startsWith('"""', i + hashes.length);
      const close = `${multi ? '"""' : '"'}${hashes}`;
      const end = text.indexOf(close, i + hashes.length + (multi ? 3 : 1));
      const stop = end === -1 ? text.length : end + close.length;
      for (let k = i; k < stop; k++) if (text[k] === '\n') newline(k);
      i = stop;
    } else if (text.startsWith('"""', i)) {
      const end = text.indexOf('"""', i + 3);
      const stop = end === -1 ? text.length : end + 3;
      for (let k = i; k < stop; k++) if (text[k] === '\n') newline(k);
      i = stop;
    } else if (c === '"') {
      const open = { line, column: i - lineStart + 1 };
      i++;
      while (i < text.length && text[i] !== '"') {
        if (text[i] === '\\') {
          // A backslash before a newline continues the string on the next line.
          if (text[i + 1] === '\n') newline(i + 1);
          i++;
        } else if (text[i] === '\n') return open;
        i++;
      }
      if (i >= text.length) return open;
      i++;
    } else i++;
  }
  return undefined;
}
