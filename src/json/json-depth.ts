/**
 * How deep a JSON text nests, read without parsing it. Deep nesting is refused before
 * anything recursive (JSON.stringify, validation, truncation) can exhaust the stack:
 * a scan of the bytes is cheap and needs no stack at all.
 *
 * Two shortcuts, both exact: only brackets outside strings nest, so a text holding at
 * most `max` opening brackets anywhere cannot nest deeper (counted with indexOf, which
 * cost ~0.1 µs for a 1 KB answer where the scan below cost ~3.5 µs, more than parsing
 * it); and the scan jumps over strings with indexOf instead of reading them character
 * by character. Any text is judged, JSON or not: an unterminated string runs to the end.
 */
export function nestsDeeperThan(text: string, max: number): boolean {
  if (opensAtMost(text, max)) return false;
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      i = closingQuote(text, i);
      if (i < 0) return false;
    } else if (c === 0x5b || c === 0x7b) {
      depth += 1;
      if (depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth -= 1;
  }
  return false;
}

/** Whether `text` holds at most `max` `[` and `{` together, anywhere. */
function opensAtMost(text: string, max: number): boolean {
  let count = 0;
  for (let i = text.indexOf('{'); i >= 0; i = text.indexOf('{', i + 1))
    if (++count > max) return false;
  for (let i = text.indexOf('['); i >= 0; i = text.indexOf('[', i + 1))
    if (++count > max) return false;
  return true;
}

/**
 * The index of the quote closing the string opened at `open`, or -1 when it is never
 * closed. A quote is escaped when an odd run of backslashes comes right before it (the
 * character before the run is never a pending escape).
 */
function closingQuote(text: string, open: number): number {
  let j = open;
  for (;;) {
    j = text.indexOf('"', j + 1);
    if (j < 0) return -1;
    let b = j - 1;
    while (text.charCodeAt(b) === 0x5c) b--;
    if ((j - 1 - b) % 2 === 0) return j;
  }
}

/** Callers' arguments: far deeper than any real tool input needs. */
export const MAX_INPUT_DEPTH = 64;
/** Upstream answers: generous, yet well inside the stack. */
export const MAX_RESULT_DEPTH = 512;
