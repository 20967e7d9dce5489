/**
 * What a checked MCP message carries into dispatch: the request, the era its body
 * declared, and what the route resolved before it (caller, payloads, the gateway).
 * Its own file so the message check and the method tables both read it without
 * importing each other.
 */
import type { Caller } from '../../engine/caller.js';
import type { Cancellation } from '../../outbound/cancellation.js';
import type { EngineError } from '../../engine/error-catalogue.js';
import type { Gateway } from '../../engine/gateway.js';
import type { NumberTexts } from '../../json/number-text.js';
import type { ReplyId } from '../../mcp-wire/json-rpc.js';
import type { Payloads } from './payloads.js';
import type { GatewayView } from '../../engine/view/visibility.js';
import type { Span } from '../../telemetry/span.js';
import type { Telemetry } from '../../telemetry/telemetry.js';
import type { ServedHttpRequest } from '../../telemetry/conventions.js';
import type { SessionSeal } from './session-id.js';
import type { OpenQuestions } from './open-questions.js';

export interface McpDeps {
  readonly gateway: Gateway;
  /** The endpoint's prepared answers: `/mcp`'s, or the toolset's. */
  readonly payloads: Payloads;
  /**
   * The spec as this URL serves it (`/mcp/<toolset>`: the toolset's members): the engine
   * answers a non-member as a name the spec does not have.
   */
  readonly view: GatewayView;
  /** Who is calling, already authenticated by the route. */
  readonly caller: Caller;
  /** The WWW-Authenticate an error's catalogue row asks for (a 403 names the scopes), if any. */
  readonly challenge: (e: EngineError) => string | undefined;
  /** The caller's cancellation, made on first use (only tools/call asks for it). */
  readonly callerCancel: () => Cancellation;
  /** The catalog page's view of one approval, as this request reaches the gateway. */
  readonly approvalUrl: (id: string) => string;
  /**
   * The catalog page's view of one confirmation, likewise; absent where no page is served
   * (stdio), and then no request is sent to one.
   */
  readonly confirmationUrl?: (id: string) => string;
  /** Where the caller connects its account at a provider (`auth user`); absent on stdio. */
  readonly connectUrl?: (provider: string, id: string) => string;
  /** The HTTP `traceparent` header, used when the body carries none. */
  readonly traceparentHeader?: string;
  /** The HTTP `baggage` header, passed on upstream when the body carries none. */
  readonly baggageHeader?: string;
  readonly requestId?: string;
  /** Whether requests get spans (issue 30); TELEMETRY_OFF unless OTLP export is on. */
  readonly telemetry: Telemetry;
  /**
   * The request's server span, once request-span.ts made one (telemetry on only): set
   * there on the request's own deps, not on a copy (a copy cost 3 µs a request).
   */
  span?: Span;
  /** The HTTP request the message came in (absent on stdio): its span's HTTP attributes. */
  readonly http?: ServedHttpRequest;
  /**
   * The 2025 era's sealed session ids (session-id.ts): present where the spec has a grant
   * with `confirm` or `approve` (its consent key seals them), absent on stdio.
   */
  readonly sessions?: SessionSeal;
  /** The request's `Mcp-Session-Id` header, as sent. */
  readonly sessionId?: string;
  /** The 2025-era questions waiting on their answers, for the process (open-questions.ts). */
  readonly questions?: OpenQuestions;
  /** The client's Accept takes `text/event-stream`: a question can be put on the POST's stream. */
  readonly acceptsStream?: boolean;
}

export interface RpcRequest {
  /** Null for a notification. */
  readonly id: ReplyId;
  readonly method: string;
  readonly params: Record<string, unknown> | undefined;
  /** The caller's text of numbers in params a double would change (number-text.ts). */
  readonly paramsTexts: NumberTexts | undefined;
}
