/**
 * A `tools/call` result as the protocol shapes it, for every reader of one: the `mcp`
 * backend maps an upstream's (mcp-upstream/upstream-tool-result.ts) and the CLI
 * prints a server's (client/print.ts). A peer's word only: each reader checks what it
 * relies on.
 */

/** One block of a result's `content`; `type` says which of the other members it has. */
export interface ContentBlock {
  readonly type: string;
  readonly text?: string;
  readonly mimeType?: string;
  readonly data?: string;
  readonly uri?: string;
  readonly name?: string;
  readonly resource?: { readonly uri?: string; readonly text?: string; readonly mimeType?: string };
}

export interface ToolCallResult {
  readonly content?: readonly ContentBlock[];
  readonly structuredContent?: unknown;
  readonly isError?: boolean;
  readonly _meta?: Readonly<Record<string, unknown>>;
}
