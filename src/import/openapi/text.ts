/** Descriptions an agent reads: plain text, a sentence or two, never a page of Markdown. */

/** Markdown and HTML reduced to the words: links keep their text, notes and lists go. */
export function plainText(markdown: string): string {
  return markdown
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .filter((line) => !/^\s*>\s*\[!\w+\]\s*$/.test(line)) // GitHub "> [!NOTE]" markers
    .map((line) => line.replace(/^\s*(>\s*)+/, '').replace(/^\s*#+\s+/, ''))
    .join('\n')
    .replace(/<[^>\n]{1,200}>/g, ' ')
    .replace(/!?\[([^\]\n]*)\]\([^)\s]*\)/g, '$1')
    .replace(/\*\*([^*\n]+)\*\*/g, '$1')
    .replace(/(^|[\s(])_(\S(?:[^_\n]*\S)?)_(?=$|[\s.,;:!?)])/g, '$1$2') // _emphasis_
    .replace(/\s+/g, ' ')
    .trim();
}

/** The first `count` sentences of the text, at most `maxChars` long (cut at a word). */
export function firstSentences(text: string, count: number, maxChars: number): string {
  const plain = plainText(text);
  if (plain === '') return '';
  const parts = plain.split(/(?<=[.!?])\s+(?=[A-Z0-9`"'(])/);
  let out = '';
  for (const p of parts.slice(0, count)) {
    const next = out === '' ? p : `${out} ${p}`;
    if (next.length > maxChars && out !== '') break;
    out = next;
  }
  if (out.length > maxChars) {
    const cut = out.slice(0, maxChars - 3);
    const space = cut.lastIndexOf(' ');
    out = `${(space > maxChars / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:.]+$/, '')}...`;
  }
  return out;
}

function asSentence(text: string): string {
  return /[.!?]$/.test(text) || text.endsWith('...') ? text : `${text}.`;
}

/**
 * A grant's `describe`: the summary, and the description's first sentence when it says
 * something the summary does not; the description's first two sentences without a summary.
 */
export function operationDescription(
  summary: unknown,
  description: unknown,
  fallback: string,
): string {
  const s = typeof summary === 'string' ? firstSentences(summary, 1, 200) : '';
  const d = typeof description === 'string' ? description : '';
  if (s === '') {
    const text = firstSentences(d, 2, 300);
    return text === '' ? fallback : asSentence(text);
  }
  // A description often opens by repeating the summary: then its next sentence is the
  // one that adds something, and one that only extends the summary replaces it.
  const sentences = firstSentences(d, 2, 400).split(/(?<=[.!?])\s+(?=[A-Z0-9`"'(])/);
  let extra = sentences[0] ?? '';
  if (extra !== '' && sameWords(extra, s)) extra = sentences[1] ?? '';
  else if (extends_(extra, s)) return asSentence(firstSentences(extra, 1, 300));
  extra = extra === '' ? '' : firstSentences(extra, 1, 200);
  if (extra === '' || sameWords(extra, s)) return asSentence(s);
  return `${asSentence(s)} ${asSentence(extra)}`;
}

/** Whether `text` starts with the words of `summary` ("List pets" / "List pets of a store."). */
function extends_(text: string, summary: string): boolean {
  const words = (t: string): string =>
    t
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, ' ')
      .trim();
  const head = words(summary);
  return head !== '' && words(text).startsWith(`${head} `);
}

/** A bound stated only in words ("(max 100)", "Maximum 50."): kept when the cut drops it. */
const STATED_BOUND = /\((?:max(?:imum)?|min(?:imum)?|up to|at most|at least)\.?:? [^()]{1,40}\)/i;

/**
 * A field's `describe=`: one sentence. A bound the document states only in its words is
 * kept in them (it is not made a `max`: prose is not a schema, but the agent should read it).
 */
export function fieldDescription(...candidates: unknown[]): string | undefined {
  for (const c of candidates) {
    if (typeof c !== 'string') continue;
    const text = firstSentences(c, 1, 160);
    if (text === '') continue;
    const bound = STATED_BOUND.exec(plainText(c))?.[0];
    return bound && !text.includes(bound) ? `${asSentence(text)} ${bound}` : asSentence(text);
  }
  return undefined;
}

const FILLER = new Set([
  'a',
  'an',
  'the',
  'of',
  'in',
  'on',
  'for',
  'to',
  'by',
  'and',
  'or',
  'with',
]);

/** Whether every word of `a` is already in `b` ("List issues in a repository" / "List repository issues"). */
function sameWords(a: string, b: string): boolean {
  const bag = (t: string): string[] =>
    t
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter((w) => w && !FILLER.has(w))
      .map((w) => w.replace(/s$/, ''));
  const have = new Set(bag(b));
  return bag(a).every((w) => have.has(w));
}
