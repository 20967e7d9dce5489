/**
 * Load-time checks of user-written regular expressions (field `pattern=`, `restrict`).
 * ajv runs patterns with the `u` flag on V8's backtracking engine, so a pattern such as
 * `(a+)+$` lets a 50 KB argument stall the event loop. We refuse the shapes that make
 * backtracking super-linear: a repeated group that itself contains a repetition, and
 * backreferences (security.md, "Query and body").
 */
export type PatternCheck = { ok: true } | { ok: false; unsafe: boolean; reason: string };

export function checkPattern(source: string): PatternCheck {
  try {
    new RegExp(source, 'u');
  } catch (err) {
    return { ok: false, unsafe: false, reason: (err as Error).message };
  }
  const reason = findSuperLinear(source);
  return reason ? { ok: false, unsafe: true, reason } : { ok: true };
}

interface Frame {
  repeats: boolean;
}

/** Returns why the pattern is unsafe, or undefined. Assumes the pattern compiles. */
function findSuperLinear(src: string): string | undefined {
  const stack: Frame[] = [{ repeats: false }];
  // What the last atom was: a group whose inside repeats, or anything else.
  let lastGroupRepeats = false;
  let i = 0;
  while (i < src.length) {
    const ch = src[i]!;
    if (ch === '\\') {
      const next = src[i + 1] ?? '';
      if (/[1-9]/.test(next) || (next === 'k' && src[i + 2] === '<')) {
        return 'backreferences can take exponential time';
      }
      i += 2;
      if ((next === 'u' || next === 'p' || next === 'P') && src[i] === '{')
        i = src.indexOf('}', i) + 1;
      lastGroupRepeats = false;
      continue;
    }
    if (ch === '[') {
      i = skipClass(src, i);
      lastGroupRepeats = false;
      continue;
    }
    if (ch === '(') {
      stack.push({ repeats: false });
      i += 1;
      if (src[i] === '?') {
        // (?: (?= (?! (?<= (?<! (?<name>
        i += 1;
        if (src[i] === '<' && src[i + 1] !== '=' && src[i + 1] !== '!') i = src.indexOf('>', i) + 1;
        else i += src[i] === '<' ? 2 : 1;
      }
      continue;
    }
    if (ch === ')') {
      const frame = stack.pop()!;
      lastGroupRepeats = frame.repeats;
      if (frame.repeats) stack[stack.length - 1]!.repeats = true;
      i += 1;
      continue;
    }
    const q = readQuantifier(src, i);
    if (q) {
      if (q.repeats) {
        if (lastGroupRepeats)
          return 'a repeated group contains a repetition (nested quantifiers), which can take exponential time';
        stack[stack.length - 1]!.repeats = true;
      }
      i = q.end;
      continue;
    }
    lastGroupRepeats = false;
    i += 1;
  }
  return undefined;
}

function skipClass(src: string, start: number): number {
  let i = start + 1;
  while (i < src.length && src[i] !== ']') i += src[i] === '\\' ? 2 : 1;
  return i + 1;
}

function readQuantifier(src: string, i: number): { repeats: boolean; end: number } | undefined {
  const ch = src[i];
  let end = i + 1;
  let repeats: boolean;
  if (ch === '*' || ch === '+') repeats = true;
  else if (ch === '?') repeats = false;
  else if (ch === '{') {
    const m = /^\{(\d+)(,(\d*))?\}/.exec(src.slice(i));
    if (!m) return undefined;
    end = i + m[0].length;
    const max = m[2] === undefined ? Number(m[1]) : m[3] === '' ? Infinity : Number(m[3]);
    repeats = max > 1;
  } else return undefined;
  if (src[end] === '?') end += 1; // lazy: same backtracking cost
  return { repeats, end };
}
