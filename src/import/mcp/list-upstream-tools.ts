/**
 * Asks the upstream for its tools through the gateway's own connection layer
 * (engine/backends/mcp), so the importer sees the server exactly as `serve` will: the
 * same handshake (`protocol`), the same stdio environment (PATH, HOME, LANG only), the
 * same caps. The child is stopped, or the session ended, before the draft is written.
 */
import { openMcpUpstream, type McpUpstream } from '../../mcp-upstream/mcp-upstream.js';
import type { UpstreamTool } from '../../mcp-upstream/upstream-tools.js';
import type { Handshake, ProtocolChoice } from '../../mcp-upstream/upstream-session.js';
import { ImportError } from '../openapi/load-document.js';
import type { McpTarget } from './mcp-draft.js';

/** The largest message read from the upstream: a long tools/list page fits. */
const MAX_MESSAGE_BYTES = 16 << 20;

export interface Listed {
  readonly handshake: Handshake;
  readonly tools: readonly UpstreamTool[];
}

export interface ListOptions {
  readonly name: string;
  readonly target: McpTarget;
  readonly protocol: ProtocolChoice;
  /** A stdio server's working directory. */
  readonly cwd: string;
  readonly timeoutMs: number;
}

export async function listUpstreamTools(o: ListOptions): Promise<Listed> {
  // The child's stderr is kept to quote when it will not answer.
  const said: string[] = [];
  const opened = openMcpUpstream({
    name: o.name,
    transport:
      o.target.kind === 'url'
        ? { kind: 'url', url: o.target.url, headers: {} }
        : {
            kind: 'command',
            program: o.target.program,
            args: o.target.args,
            cwd: o.cwd,
            env: {},
            // One start: a server that exits at once is an error now, not in a second.
            restart: { firstMs: 60_000, maxMs: 60_000 },
          },
    protocol: o.protocol,
    timeoutMs: o.timeoutMs,
    maxMessageBytes: MAX_MESSAGE_BYTES,
    redact: (t) => t,
    log: (_level, message) => {
      if (said.length < 5) said.push(message);
    },
  });
  if (!opened.ok) throw new ImportError(opened.message);
  const upstream: McpUpstream = opened.upstream;
  try {
    const shook = await upstream.connect();
    if (!shook.ok) throw new ImportError(failure('no handshake', shook.error.message, said));
    const listed = await upstream.listTools();
    if (!listed.ok) throw new ImportError(failure('tools/list failed', listed.error.message, said));
    return { handshake: shook.value, tools: listed.value };
  } finally {
    await upstream.close();
  }
}

function failure(what: string, message: string, said: readonly string[]): string {
  const last = said[said.length - 1];
  return `${what}: ${message}${last ? ` (last said: ${last})` : ''}`;
}
