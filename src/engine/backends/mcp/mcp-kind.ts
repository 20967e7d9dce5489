/**
 * The `mcp` kind (spec-language.md, "Upstream MCP servers"): a grant with `tool` calls
 * one tool of a declared `mcp-server`. Everything the rest of the gateway knows of the
 * kind is here; its runtime (mcp-backend.ts) loads only with a grant of it.
 */
import { credentialKind } from '../../../compiler/descriptor.js';
import { MCP_GRANT } from '../../../compiler/kinds/mcp-grant.js';
import { mcpClientAttributes, mcpClientSpanName } from '../../../telemetry/conventions.js';
import type { KindDescriptor } from '../kind.js';
import { serverVariables } from './server-variables.js';
import { asCredential } from '../route-words.js';

export const MCP_KIND: KindDescriptor<'mcp'> = {
  kind: 'mcp',
  word: 'MCP',
  tag: 'Grants that call one tool of an upstream MCP server.',
  grant: MCP_GRANT,
  codes: {
    UPSTREAM_TIMEOUT: true,
    UPSTREAM_TOOL_ERROR: true,
    UPSTREAM_ERROR: true,
    UPSTREAM_UNAVAILABLE: true,
    UPSTREAM_PROTOCOL: true,
  },
  target: (b) => `MCP ${b.server} ${b.tool}`,
  span: (b, _grant, spec) => ({
    name: () => mcpClientSpanName(b.tool),
    attributes: () =>
      mcpClientAttributes(
        b.tool,
        b.server,
        spec.mcpServers?.find((s) => s.name === b.server)?.transport,
      ),
  }),
  // A server over HTTP is called with its transport's `auth`; a stdio child is started
  // by the gateway and sent no credential ('none': its environment is its own affair).
  credential: (b, spec) => {
    const transport = spec.mcpServers?.find((s) => s.name === b.server)?.transport;
    return credentialKind(transport?.kind === 'url' ? transport.auth : undefined);
  },
  route(b, spec) {
    return `calls mcp-server ${b.server} ${asCredential(this.credential(b, spec))}`;
  },
  // The upstream's tool name is the spec's (`tool=`), so the label is bounded by it.
  operation: (b) => ({ server: b.server, method: 'tools/call', tool: b.tool }),
  servers: (spec) => spec.mcpServers?.length ?? 0,
  variables: (spec, grants) => serverVariables(spec.mcpServers ?? [], grants),
  live: async () => (await import('./live-check.js')).liveCheck,
  load: async () => (await import('./mcp-backend.js')).createMcpKind,
};
