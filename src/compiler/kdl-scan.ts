/**
 * A walk over KDL 2 text that knows only where comments and strings are: enough to
 * find, when the parser gives up, the mistake it gave up on (a string left open, a
 * brace left open or one too many), whose place the parser cannot know.
 * Comments (`//`, nested `/* *\/`) are skipped; strings, quoted, multi-line (""") and
 * raw (#"..."#), are one mark each; every other character is a mark of its own.
 */
import type { Position } from './diagnostics.js';

export interface Mark extends Position {
  /** The character, or `"` for a whole string. */
  readonly char: string;
  readonly offset: number;
  /**
   * A string that does not close: a quoted one on its line (KDL's "..." may not span
   * lines), a raw or multi-line one before the end of the file.
   */
  readonly open?: 'line' | 'file';
}

export function* scanKdl(text: string): Generator<Mark> {
  let line = 1;
  let lineStart = 0;
  let i = 0;
  const at = (offset: number): Mark => ({
    char: text[offset]!,
    offset,
    line,
    column: offset - lineStart + 1,
  });
  // Moves to `stop`, counting the lines passed.
  const skipTo = (stop: number): void => {
    for (stop = Math.min(stop, text.length); i < stop; i++) {
      if (text[i] === '\n') {
        line++;
        lineStart = i + 1;
      }
    }
  };
  // After a backslash in a string: an escape, or whitespace (line breaks too) it removes.
  const skipEscape = (): void => {
    let end = i + 1;
    while (end < text.length && /\s/.test(text[end]!)) end++;
    skipTo(end > i + 1 ? end : i + 2);
  };
  while (i < text.length) {
    if (text.startsWith('//', i)) {
      const end = text.indexOf('\n', i);
      skipTo(end === -1 ? text.length : end);
    } else if (text.startsWith('/*', i)) {
      // Block comments nest in KDL.
      let depth = 0;
      do {
        if (text.startsWith('/*', i)) {
          depth++;
          skipTo(i + 2);
        } else if (text.startsWith('*/', i)) {
          depth--;
          skipTo(i + 2);
        } else skipTo(i + 1);
      } while (depth > 0 && i < text.length);
    } else if (/^#+"/.test(text.slice(i, i + 256))) {
      // Raw: no escapes, closed by the quote(s) followed by as many #.
      const mark = { ...at(i), char: '"' };
      const hashes = /^#+/.exec(text.slice(i, i + 256))![0];
      const multi = text.startsWith('"""', i + hashes.length);
      const close = `${multi ? '"""' : '"'}${hashes}`;
      const end = text.indexOf(close, i + hashes.length + (multi ? 3 : 1));
      yield end === -1 ? { ...mark, open: 'file' } : mark;
      skipTo(end === -1 ? text.length : end + close.length);
    } else if (text.startsWith('"""', i)) {
      const mark = { ...at(i), char: '"' };
      skipTo(i + 3);
      while (i < text.length && !text.startsWith('"""', i)) {
        if (text[i] === '\\') skipEscape();
        else skipTo(i + 1);
      }
      yield i < text.length ? mark : { ...mark, open: 'file' };
      skipTo(i + 3);
    } else if (text[i] === '"') {
      const mark = { ...at(i), char: '"' };
      skipTo(i + 1);
      let open = false;
      while (i < text.length && text[i] !== '"') {
        if (text[i] === '\n') {
          open = true;
          break;
        }
        if (text[i] === '\\') skipEscape();
        else skipTo(i + 1);
      }
      if (i >= text.length) open = true;
      yield open ? { ...mark, open: 'line' } : mark;
      // An open string is taken to end with its line, so the lines below read as written.
      if (!open) skipTo(i + 1);
    } else {
      yield at(i);
      skipTo(i + 1);
    }
  }
}
