/**
 * How a refusal words what a caller sent, once for every surface: tools/call's schema
 * errors, prompt arguments, the REST routes' body members, names and URIs nothing
 * serves. An answer stays small however many keys, or how long a name, a request holds:
 * the first MAX_DETAILS problems are named and the rest counted, and quoted text is
 * clipped. Listing them all made 100,000 undeclared prompt arguments (a 1.3 MB request)
 * a 10.8 MB answer, some of it before any scope check.
 */
import { engineError, type EngineError, type FieldProblem } from './error-catalogue.js';

/**
 * Problems reported per refusal at most: allErrors on a huge array of wrong items yields
 * one error per item, and a 4 MiB request must not become a 100 MB answer.
 */
export const MAX_DETAILS = 20;

/** Code points of a caller's key or name quoted in a refusal. */
export const MAX_QUOTED_NAME = 64;
/** Code points of a caller's URI quoted in a refusal. */
export const MAX_QUOTED_URI = 512;

/**
 * INVALID_ARGUMENTS naming the first problems and counting the rest: `shown` may be
 * longer than MAX_DETAILS (it is cut here) or already cut, with `total` the number
 * found. `say` words one problem in the message.
 */
export function invalidArguments(
  lead: string,
  shown: readonly FieldProblem[],
  total: number = shown.length,
  say: (p: FieldProblem) => string = (p) => p.message,
): EngineError {
  const details = shown.slice(0, MAX_DETAILS);
  const more = total - details.length;
  return engineError(
    'INVALID_ARGUMENTS',
    `${lead}: ${details.map(say).join('; ')}${more > 0 ? `; and ${more} more problems` : ''}`,
    { details },
  );
}

/** Problems as a check finds them: the first MAX_DETAILS kept, the rest only counted. */
export class ProblemList {
  readonly shown: FieldProblem[] = [];
  total = 0;

  add(field: string, message: string): void {
    if (++this.total <= MAX_DETAILS) this.shown.push({ field, message });
  }

  /** The refusal, or undefined when nothing was found. */
  refusal(lead: string, say?: (p: FieldProblem) => string): EngineError | undefined {
    return this.total === 0 ? undefined : invalidArguments(lead, this.shown, this.total, say);
  }
}

/** At most `max` code points of `text` (a surrogate pair is not split), `…` marking a cut. */
export function clipped(text: string, max: number = MAX_QUOTED_NAME): string {
  // Cheap test first: a string of at most `max` UTF-16 units has at most `max` code points.
  if (text.length <= max) return text;
  let units = 0;
  let points = 0;
  for (const ch of text) {
    if (points === max) return `${text.slice(0, units)}…`;
    units += ch.length;
    points++;
  }
  return text;
}

// With the u flag a surrogate pair is one code point, so only a lone half matches.
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * Why `text` is no Unicode text, or undefined: a lone surrogate (`"\ud800"` in JSON)
 * has no UTF-8 form, so it can neither be percent-encoded into a URI (encodeURIComponent
 * throws) nor be sent on as text.
 */
export function loneSurrogateProblem(text: string): string | undefined {
  const m = LONE_SURROGATE.exec(text);
  if (!m) return undefined;
  const hex = m[0].charCodeAt(0).toString(16).toUpperCase();
  return `contains U+${hex}, a lone surrogate, which is not Unicode text`;
}
