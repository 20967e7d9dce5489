/**
 * Document text as KDL writes it: inside a quoted string, or inside a `//` comment.
 * Either way it must not end where we did not end it. KDL 2 reads more characters as a
 * line break than JavaScript's `\s` knows (NEL, U+0085, is one, and ends a comment), and
 * refuses some code points anywhere in a document (NUL and other controls, bidi
 * controls, a BOM after the start, lone surrogates).
 */

/** Every line break of KDL 2: CR, LF, NEL, VT, FF, LS (U+2028) and PS (U+2029). */
const KDL_NEWLINE = /[\r\n\v\f\u0085\u2028\u2029]/g;

/** Code points KDL 2 forbids in a document, and controls a terminal would act on. */
const FORBIDDEN = /[\p{Cc}\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]/gu;

/** A surrogate without its other half: not a Unicode scalar value, so not KDL text. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function codePoint(c: string): string {
  return `\\u{${c.codePointAt(0)!.toString(16)}}`;
}

/** The text KDL can hold: a lone surrogate becomes U+FFFD (it cannot be escaped). */
export function wellFormed(text: string): string {
  return text.replace(LONE_SURROGATE, '\ufffd');
}

/** A KDL 2.0 quoted string: escapes, and no code point KDL forbids in a document. */
export function kdlString(text: string): string {
  const escaped = wellFormed(text)
    .replace(/[\\"]/g, (c) => `\\${c}`)
    .replace(/\n/g, '\\n')
    .replace(/\r/g, '\\r')
    .replace(/\t/g, '\\t')
    .replace(/[\u2028\u2029]/g, codePoint)
    .replace(FORBIDDEN, codePoint);
  return `"${escaped}"`;
}

/**
 * The body of a `//` comment: one line whatever the text holds. Line breaks and runs of
 * white space become one space; what KDL forbids is written as its `\u{…}` escape, which
 * in a comment is plain text for the reader.
 */
export function commentText(text: string): string {
  return text
    .replace(KDL_NEWLINE, ' ')
    .replace(LONE_SURROGATE, codePoint)
    .replace(FORBIDDEN, (c) => (c === '\t' ? ' ' : codePoint(c)))
    .replace(/\s+/g, ' ')
    .trim();
}
