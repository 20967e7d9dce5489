/**
 * Where a grant's call goes and as whom, as `check` and `tools <spec>` print it
 * (spec-language.md, "Many upstreams and databases in one spec"): its upstream, database
 * or mcp-server, and the kind of credential it is made with (`credentialKind`: service,
 * client-credentials, exchange, user:<provider>, none).
 */
import { credentialKind, type CompiledSpec, type ToolDescriptor } from '../compiler/descriptor.js';

function as(kind: string): string {
  return kind === 'none' ? 'without a credential' : `as ${kind}`;
}

/** `calls upstream github as client-credentials`, `runs on the default database`. */
export function grantRoute(t: ToolDescriptor, spec: CompiledSpec): string {
  const b = t.backend;
  switch (b.kind) {
    case 'http':
      return `calls ${b.upstream === '' ? 'the default upstream' : `upstream ${b.upstream}`} ${as(credentialKind(b.auth))}`;
    case 'sql':
      return `runs on ${b.database === '' ? 'the default database' : `database ${b.database}`}`;
    case 'mcp': {
      const server = spec.mcpServers?.find((s) => s.name === b.server);
      const auth = server?.transport.kind === 'url' ? server.transport.auth : undefined;
      return `calls mcp-server ${b.server} ${as(credentialKind(auth))}`;
    }
  }
}
