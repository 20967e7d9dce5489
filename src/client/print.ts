/** Terminal output of a remote server's tool list and of a tool call result. */
import type { ContentBlock, ToolCallResult } from '../mcp-wire/tool-call-result.js';

export interface RemoteTool {
  name: string;
  title?: string;
  annotations?: {
    title?: string;
    readOnlyHint?: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint?: boolean;
  };
}

/** One aligned line per tool: name, title, and the hints the server declared. */
export function formatToolList(tools: readonly RemoteTool[]): string {
  const rows = tools.map((t) => [t.name, t.title ?? t.annotations?.title ?? '', hints(t)] as const);
  const nameWidth = Math.max(0, ...rows.map((r) => r[0].length));
  const titleWidth = Math.max(0, ...rows.map((r) => r[1].length));
  return rows
    .map(([name, title, h]) =>
      `${name.padEnd(nameWidth)}  ${title.padEnd(titleWidth)}  ${h}`.trimEnd(),
    )
    .map((line) => `${line}\n`)
    .join('');
}

/**
 * The hints as MCP defines them: a server that annotates a tool leaves out the hints equal
 * to the protocol's defaults (not read-only, destructive, not idempotent, open world; a
 * read-only tool changes nothing, so calling it twice is as calling it once), and
 * mcp-beaver's own lists do. A tool without annotations gets no hints printed: the server
 * said nothing, and defaults alone would read as a claim.
 */
export function hints(t: RemoteTool): string {
  const a = t.annotations;
  if (a === undefined) return '';
  const readOnly = a.readOnlyHint === true;
  const destructive = !readOnly && a.destructiveHint !== false;
  return [
    readOnly ? 'read-only' : destructive ? 'destructive' : 'write',
    readOnly || a.idempotentHint === true ? 'idempotent' : '',
    a.openWorldHint === false ? 'closed-world' : 'open-world',
  ]
    .filter(Boolean)
    .join(' ');
}

/** `structuredContent` pretty-printed when present, the content blocks otherwise. */
export function formatCallResult(result: ToolCallResult): string {
  if (result.structuredContent !== undefined && !result.isError) {
    return `${JSON.stringify(result.structuredContent, null, 2)}\n`;
  }
  const parts = (result.content ?? []).map(describeBlock);
  if (parts.length === 0 && result.structuredContent !== undefined) {
    return `${JSON.stringify(result.structuredContent, null, 2)}\n`;
  }
  return parts.map((p) => (p.endsWith('\n') ? p : `${p}\n`)).join('');
}

function describeBlock(b: ContentBlock): string {
  switch (b.type) {
    case 'text':
      return b.text ?? '';
    case 'image':
    case 'audio':
      return `[${b.type} ${b.mimeType ?? ''}, ${approxBytes(b.data)} bytes]`;
    case 'resource_link':
      return `[resource link ${b.uri ?? ''}${b.name ? ` (${b.name})` : ''}]`;
    case 'resource':
      return (
        b.resource?.text ?? `[resource ${b.resource?.uri ?? ''} ${b.resource?.mimeType ?? ''}]`
      );
    default:
      return `[${b.type} content]`;
  }
}

function approxBytes(base64: string | undefined): number {
  if (!base64) return 0;
  return (
    Math.floor((base64.length * 3) / 4) - (base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0)
  );
}
