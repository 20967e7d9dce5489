/**
 * The one port the pipeline reports through (docs/observability.md): each finished tool
 * call (the gateway, engine/gateway.ts) and each call to an upstream MCP server (the
 * backend registry, engine/backends/registry.ts, which also makes every grant's client
 * span, client-span.ts). The server builds one (server/audit.ts: the audit line and the
 * metrics, metrics.ts); nothing else in the engine learns where an event goes.
 *
 * Telemetry imports nothing of the engine, which reports through it: a code is the
 * catalogue's (engine/error-catalogue.ts), spelled here as text.
 */
import type { McpClientOperation } from './operation-histograms.js';

/** What the audit line and the metrics learn of one finished tool call: never its arguments. */
export interface CallEvent {
  readonly tool: string;
  readonly caller: string;
  /** The OAuth client the caller's token was issued to (`azp`, else `client_id`). */
  readonly client?: string | undefined;
  /**
   * What the upstream was called as: `service`, `client-credentials`, `exchange`,
   * `user:<provider>` or `none` (compiler/descriptor.ts `CredentialKind`), the grant's.
   */
  readonly credential: string;
  /** Where the call came from (engine/call-context.ts `CallOrigin`). */
  readonly origin?: {
    readonly surface: string;
    readonly era?: string;
    readonly requestId?: string;
    readonly toolset?: string;
  };
  readonly traceId?: string;
  /** 'ok', ASKED (the caller's user is asked first), or the catalogue code of the failure. */
  readonly outcome: string;
  readonly durationMs: number;
  readonly bytes?: number;
  readonly truncated?: boolean;
  readonly overBudget?: boolean;
  readonly upstreamStatus?: number;
}

/** The outcome of a call that asked its user first (its name on the audit line and metrics). */
export const ASKED = 'input_required';

export interface Observer {
  /** One tool call finished. */
  call(event: CallEvent): void;
  /** One request to an upstream MCP server answered or failed (`mcp_client_operation_duration_seconds`). */
  upstreamCall(op: McpClientOperation, seconds: number): void;
}
