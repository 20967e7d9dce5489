/**
 * The backend contract (architecture.md, "Adding a backend kind"): what a backend kind
 * provides, and what each grant's prepared backend is called with and answers. A kind's
 * module imports this file and nothing of the registry; the registry (registry.ts)
 * imports the kinds, so the two never import each other.
 */
import type { Logger } from 'pino';
import type { CompiledSpec, ToolDescriptor } from '../../compiler/descriptor.js';
import type { EnvelopeInput } from '../../envelope/envelope.js';
import type { CallArguments } from '../call-arguments.js';
import type { CallContext } from '../call-context.js';
import type { Env } from '../../process/env.js';
import type { EngineError } from '../error-catalogue.js';
import type { Redactor } from '../redact.js';
import type { ClientSpanFacts, UpstreamLeg } from '../../telemetry/client-span.js';
import type { McpClientOperation } from '../../telemetry/operation-histograms.js';

export type KindName = ToolDescriptor['backend']['kind'];

/** A grant whose backend is of kind `K`. */
export type GrantOf<K extends KindName> = ToolDescriptor & {
  readonly backend: Extract<ToolDescriptor['backend'], { readonly kind: K }>;
};

export type BackendOutcome =
  | { readonly ok: true; readonly value: EnvelopeInput & { readonly upstreamStatus?: number } }
  | { readonly ok: false; readonly error: EngineError };

/** One grant's backend: prepared once at boot, then called with validated arguments. */
export interface PreparedBackend {
  /** The validated arguments, with the caller's text of their numbers. */
  invoke(args: CallArguments, ctx: CallContext): Promise<BackendOutcome>;
}

/**
 * One grant's backend as its kind prepares it. The registry wraps its `invoke` once
 * (registry.ts): the client span named by `span`, and the upstream call's histogram when
 * `operation` says which; the backend reports through `leg` and writes no telemetry.
 */
export interface KindBackend {
  /** The grant's client span: its name and attributes, built on the first call that records. */
  readonly span: ClientSpanFacts;
  /** A call to an upstream MCP server: the labels it is counted under. */
  readonly operation?: Omit<McpClientOperation, 'errorType'>;
  /** `leg` is UNTRACED when nothing records (and when a test calls the backend bare). */
  invoke(args: CallArguments, ctx: CallContext, leg?: UpstreamLeg): Promise<BackendOutcome>;
}

/** Resources shared by all grants of one kind (an HTTP agent, a database pool). */
export interface KindResources {
  /** Secrets this kind holds, for redaction everywhere. */
  secrets(): readonly string[];
  /** Whole values sent with them (`Bearer <t>`), whose base64 is redacted too. */
  sentValues?(): readonly string[];
  ready?(): Promise<boolean>;
  /**
   * What `/readyz` adds to its answer for this kind (`{servers: {...}}`): the state of
   * parts that do not decide readiness (an upstream down leaves other grants serving).
   */
  readiness?(): Readonly<Record<string, unknown>>;
  close(): Promise<void>;
}

export interface BackendKind<K extends KindName> extends KindResources {
  /** `redact` knows every secret of the gateway: what the backend returns goes through it. */
  prepare(grant: GrantOf<K>, redact: Redactor): KindBackend;
}

export interface KindContext<K extends KindName> {
  readonly env: Env;
  /** The spec's grants of this kind, in spec order. */
  readonly grants: readonly GrantOf<K>[];
  readonly spec: CompiledSpec;
  readonly log?: Pick<Logger, 'warn' | 'info'>;
}

/** What a kind's module exports: opens the kind for a spec's grants of it. */
export type KindFactory<K extends KindName> = (
  ctx: KindContext<K>,
) => BackendKind<K> | Promise<BackendKind<K>>;
