/**
 * How deep a JSON text nests, read without parsing it. Deep nesting is refused before
 * anything recursive (JSON.stringify, validation, truncation) can exhaust the stack:
 * a scan of the bytes is cheap and needs no stack at all.
 */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i += 1; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth += 1;
      if (depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth -= 1;
  }
  return false;
}

/** Callers' arguments: far deeper than any real tool input needs. */
export const MAX_INPUT_DEPTH = 64;
/** Upstream answers: generous, yet well inside the stack. */
export const MAX_RESULT_DEPTH = 512;
