/**
 * The draft `import mcp` builds before it writes KDL: the `mcp-server` node and one
 * `tool` grant per upstream tool (or the reason it is none), in the order written.
 */
import type { ProtocolChoice } from '../../mcp-upstream/upstream-session.js';
import type { DraftBlock, DraftEntry } from '../openapi/draft-types.js';

/** How the gateway reaches the upstream: the spec's `url=` or its `command` child. */
export type McpTarget =
  | { readonly kind: 'url'; readonly url: URL }
  | { readonly kind: 'command'; readonly program: string; readonly args: readonly string[] };

export interface McpDraftGrant {
  /** The comment above the grant: the upstream tool and the hints it claims. */
  readonly source: string;
  readonly verb: string;
  readonly resource: string;
  readonly describe: string;
  readonly server: string;
  readonly tool: string;
  readonly args: DraftBlock;
}

export type McpDraftEntry = DraftEntry<McpDraftGrant>;

export interface McpDraftSpec {
  readonly name: string;
  readonly version: string;
  readonly title: string;
  readonly describe: string;
  readonly target: McpTarget;
  readonly protocol: ProtocolChoice;
  /** `//` lines written just above the `mcp-server` node. */
  readonly serverNotes: readonly string[];
  readonly preamble: readonly string[];
  readonly entries: readonly McpDraftEntry[];
}
