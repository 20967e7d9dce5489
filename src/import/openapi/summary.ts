/** What the importer tells on stderr: `imported N of M operations; K skipped`, reasons counted. */
import type { Rename } from './name-tools.js';

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
}

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
  if (s.selected === 0)
    lines.push('no operation was selected: check --include, --exclude and --tag');
  return `${lines.join('\n')}\n`;
}

/** A document's text on one summary line: a line feed in it would start a line of its own. */
function oneLine(text: string): string {
  return text.replace(/\n/g, '\\n');
}
