/**
 * Whether `text` can be JSON at all, from its first and last characters past JSON's own
 * whitespace. A false answer means JSON.parse would throw: a value starts with { [ " - or
 * a digit, t, f or n, and ends with } ] " a digit, e (true, false) or l (null).
 *
 * Why: a text block from an upstream MCP tool is tried as JSON, and most are prose
 * ("Echo: hi", a file's lines). A failed JSON.parse builds a SyntaxError with its message
 * and a stack trace: about 50k instructions, 12 % of a whole proxied tools/call, measured
 * with callgrind (bench/mcp-call-instructions.mjs). This check costs a few.
 */
export function mayBeJson(text: string): boolean {
  let i = 0;
  let j = text.length - 1;
  while (i <= j && isJsonSpace(text.charCodeAt(i))) i++;
  while (j >= i && isJsonSpace(text.charCodeAt(j))) j--;
  if (i > j) return false;
  return canStart(text.charCodeAt(i)) && canEnd(text.charCodeAt(j));
}

/** JSON's whitespace: space, tab, line feed, carriage return (and nothing else). */
function isJsonSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** { [ " - digit t f n */
function canStart(c: number): boolean {
  return (
    c === 0x7b ||
    c === 0x5b ||
    c === 0x22 ||
    c === 0x2d ||
    isDigit(c) ||
    c === 0x74 ||
    c === 0x66 ||
    c === 0x6e
  );
}

/** } ] " digit e l */
function canEnd(c: number): boolean {
  return c === 0x7d || c === 0x5d || c === 0x22 || isDigit(c) || c === 0x65 || c === 0x6c;
}
