/** What the importer tells on stderr: `imported N of M operations; K skipped`, reasons counted. */
import type { Rename } from './name-tools.js';
import type { ToolsetReport } from './tag-toolsets.js';

export interface ImportSummary {
  /** Operations in the document (each method of each path once). */
  readonly seen: number;
  /** Operations the filters and the read-only default selected (M). */
  readonly selected: number;
  readonly imported: number;
  /** Skip reason → how many operations. */
  readonly skipped: ReadonlyMap<string, number>;
  /** Parameters and fields left out of grants that remain. */
  readonly leftOut: number;
  readonly writesLeftOut: number;
  readonly renames: readonly Rename[];
  /** With `--toolsets=tag`: the toolsets written, and the tools no toolset holds. */
  readonly toolsets?: ToolsetReport;
}

/** Clients that refuse a longer tools list (VS Code, JetBrains, Copilot CLI). */
const CLIENT_TOOL_LIMIT = 128;

export function skippedCount(s: ImportSummary): number {
  return [...s.skipped.values()].reduce((a, b) => a + b, 0);
}

export function headline(s: ImportSummary): string {
  return `imported ${s.imported} of ${s.selected} operations; ${skippedCount(s)} skipped`;
}

export function formatSummary(s: ImportSummary): string {
  const lines = [headline(s)];
  const reasons = [...s.skipped].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  for (const [reason, n] of reasons) lines.push(`  ${String(n).padStart(4)}  ${oneLine(reason)}`);
  if (s.leftOut > 0)
    lines.push(`${s.leftOut} parameters or fields left out of their grants (see the // comments)`);
  if (s.renames.length > 0) {
    lines.push(`${s.renames.length} tool names collided and were made unique:`);
    for (const r of s.renames) lines.push(`  ${r.from} → ${r.to}  (${oneLine(r.source)})`);
  }
  if (s.writesLeftOut > 0)
    lines.push(
      `${s.writesLeftOut} operations that write were not selected (--writes drafts them too)`,
    );
  if (s.toolsets) lines.push(...toolsetLines(s.toolsets));
  if (s.selected === 0)
    lines.push('no operation was selected: check --include, --exclude and --tag');
  return `${lines.join('\n')}\n`;
}

/** How many toolsets, the largest, and every name that is not simply its tag's. */
function toolsetLines(r: ToolsetReport): string[] {
  if (r.toolsets.length === 0) return ['wrote no toolset: no imported operation has a tag'];
  const largest = r.toolsets.reduce((a, b) => (b.tools.length > a.tools.length ? b : a));
  const lines = [
    `wrote ${r.toolsets.length} toolset${r.toolsets.length === 1 ? '' : 's'}, one per tag; the largest: ${largest.name} (${largest.tools.length} tool${largest.tools.length === 1 ? '' : 's'})`,
  ];
  for (const t of r.toolsets) {
    const tags = t.tags.map((g) => JSON.stringify(g)).join(', ');
    if (t.tags.length > 1)
      lines.push(`  toolset ${t.name} holds the tags ${tags}: they give one name`);
    if (t.tools.length > CLIENT_TOOL_LIMIT)
      lines.push(
        `  toolset ${t.name} has ${t.tools.length} tools: some clients refuse more than ${CLIENT_TOOL_LIMIT}; split it by hand or leave tools out with --exclude`,
      );
  }
  for (const { tag, name, why } of r.renamed)
    lines.push(`  toolset ${name} is the tag ${JSON.stringify(tag)}, which ${why}`);
  if (r.untagged > 0)
    lines.push(
      `${r.untagged} imported tool${r.untagged === 1 ? ' has' : 's have'} no tag: /mcp serves ${r.untagged === 1 ? 'it' : 'them'}, no toolset does`,
    );
  return lines;
}

/** A document's text on one summary line: a line feed in it would start a line of its own. */
function oneLine(text: string): string {
  return text.replace(/\n/g, '\\n');
}
