/**
 * Load-time checks of user-written regular expressions (field `pattern=`, `restrict`).
 * ajv runs patterns with the `u` flag on V8's backtracking engine, so a pattern such as
 * `(a+)+$` lets a 50 KB argument stall the event loop. We refuse the shapes that make
 * backtracking super-linear: a repeated group that itself contains a repetition, and
 * backreferences (security.md, "Query and body").
 */
export type PatternCheck = { ok: true } | { ok: false; unsafe: boolean; reason: string };

export function checkPattern(source: string): PatternCheck {
  // A pattern is judged by its text alone, and specs repeat theirs (a `branch` field in
  // every grant that writes a file): each text is judged once.
  let verdict = verdicts.get(source);
  if (!verdict) {
    if (verdicts.size >= MAX_VERDICTS) verdicts.clear();
    verdicts.set(source, (verdict = judge(source)));
  }
  return verdict;
}

/** Verdicts by pattern text; cleared when full, so reloads of changing specs stay bounded. */
const verdicts = new Map<string, PatternCheck>();
const MAX_VERDICTS = 10_000;

function judge(source: string): PatternCheck {
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
  alternation: boolean;
}

type Atom =
  | { readonly kind: 'group'; readonly repeats: boolean; readonly alternation: boolean }
  | { readonly kind: 'simple'; readonly source: string };

/** Code points tried when asking whether two single-character atoms can match the same text. */
const SAMPLES = [...Array.from({ length: 0x300 }, (_, i) => i), 0x3b1, 0x416, 0x4e00, 0x1f600].map(
  (c) => String.fromCodePoint(c),
);

function overlaps(a: string, b: string): boolean {
  try {
    const ra = new RegExp(`^(?:${a})$`, 'u');
    const rb = new RegExp(`^(?:${b})$`, 'u');
    return SAMPLES.some((c) => ra.test(c) && rb.test(c));
  } catch {
    return true; // unsure: call it overlapping
  }
}

/**
 * Returns why the pattern is unsafe, or undefined. Assumes the pattern compiles.
 * Three shapes make V8's backtracking super-linear: a repeated group that itself
 * repeats (`(a+)+`), a repeated group of alternatives (`(a|ab)*`, `(\w|\d)+`), and two
 * unbounded repeats in a row that can match the same characters (`[a-z]*[a-z]*`,
 * `\w+\d+`), plus backreferences.
 */
function findSuperLinear(src: string): string | undefined {
  const stack: Frame[] = [{ repeats: false, alternation: false }];
  let last: Atom | undefined;
  // The previous atom when it was a simple one repeated without bound, for overlap.
  let unboundedBefore: string | undefined;
  let i = 0;
  while (i < src.length) {
    const ch = src[i]!;
    const q = last ? readQuantifier(src, i) : undefined;
    if (q) {
      if (q.repeats && last?.kind === 'group') {
        if (last.repeats)
          return 'a repeated group contains a repetition (nested quantifiers), which can take exponential time';
        if (last.alternation)
          return 'a repeated group of alternatives can take exponential time; use a character class such as [ab] instead of (a|b)';
      }
      if (q.unbounded && last?.kind === 'simple') {
        if (unboundedBefore !== undefined && overlaps(unboundedBefore, last.source)) {
          return `two unbounded repetitions in a row (${unboundedBefore} and ${last.source}) can match the same text, which takes polynomial time`;
        }
        unboundedBefore = last.source;
      } else unboundedBefore = undefined;
      if (q.repeats) stack[stack.length - 1]!.repeats = true;
      last = undefined;
      i = q.end;
      continue;
    }
    if (last?.kind === 'simple' || last?.kind === 'group') unboundedBefore = undefined;
    if (ch === '\\') {
      const next = src[i + 1] ?? '';
      if (/[1-9]/.test(next) || (next === 'k' && src[i + 2] === '<')) {
        return 'backreferences can take exponential time';
      }
      const start = i;
      i += 2;
      if ((next === 'u' || next === 'p' || next === 'P') && src[i] === '{')
        i = src.indexOf('}', i) + 1;
      else if (next === 'x') i += 2;
      else if (next === 'u') i += 4;
      last = /[bB]/.test(next) ? undefined : { kind: 'simple', source: src.slice(start, i) };
      continue;
    }
    if (ch === '[') {
      const start = i;
      i = skipClass(src, i);
      last = { kind: 'simple', source: src.slice(start, i) };
      continue;
    }
    if (ch === '(') {
      stack.push({ repeats: false, alternation: false });
      last = undefined;
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
      last = { kind: 'group', repeats: frame.repeats, alternation: frame.alternation };
      if (frame.repeats) stack[stack.length - 1]!.repeats = true;
      i += 1;
      continue;
    }
    if (ch === '|') {
      stack[stack.length - 1]!.alternation = true;
      last = undefined;
      unboundedBefore = undefined;
      i += 1;
      continue;
    }
    last =
      ch === '^' || ch === '$'
        ? undefined
        : { kind: 'simple', source: ch === '.' ? '.' : escapeLiteral(ch) };
    if (ch === '^' || ch === '$') unboundedBefore = undefined;
    i += 1;
  }
  return undefined;
}

function escapeLiteral(ch: string): string {
  return /[.*+?^${}()|[\]\\/-]/.test(ch) ? `\\${ch}` : ch;
}

function skipClass(src: string, start: number): number {
  let i = start + 1;
  while (i < src.length && src[i] !== ']') i += src[i] === '\\' ? 2 : 1;
  return i + 1;
}

function readQuantifier(
  src: string,
  i: number,
): { repeats: boolean; unbounded: boolean; end: number } | undefined {
  const ch = src[i];
  let end = i + 1;
  let max: number;
  if (ch === '*' || ch === '+') max = Infinity;
  else if (ch === '?') max = 1;
  else if (ch === '{') {
    const m = /^\{(\d+)(,(\d*))?\}/.exec(src.slice(i));
    if (!m) return undefined;
    end = i + m[0].length;
    max = m[2] === undefined ? Number(m[1]) : m[3] === '' ? Infinity : Number(m[3]);
  } else return undefined;
  if (src[end] === '?') end += 1; // lazy: same backtracking cost
  // Bounded repeats up to a few hundred keep adjacent overlaps polynomial in a small bound.
  return { repeats: max > 1, unbounded: max > 256, end };
}
