/**
 * Where a quoted string that never closes on its line opened. KDL's "..." strings may
 * not span lines, so a missing closing quote makes the parser fail far below, at the next
 * quote it pairs with; a syntax error is then reported at the opening quote instead.
 */
import type { Position } from './diagnostics.js';
import { scanKdl } from './kdl-scan.js';

export function unterminatedString(text: string): Position | undefined {
  for (const mark of scanKdl(text)) {
    if (mark.open === 'line') return { line: mark.line, column: mark.column };
  }
  return undefined;
}
