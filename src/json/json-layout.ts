/**
 * How a JSON text is laid out, read in one scan without parsing it: whether it nests
 * deeper than a bound (json-depth.ts says why that is refused before anything
 * recursive runs) and whether it is compact, so that the gateway can pass the text on
 * as the upstream wrote it instead of serializing what it parsed again.
 *
 * Compact means no whitespace between tokens (whitespace around the whole value is
 * trimmed) and no backslash anywhere: then every string the parser decodes is spelled
 * in the text exactly as it is decoded, so a scan of the text for a secret is a scan of
 * every key and value (engine/redact.ts), and the text is the value's JSON as a
 * client parses it. Strings are jumped over with indexOf; only the characters between
 * them are read one by one.
 */
import { nestsDeeperThan } from './json-depth.js';

/** What `layoutOf` found. */
export type Layout =
  | { readonly kind: 'too-deep' }
  /** Valid or not (the parser decides), the text cannot be passed on as it is. */
  | { readonly kind: 'spaced' }
  /** `text.slice(start, end)` is the whole value, compact. */
  | { readonly kind: 'compact'; readonly start: number; readonly end: number };

const TOO_DEEP: Layout = { kind: 'too-deep' };
const SPACED: Layout = { kind: 'spaced' };

/** Whether `c` is whitespace as JSON defines it (space, tab, line feed, carriage return). */
function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

/**
 * The layout of `text`, nesting at most `maxDepth` deep. A text holding a backslash is
 * never compact (its strings may decode to other spellings): only its depth is read.
 */
export function layoutOf(text: string, maxDepth: number): Layout {
  let start = 0;
  let end = text.length;
  while (start < end && isSpace(text.charCodeAt(start))) start++;
  while (end > start && isSpace(text.charCodeAt(end - 1))) end--;
  // Escapes: only the depth is asked (json-depth.ts reads escaped quotes right).
  if (text.indexOf('\\', start) >= 0) return nestsDeeperThan(text, maxDepth) ? TOO_DEEP : SPACED;
  let compact = true;
  let depth = 0;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      i = text.indexOf('"', i + 1);
      // An unterminated string runs to the end: nothing past it nests.
      if (i < 0) return SPACED;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > maxDepth) return TOO_DEEP;
    } else if (c === 0x5d || c === 0x7d) depth -= 1;
    else if (compact && isSpace(c)) compact = false;
  }
  return compact ? { kind: 'compact', start, end } : SPACED;
}
