/**
 * `import openapi --toolsets=tag`: one toolset per tag that an imported operation carries
 * (spec-language.md, "Importing with toolsets"). A toolset's name is the last segment of
 * its URL (`^[a-z][a-z0-9-]{0,63}$`), so a tag is folded into one: accents dropped, lower
 * case, each run of other characters one `-`. Everything here depends on the document
 * alone, so the same document gives the same toolsets.
 */
import type { DraftToolset } from './draft-types.js';
import { isObject, type JsonObject } from './json.js';
import { firstSentences } from './text.js';

/** The only value `--toolsets` takes. */
export const TOOLSETS_BY = ['tag'] as const;
export type ToolsetsBy = (typeof TOOLSETS_BY)[number];

/** An imported grant's tool name and its operation's tags. */
export interface TaggedTool {
  readonly tool: string;
  readonly tags: readonly string[];
}

/** What the summary says of the toolsets written. */
export interface ToolsetReport {
  readonly toolsets: readonly DraftToolset[];
  /** Imported tools with no tag: `/mcp` serves them, no toolset does. */
  readonly untagged: number;
  /** Tags whose name is more than the tag folded: why, for the summary. */
  readonly renamed: readonly {
    readonly tag: string;
    readonly name: string;
    readonly why: string;
  }[];
}

const MAX_NAME = 64;
/** Given to a tag with no letter or digit a URL segment can hold (`用户`): `tag-1`, `tag-2`... */
const FALLBACK = 'tag';

/**
 * `Pull Requests` → `pull-requests`, `Bücher` → `bucher`, `2FA` → `tag-2fa` (a name starts
 * with a letter), clipped to 64 characters; undefined when no letter or digit is left.
 */
export function toolsetNameOf(tag: string): string | undefined {
  return foldTag(tag).name;
}

function foldTag(tag: string): { name?: string; why?: string } {
  const folded = tag
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  if (folded === '') return { why: 'has no letter or digit a URL segment can hold' };
  const digit = /^[0-9]/.test(folded);
  const lettered = digit ? `${FALLBACK}-${folded}` : folded;
  const name = lettered.slice(0, MAX_NAME).replace(/-+$/, '');
  if (digit) return { name, why: 'starts with a digit' };
  if (name.length < lettered.length) return { name, why: `is longer than ${MAX_NAME} characters` };
  return { name };
}

/** The operation's tags, each once, in the order it gives them. */
export function operationTags(op: JsonObject): string[] {
  return Array.isArray(op.tags)
    ? [...new Set(op.tags.filter((t): t is string => typeof t === 'string'))]
    : [];
}

/** Each tag's description from the document's `tags` list (the first entry of a name). */
export function tagDescriptions(doc: JsonObject): Map<string, string> {
  const out = new Map<string, string>();
  for (const t of Array.isArray(doc.tags) ? doc.tags : [])
    if (isObject(t) && typeof t.name === 'string' && typeof t.description === 'string')
      if (!out.has(t.name)) out.set(t.name, t.description);
  return out;
}

/**
 * The toolsets, sorted by name; each one's tools in the order given (the spec's). Tags
 * that fold to one name (`Pull Requests`, `pull-requests`) are one toolset: they differ
 * only in case and punctuation. Tags that fold to nothing are numbered in the order they
 * first appear, each a toolset of its own, skipping a name another tag already has.
 */
export function tagToolsets(
  tools: readonly TaggedTool[],
  descriptions: ReadonlyMap<string, string>,
): ToolsetReport {
  const order: string[] = [];
  for (const t of tools) for (const tag of t.tags) if (!order.includes(tag)) order.push(tag);
  const nameOf = new Map<string, string>();
  const whyOf = new Map<string, string>();
  for (const tag of order) {
    const { name, why } = foldTag(tag);
    if (name !== undefined) nameOf.set(tag, name);
    if (why !== undefined) whyOf.set(tag, why);
  }
  const taken = new Set(nameOf.values());
  let n = 0;
  for (const tag of order) {
    if (nameOf.has(tag)) continue;
    let name: string;
    do name = `${FALLBACK}-${++n}`;
    while (taken.has(name));
    taken.add(name);
    nameOf.set(tag, name);
  }
  const renamed = [...whyOf].map(([tag, why]) => ({ tag, name: nameOf.get(tag)!, why }));
  const byName = new Map<string, { tags: string[]; tools: string[] }>();
  for (const tag of order) {
    const name = nameOf.get(tag)!;
    const set = byName.get(name) ?? { tags: [], tools: [] };
    set.tags.push(tag);
    byName.set(name, set);
  }
  let untagged = 0;
  for (const t of tools) {
    if (t.tags.length === 0) untagged += 1;
    for (const tag of t.tags) {
      const members = byName.get(nameOf.get(tag)!)!.tools;
      // Two merged tags on one operation: the tool is one member.
      if (members[members.length - 1] !== t.tool) members.push(t.tool);
    }
  }
  const toolsets = [...byName]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, { tags, tools: members }]): DraftToolset => {
      const described = tags.find((t) => descriptions.has(t));
      const describe = described === undefined ? '' : oneLine(descriptions.get(described)!);
      return { name, tags, tools: members, ...(describe !== '' && { describe }) };
    });
  return { toolsets, untagged, renamed };
}

/**
 * A toolset's `describe`, which a client reads first in the toolset's instructions: the
 * tag description's first sentence, on one line (NEL and other controls, which JavaScript
 * does not count as white space, become spaces too).
 */
function oneLine(description: string): string {
  return firstSentences(description.replace(/\p{Cc}+/gu, ' '), 1, 200);
}
