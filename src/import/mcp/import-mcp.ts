/**
 * `mcp-beaver import mcp`: an upstream MCP server in, a guarded draft spec out. The
 * server is asked for its tools once; each selected tool becomes one `tool` grant (or
 * a `//` line saying why it could not), the tools taken in the order of their names,
 * so the same server always gives the same bytes whatever order it lists them in.
 */
import type { UpstreamTool } from '../../mcp-upstream/upstream-tools.js';
import type { ProtocolChoice } from '../../mcp-upstream/upstream-session.js';
import { isObject } from '../openapi/json.js';
import { writeKdl } from '../openapi/kdl-nodes.js';
import { ImportError } from '../openapi/load-document.js';
import { countLeftOut } from './count-left-out.js';
import { readBackProblem } from '../openapi/read-back.js';
import { glob } from '../openapi/select-operations.js';
import { firstSentences } from '../openapi/text.js';
import { listUpstreamTools } from './list-upstream-tools.js';
import { mapToolInput } from './map-tool-input.js';
import type { McpDraftEntry, McpDraftGrant, McpDraftSpec, McpTarget } from './mcp-draft.js';
import { mcpHeadline, type McpImportSummary } from './mcp-summary.js';
import { isReadOnlyTool, methodOfHints, nameGrant, uniqueGrantNames } from './name-grant.js';
import { mcpDraftItems } from './render-mcp-draft.js';
import { SERVER_NAME, serverNameFromCommand, serverNameFromUrl } from './server-name.js';

export interface McpImportOptions {
  readonly target: McpTarget;
  readonly writes: boolean;
  readonly protocol: ProtocolChoice;
  /** The `mcp-server` name; derived from the URL or the command when absent. */
  readonly name?: string;
  /** Tool-name patterns (`*` any text): only these; `exclude` wins. */
  readonly include: readonly string[];
  readonly exclude: readonly string[];
  /** Where a stdio server is started (the gateway starts it in the spec's folder). */
  readonly cwd: string;
  readonly timeoutMs: number;
}

export interface McpImportResult {
  readonly text: string;
  readonly summary: McpImportSummary;
}

export async function importMcp(o: McpImportOptions): Promise<McpImportResult> {
  const server =
    o.name ??
    (o.target.kind === 'url'
      ? serverNameFromUrl(o.target.url)
      : serverNameFromCommand(o.target.program, o.target.args));
  if (!SERVER_NAME.test(server))
    throw new ImportError(`--name ${JSON.stringify(server)} is not ^[a-z][a-z0-9-]{0,31}$`, 2);
  const { handshake, tools } = await listUpstreamTools({
    name: server,
    target: o.target,
    protocol: o.protocol,
    cwd: o.cwd,
    timeoutMs: o.timeoutMs,
  });
  const sorted = [...tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const include = o.include.map(glob);
  const exclude = o.exclude.map(glob);

  const slots: ({ tool: UpstreamTool; entry?: McpDraftEntry } | { skip: McpDraftEntry })[] = [];
  const skipped: { tool: string; reason: string }[] = [];
  const writesLeftOut: string[] = [];
  let filteredOut = 0;
  const seen = new Set<string>();
  for (const tool of sorted) {
    const source = sourceLine(tool);
    const skip = (reason: string): void => {
      skipped.push({ tool: tool.name, reason });
      slots.push({ skip: { kind: 'skipped', skipped: { source, reason } } });
    };
    if (seen.has(tool.name)) {
      skip('the upstream lists this name twice; the first is drafted');
      continue;
    }
    seen.add(tool.name);
    if (
      (include.length > 0 && !include.some((r) => r.test(tool.name))) ||
      exclude.some((r) => r.test(tool.name))
    ) {
      filteredOut++;
      continue;
    }
    if (!o.writes && !isReadOnlyTool(tool.annotations)) {
      writesLeftOut.push(tool.name);
      continue;
    }
    slots.push({ tool });
  }
  if (o.include.length + o.exclude.length > 0 && slots.length === 0 && writesLeftOut.length === 0)
    throw new ImportError(
      `no tool matches the filters; the server's tools: ${sorted
        .map((t) => t.name)
        .slice(0, 30)
        .join(', ')}`,
    );

  type Pending = { tool: UpstreamTool; grant: Omit<McpDraftGrant, 'verb' | 'resource'> };
  const pending: Pending[] = [];
  const order: ({ pending: Pending } | { skip: McpDraftEntry })[] = [];
  for (const slot of slots) {
    if ('skip' in slot) {
      order.push(slot);
      continue;
    }
    const { tool } = slot;
    const mapped = mapToolInput(tool.inputSchema);
    if (!mapped.ok) {
      skipped.push({ tool: tool.name, reason: mapped.reason });
      order.push({
        skip: { kind: 'skipped', skipped: { source: sourceLine(tool), reason: mapped.reason } },
      });
      continue;
    }
    const p: Pending = {
      tool,
      grant: {
        source: sourceLine(tool),
        describe: toolDescription(tool, server),
        server,
        tool: tool.name,
        args: mapped.args,
      },
    };
    pending.push(p);
    order.push({ pending: p });
  }
  const { namings, renames } = uniqueGrantNames(
    pending.map((p) => ({
      tool: p.tool.name,
      naming: nameGrant(p.tool.name, p.tool.annotations, server),
    })),
  );
  const named = new Map(pending.map((p, i) => [p, namings[i]!]));
  let leftOut = 0;
  const entries: McpDraftEntry[] = order.map((s) => {
    if ('skip' in s) return s.skip;
    const grant: McpDraftGrant = { ...s.pending.grant, ...named.get(s.pending)! };
    leftOut += countLeftOut(grant.args);
    return { kind: 'grant', grant };
  });

  const summary: McpImportSummary = {
    listed: tools.length,
    drafted: pending.length,
    writesLeftOut,
    filteredOut,
    skipped,
    leftOut,
    renames,
  };
  const info = serverInfo(handshake.result);
  const infoName = typeof info.name === 'string' && info.name.trim() ? info.name.trim() : server;
  const version =
    typeof info.version === 'string' && info.version.trim() ? info.version.trim() : '0.0.0';
  const title = typeof info.title === 'string' && info.title.trim() ? info.title.trim() : infoName;
  const instructions = handshake.result.instructions;
  const describe =
    (typeof instructions === 'string' && firstSentences(instructions, 2, 300)) ||
    `Tools of the MCP server ${infoName} ${version}.`;
  const draft: McpDraftSpec = {
    name: server,
    version,
    title,
    describe,
    target: o.target,
    protocol: o.protocol,
    serverNotes:
      o.target.kind === 'url'
        ? ['A credential goes in `auth` (read from the environment), never in the URL.']
        : [
            "The gateway starts it in the spec's folder, with PATH, HOME and LANG only:",
            'add `env "<NAME>" from-env="<VAR>"` for what else it needs.',
          ],
    preamble: [
      `Drafted by \`mcp-beaver import mcp\` from ${infoName} ${version} (MCP ${handshake.protocolVersion}).`,
      'Review it before serving: every grant is a tool an agent can call. Tighten it with',
      'restrict (allowlists), set (pinned arguments), scope and rate-limit; see docs/spec-language.md.',
      `${mcpHeadline(summary)}.`,
    ],
    entries,
  };
  const items = mcpDraftItems(draft);
  const text = writeKdl(items);
  const problem = readBackProblem(items, text);
  if (problem)
    throw new ImportError(
      `the draft does not read back as the importer wrote it, so nothing was written (${problem})`,
    );
  return { text, summary };
}

/** `initialize` says `serverInfo`; a 2026-07-28 `server/discover` says it in `_meta`. */
function serverInfo(result: Readonly<Record<string, unknown>>): Record<string, unknown> {
  if (isObject(result.serverInfo)) return result.serverInfo;
  const meta = isObject(result._meta) ? result._meta : {};
  const info = meta['io.modelcontextprotocol/serverInfo'];
  return isObject(info) ? info : {};
}

/** `get-sum (read-only)`, `move_file (writes, destructive)`: what the upstream claims. */
function sourceLine(tool: UpstreamTool): string {
  const m = methodOfHints(tool.annotations);
  const hints =
    m === 'GET'
      ? 'read-only'
      : `writes${m === 'POST' ? '' : ', destructive'}${m === 'PUT' ? ', idempotent' : ''}`;
  return `upstream tool ${JSON.stringify(tool.name)} (its hints: ${hints})`;
}

/** The upstream's own description, whole; a tool without one says what it calls. */
function toolDescription(tool: UpstreamTool, server: string): string {
  const d = typeof tool.description === 'string' ? tool.description.trim() : '';
  return d !== '' ? d : `Calls the tool ${tool.name} of the MCP server ${server}.`;
}
