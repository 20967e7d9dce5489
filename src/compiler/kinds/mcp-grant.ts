/**
 * The MCP backend of a grant (spec-language.md, "Upstream MCP servers"): `tool "<server>"
 * "<tool>"` names one tool of a declared `mcp-server`, `args { fields }` its arguments
 * (built as a JSON body is: kinds/body-fields.ts) and `set { arg ... }` values pinned
 * into them; the checks of that, and the McpBackend it lowers to.
 */
import { once } from '../common-kinds.js';
import type { Located, Position } from '../diagnostics.js';
import type { JsonScalar, McpBackend } from '../descriptor.js';
import { arg, argAt, type NodeKind } from '../kdl-reader.js';
import { MCP_OUTPUT_SCHEMA } from '../output-schema.js';
import {
  checkObjectFields,
  checkPinnedPath,
  objectPlacements,
  type ObjectWords,
} from './body-fields.js';
import { blockKind, checkExclusive, type FieldBlockSpec } from './field.js';
import type { BackendCheck, CheckedBackend, GrantBackend } from './grant-backend.js';
import { unknownServerMessage } from './mcp-server.js';
import { SET, type SetSpec } from './set.js';

const ARG_WORDS: ObjectWords = {
  label: 'argument',
  key: 'upstream argument name',
  path: 'argument path',
};

interface ToolRef {
  readonly server: Located<string>;
  readonly tool: Located<string>;
  readonly at: Position;
}

/** An MCP grant's own children, as read. */
interface McpSpec {
  readonly tool?: ToolRef;
  readonly args?: FieldBlockSpec;
  readonly set?: Located<readonly SetSpec[]>;
}

/** The declared `mcp-server` names, each with its call timeout. */
type McpSettings = ReadonlyMap<string, number>;

const TOOL: NodeKind<ToolRef> = {
  args: [
    { what: 'an mcp-server name (tool "tracker" "search_issues")', type: 'string' },
    { what: 'the upstream tool name (tool "tracker" "search_issues")', type: 'string' },
  ],
  build(n, { diag, subject }) {
    const server = arg<string>(n, 0);
    const tool = arg<string>(n, 1);
    if (server === undefined || tool === undefined) return undefined;
    if (tool === '')
      diag.error('SPEC_VALUE_TYPE', argAt(n, 1), subject, 'the upstream tool name is empty');
    return {
      server: { value: server, at: argAt(n, 0) },
      tool: { value: tool, at: argAt(n, 1) },
      at: n.at,
    };
  },
};

export const MCP_GRANT: GrantBackend<McpSpec, McpSettings> = {
  name: 'MCP',
  marker: 'tool',
  needs: '`tool "<server>" "<tool>"` (a tool of an mcp-server)',
  either: 'an upstream tool (MCP)',
  children: { tool: once(TOOL), args: once(blockKind('argument')), set: once(SET) },
  outputSchema: MCP_OUTPUT_SCHEMA,
  openWorld: true,
  settings: (top) => top.mcpServers,
  blocks: (s) => [['argument', s.args?.fields ?? []]],
  missing: ({ tool: ref }, servers) =>
    ref && !servers.has(ref.server.value)
      ? {
          code: 'SPEC_UNKNOWN_MCP_SERVER',
          at: ref.server.at,
          message: unknownServerMessage(ref.server.value, [...servers.keys()]),
        }
      : undefined,
  check: checkMcp,
  place: (s) => objectPlacements(s.args?.fields ?? [], 'argument'),
};

function checkMcp(c: BackendCheck<McpSpec, McpSettings>): CheckedBackend {
  const { own: s, diag, subject, claims } = c;
  const ref = s.tool;
  const fields = checkObjectFields(s.args?.fields ?? [], ARG_WORDS, diag, subject, claims);
  checkExclusive(s.args, diag, subject);
  const pins: { path: string[]; value: JsonScalar }[] = [];
  for (const set of s.set?.value ?? []) {
    const here = [...subject, `set ${set.target} ${set.key}`];
    if (set.target !== 'arg') {
      diag.error(
        'SPEC_GRANT_KIND',
        set.at,
        here,
        `\`set ${set.target}\` belongs to HTTP grants; this grant is MCP (use \`set arg\`)`,
      );
      continue;
    }
    checkPinnedPath(set.key, set.at, here, fields.callerPaths, ARG_WORDS, diag);
    if (pins.some((p) => p.path.join('.') === set.key))
      diag.error(
        'SPEC_DUPLICATE',
        set.at,
        here,
        `argument path ${JSON.stringify(set.key)} is pinned twice`,
      );
    pins.push({ path: set.key.split('.'), value: set.value });
  }
  return {
    ok: ref !== undefined,
    placements: fields.placements,
    exclusive: (s.args?.exclusive ?? []).map((x) => x.value.map((n) => n.value)),
    lower: ({ readOnly }): McpBackend => ({
      kind: 'mcp',
      server: ref!.server.value,
      tool: ref!.tool.value,
      fields: fields.trees,
      setArgs: pins,
      timeoutMs: c.grant.timeoutMs ?? c.settings.get(ref!.server.value)!,
      retryOnNewSession: readOnly,
    }),
  };
}
