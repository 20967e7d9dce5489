/**
 * Backend kinds by descriptor kind (architecture.md, habit 4: a map, not a switch). The
 * map is typed by the descriptors' own `backend.kind` union, so every kind has an entry
 * and each entry only ever sees grants of its kind: nothing checks a kind at run time.
 *
 * Each kind's module is imported when a spec first has a grant of that kind: a spec
 * without SQL grants never loads `pg`, one without HTTP grants never loads undici
 * (start-up is what a scaling pod waits for).
 */
import type { Logger } from 'pino';
import type { CompiledSpec, ToolDescriptor } from '../../compiler/descriptor.js';
import type { Redactor } from '../redact.js';
import type { Env } from '../env.js';
import type { PreparedBackend } from './backend.js';

export type KindName = ToolDescriptor['backend']['kind'];

/** A grant whose backend is of kind `K`. */
export type GrantOf<K extends KindName> = ToolDescriptor & {
  readonly backend: Extract<ToolDescriptor['backend'], { readonly kind: K }>;
};

/** Resources shared by all grants of one kind (an HTTP agent, a database pool). */
export interface KindResources {
  /** Secrets this kind holds, for redaction everywhere. */
  secrets(): readonly string[];
  /** Whole values sent with them (`Bearer <t>`), whose base64 is redacted too. */
  sentValues?(): readonly string[];
  ready?(): Promise<boolean>;
  close(): Promise<void>;
}

export interface BackendKind<K extends KindName> extends KindResources {
  /** `redact` knows every secret of the gateway: what the backend returns goes through it. */
  prepare(grant: GrantOf<K>, redact: Redactor): PreparedBackend;
}

export interface KindContext<K extends KindName> {
  readonly env: Env;
  /** The spec's grants of this kind, in spec order. */
  readonly grants: readonly GrantOf<K>[];
  readonly spec: CompiledSpec;
  readonly log?: Pick<Logger, 'warn' | 'info'>;
}

export type KindFactory<K extends KindName> = (
  ctx: KindContext<K>,
) => BackendKind<K> | Promise<BackendKind<K>>;

export const BACKEND_KINDS: { readonly [K in KindName]: () => Promise<KindFactory<K>> } = {
  http: async () => (await import('./http/http-backend.js')).createHttpKind,
  sql: async () => (await import('./sql/sql-backend.js')).createSqlKind,
};

export const KIND_NAMES = Object.keys(BACKEND_KINDS) as readonly KindName[];

/** One kind opened for a spec: its resources, and its grants' backends once secrets are known. */
export interface OpenKind {
  readonly resources: KindResources;
  prepareAll(redact: Redactor): ReadonlyMap<string, PreparedBackend>;
}

/** The spec's grants of kind `kind` (a type guard, so each kind sees its own backend type). */
export function grantsOf<K extends KindName>(
  tools: readonly ToolDescriptor[],
  kind: K,
): GrantOf<K>[] {
  return tools.filter((d): d is GrantOf<K> => d.backend.kind === kind);
}

/** Loads the kind's module and opens it for `grants`. */
export async function openKind<K extends KindName>(
  name: K,
  ctx: KindContext<K>,
): Promise<OpenKind> {
  const factory: KindFactory<K> = await BACKEND_KINDS[name]();
  const kind = await factory(ctx);
  return {
    resources: kind,
    prepareAll: (redact) => new Map(ctx.grants.map((g) => [g.name, kind.prepare(g, redact)])),
  };
}
