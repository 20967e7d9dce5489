/**
 * The backend contract (architecture.md, "Adding a backend kind"): what a backend kind
 * declares of itself (KindDescriptor: one per kind folder, `<kind>/<kind>-kind.ts`, in
 * the one list of kinds.ts), what its runtime provides, and what each grant's prepared
 * backend is called with and answers. A kind's modules import this file and nothing of
 * the registry or the list, so neither is ever imported back.
 */
import type { Logger } from 'pino';
import type { CompiledSpec, CredentialKind, ToolDescriptor } from '../../compiler/descriptor.js';
import type { GrantBackend } from '../../compiler/kinds/grant-backend.js';
import type { EnvelopeInput } from '../../envelope/envelope.js';
import type { CallArguments } from '../call-arguments.js';
import type { CallContext } from '../call-context.js';
import type { Env } from '../../process/env.js';
import type { EngineError, ErrorCode } from '../error-catalogue.js';
import type { Redactor } from '../redact.js';
import type { ClientSpanFacts, UpstreamLeg } from '../../telemetry/client-span.js';
import type { MixedSegment } from '../guards/metachar.js';
import type { McpClientOperation } from '../../telemetry/operation-histograms.js';
import type { ConnectionServices } from '../../connections/connection-services.js';

export type KindName = ToolDescriptor['backend']['kind'];

/** A grant's backend of kind `K`, as the compiler lowered it. */
export type BackendOf<K extends KindName> = Extract<
  ToolDescriptor['backend'],
  { readonly kind: K }
>;

/** A grant whose backend is of kind `K`. */
export type GrantOf<K extends KindName> = ToolDescriptor & { readonly backend: BackendOf<K> };

/** The upstream call of a grant, as the histogram of upstream MCP calls labels it. */
export type UpstreamOperation = Omit<McpClientOperation, 'errorType'>;

/** What `check --live` found of a spec's grants of one kind: one line per problem. */
export interface LiveReport {
  readonly lines: readonly string[];
  readonly failed: boolean;
}

/**
 * Everything a backend kind is, in one place: a new kind is one folder, one variant of
 * the descriptors' `backend` union and one line of kinds.ts. Nothing outside the kind
 * folders asks a grant's kind by name; it asks the kind's descriptor.
 */
export interface KindDescriptor<K extends KindName> {
  readonly kind: K;
  /** How `check`'s counts name the kind ("2 HTTP, 1 MCP"). */
  readonly word: string;
  /** The OpenAPI document's tag of its grants' operations: what they do. */
  readonly tag: string;
  /** Its compiler part: the children it adds to `can`, their check, and its lowering. */
  readonly grant: GrantBackend;
  /**
   * The catalogue codes a grant of this kind can answer besides every grant's: each
   * grant of the kind (true), or those its rule picks. The OpenAPI document lists them
   * per operation.
   */
  readonly codes: Readonly<Partial<Record<ErrorCode, true | ((b: BackendOf<K>) => boolean)>>>;
  /** What `check` prints a grant calls: `GET /repos/{owner}`, `SQL read-only`. */
  target(b: BackendOf<K>): string;
  /**
   * The grant's client span: its name and attributes are the spec's (the grant's name,
   * its upstream as declared), never a value sent.
   */
  span(b: BackendOf<K>, grant: string, spec: CompiledSpec): ClientSpanFacts;
  /**
   * What the grant's upstream call is made as (docs/observability.md, "The identity
   * chain"): static per grant, so audit lines and spans read it from the prepared
   * operation and never work it out per call.
   */
  credential(b: BackendOf<K>, spec: CompiledSpec): CredentialKind;
  /**
   * Where the grant's call goes and as whom, as `check` and `tools <spec>` print it:
   * `calls upstream github as client-credentials`, `runs on the default database`.
   */
  route(b: BackendOf<K>, spec: CompiledSpec): string;
  /** A call counted in the histogram of upstream MCP calls, under these labels. */
  operation?(b: BackendOf<K>): UpstreamOperation;
  /** The literal and variable parts of the path a path value is checked against. */
  pathSegments?(b: BackendOf<K>): readonly MixedSegment[];
  /** How many upstream servers of this kind the spec declares (`check`'s "on 2 servers"). */
  servers?(spec: CompiledSpec): number;
  /**
   * The environment variables its runtime reads when it opens for these grants, so that
   * start-up names every missing one at once (server/spec-environment.ts).
   */
  variables?(spec: CompiledSpec, grants: readonly GrantOf<K>[]): readonly string[];
  /** `check --live` for the spec's grants of this kind; throws when it cannot start. */
  live?(): Promise<
    (spec: CompiledSpec, grants: readonly GrantOf<K>[], env: Env) => Promise<LiveReport>
  >;
  /** Its runtime, imported when a spec first has a grant of this kind. */
  load(): Promise<KindFactory<K>>;
}

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
 * (registry.ts): the client span its descriptor names, and the upstream call's histogram
 * when the descriptor says which; the backend reports through `leg` and writes no telemetry.
 */
export interface KindBackend {
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
  /** With an `oauth-provider`: the process's connected accounts, for `auth user`. */
  readonly connections?: ConnectionServices;
}

/** What a kind's module exports: opens the kind for a spec's grants of it. */
export type KindFactory<K extends KindName> = (
  ctx: KindContext<K>,
) => BackendKind<K> | Promise<BackendKind<K>>;
