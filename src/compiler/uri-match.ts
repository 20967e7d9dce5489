/**
 * Matching a URI against a resource template, in one pass and with one answer
 * (spec-language.md, "Resources and prompts"). A template is compiled once into a frozen
 * plan of its literals; a match checks the first literal at the start and the last at the
 * end, then walks left to right: each variable holds at least one character and ends
 * where the literal after it first appears, and the last variable holds what is left.
 * A value never holds `/`, `?` or `#`. Nothing is retried, so `x-y-z` against `{a}-{b}`
 * is `a=x`, `b=y-z`, and the work is at most the URI's length times the longest literal.
 *
 * A backtracking regular expression was used before: a template with two variables
 * around a character they may hold cost time quadratic in the URI (cubic with three),
 * enough for one request to stall the event loop for minutes.
 */

/** A URI longer than this, in characters (Unicode code points), matches nothing. */
export const MAX_URI_CHARACTERS = 2048;

/** A compiled template: `literals` has one more piece than there are variables. */
export interface UriPlan {
  readonly literals: readonly string[];
}

/** What a match examined, for tests that bound the work (one step per character compared). */
export interface MatchWork {
  steps: number;
}

export function compileUriPlan(literals: readonly string[]): UriPlan {
  if (literals.length < 1) throw new Error('a URI template has at least one literal piece');
  return Object.freeze({ literals: Object.freeze([...literals]) });
}

/**
 * Whether `uri` is over the bound. Cheap on a huge string: its UTF-16 length alone says
 * so unless it is within twice the bound (a code point is one or two code units).
 */
export function overUriBound(uri: string): boolean {
  if (uri.length <= MAX_URI_CHARACTERS) return false;
  if (uri.length > 2 * MAX_URI_CHARACTERS) return true;
  let count = 0;
  for (const _ of uri) if (++count > MAX_URI_CHARACTERS) return true;
  return false;
}

/** `uri` holds `literal` at `at`; counts each character compared. */
function holdsAt(uri: string, literal: string, at: number, work: MatchWork | undefined): boolean {
  for (let i = 0; i < literal.length; i++) {
    if (work) work.steps++;
    if (uri.charCodeAt(at + i) !== literal.charCodeAt(i)) return false;
  }
  return true;
}

const SLASH = 0x2f;
const QUESTION = 0x3f;
const HASH = 0x23;

function forbidden(code: number): boolean {
  return code === SLASH || code === QUESTION || code === HASH;
}

/** A last value holds only allowed characters; counts one step per character. */
function allAllowed(uri: string, from: number, to: number, work: MatchWork | undefined): boolean {
  for (let i = from; i < to; i++) {
    if (work) work.steps++;
    if (forbidden(uri.charCodeAt(i))) return false;
  }
  return true;
}

/** The variables' raw text (not decoded), in order; undefined when `uri` does not match. */
export function matchUri(
  plan: UriPlan,
  uri: string,
  work?: MatchWork,
): readonly string[] | undefined {
  if (overUriBound(uri)) return undefined;
  const { literals } = plan;
  const last = literals.length - 1;
  const head = literals[0]!;
  if (last === 0) return uri === head ? [] : undefined;
  const tail = literals[last]!;
  // The last variable ends where the last literal begins: the URI's end minus that literal.
  const end = uri.length - tail.length;
  if (end <= head.length || !holdsAt(uri, head, 0, work) || !holdsAt(uri, tail, end, work))
    return undefined;
  const values: string[] = [];
  let start = head.length;
  for (let v = 1; v < last; v++) {
    const literal = literals[v]!;
    // After this literal come at least one character and the last literal: room to stop.
    const limit = end - literal.length - 1;
    let at = start;
    if (work) work.steps++;
    if (forbidden(uri.charCodeAt(at))) return undefined;
    for (at++; ; at++) {
      if (at > limit) return undefined;
      if (holdsAt(uri, literal, at, work)) break;
      if (work) work.steps++;
      if (forbidden(uri.charCodeAt(at))) return undefined;
    }
    values.push(uri.slice(start, at));
    start = at + literal.length;
  }
  if (start >= end || !allAllowed(uri, start, end, work)) return undefined;
  values.push(uri.slice(start, end));
  return values;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function escapeInClass(s: string): string {
  return s.replace(/[\]\\^-]/g, '\\$&');
}

/**
 * A regular expression (JSON Schema `pattern`, ECMA-262 with `u`) that holds exactly the
 * URIs `matchUri` matches, below the bound (which a schema states as maxLength). It
 * spells out the same rule, a value stopping at the first place its literal appears, so a
 * client's backtracking engine runs it in linear time too: `[^/?#-]` for a one-character
 * literal, a negative lookahead for a longer one.
 */
export function templatePattern(literals: readonly string[]): string {
  const last = literals.length - 1;
  let source = `^${escapeRegExp(literals[0]!)}`;
  for (let v = 1; v < last; v++) {
    const literal = literals[v]!;
    const rest =
      literal.length === 1
        ? `[^/?#${escapeInClass(literal)}]*`
        : `(?:(?!${escapeRegExp(literal)})[^/?#])*`;
    source += `([^/?#]${rest})${escapeRegExp(literal)}`;
  }
  if (last > 0) source += `([^/?#]+)${escapeRegExp(literals[last]!)}`;
  return `${source}$`;
}
