/** What `import mcp` tells on stderr: `drafted N grants from M tools (K skipped: …)`. */
import type { Renamed } from './name-grant.js';

export interface McpImportSummary {
  /** Tools the upstream listed (M). */
  readonly listed: number;
  readonly drafted: number;
  /** Tools that write, left out without --writes, by name. */
  readonly writesLeftOut: readonly string[];
  /** Tools --include and --exclude left out. */
  readonly filteredOut: number;
  /** Tool → why it became no grant (its schema, a filter, a name listed twice). */
  readonly skipped: readonly { readonly tool: string; readonly reason: string }[];
  /** Optional arguments left out of grants that remain (each has its `//` line). */
  readonly leftOut: number;
  readonly renames: readonly Renamed[];
}

export function skippedCount(s: McpImportSummary): number {
  return s.writesLeftOut.length + s.filteredOut + s.skipped.length;
}

export function mcpHeadline(s: McpImportSummary): string {
  const parts = [
    ...(s.writesLeftOut.length > 0
      ? [
          `${s.writesLeftOut.length} that write${s.writesLeftOut.length === 1 ? 's' : ''}, without --writes`,
        ]
      : []),
    ...(s.filteredOut > 0 ? [`${s.filteredOut} left out by --include or --exclude`] : []),
    ...(s.skipped.length > 0 ? [`${s.skipped.length} that no grant can express`] : []),
  ];
  return `drafted ${s.drafted} grant${s.drafted === 1 ? '' : 's'} from ${s.listed} tool${s.listed === 1 ? '' : 's'} (${skippedCount(s)} skipped${parts.length > 0 ? `: ${parts.join(', ')}` : ''})`;
}

export function formatMcpSummary(s: McpImportSummary): string {
  const lines = [mcpHeadline(s)];
  for (const k of s.skipped) lines.push(`  ${oneLine(k.tool)}: ${oneLine(k.reason)}`);
  if (s.writesLeftOut.length > 0)
    lines.push(`  writes (--writes drafts them too): ${s.writesLeftOut.map(oneLine).join(', ')}`);
  if (s.leftOut > 0)
    lines.push(`${s.leftOut} optional arguments left out of their grants (see the // comments)`);
  if (s.renames.length > 0) {
    lines.push(`${s.renames.length} tool names collided and were made unique:`);
    for (const r of s.renames) lines.push(`  ${r.from} → ${r.to}  (${oneLine(r.tool)})`);
  }
  return `${lines.join('\n')}\n`;
}

/** Upstream text on one summary line: a line feed in it would start a line of its own. */
function oneLine(text: string): string {
  return text.replace(/[\r\n]/g, (c) => (c === '\n' ? '\\n' : '\\r'));
}
