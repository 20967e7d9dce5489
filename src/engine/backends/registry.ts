/**
 * Opens the backend kinds a spec has grants of (architecture.md, "Adding a backend
 * kind": the list of kinds.ts, not a switch). Each kind only ever sees grants of its
 * kind: nothing checks a kind at run time.
 *
 * Each kind's runtime is imported when a spec first has a grant of that kind: a spec
 * without SQL grants never loads `pg`, one without HTTP grants never loads undici
 * (start-up is what a scaling pod waits for).
 */
import type { CompiledSpec, ToolDescriptor } from '../../compiler/descriptor.js';
import type { Redactor } from '../redact.js';
import { ClientSpans, UNTRACED, type ClientSpanFacts } from '../../telemetry/client-span.js';
import type {
  BackendOutcome,
  GrantOf,
  KindBackend,
  KindContext,
  KindDescriptor,
  KindFactory,
  KindName,
  KindResources,
  PreparedBackend,
  UpstreamOperation,
} from './kind.js';
import { KINDS } from './kinds.js';
import type { Observer } from '../../telemetry/observer.js';

type UpstreamCallObserver = Observer['upstreamCall'];

const KIND_NAMES = Object.keys(KINDS) as readonly KindName[];

/** The kinds a spec has grants of, opened: their shared resources as one. */
export interface OpenKinds {
  /** Every kind's secrets, then the whole values sent with them, for the one redactor. */
  secrets(): readonly string[];
  sentValues(): readonly string[];
  /** Every grant's backend by grant name, once the redactor knows every secret. */
  prepareAll(redact: Redactor): ReadonlyMap<string, PreparedBackend>;
  ready(): Promise<boolean>;
  /** Every kind's additions to `/readyz`, merged. */
  readiness(): Readonly<Record<string, unknown>>;
  close(): Promise<void>;
}

/** What opening a kind needs besides its grants. */
export interface OpenContext extends Omit<KindContext<KindName>, 'grants'> {
  /** Told of each call to an upstream MCP server (`mcp_client_operation_duration_seconds`). */
  readonly onUpstreamCall?: UpstreamCallObserver;
}

/**
 * Loads and opens only the kinds `spec` has grants of, in registry order. If one fails
 * to open, the ones already open are closed before the failure is passed on.
 */
export async function openKinds(spec: CompiledSpec, ctx: OpenContext): Promise<OpenKinds> {
  const opened: OpenKind[] = [];
  const { onUpstreamCall, ...kindContext } = ctx;
  try {
    for (const name of KIND_NAMES) {
      const grants = grantsOf(spec.tools, name);
      if (grants.length > 0)
        opened.push(await openKind(name, { ...kindContext, grants }, onUpstreamCall));
    }
  } catch (err) {
    await closeAll(opened.map((k) => k.resources));
    throw err;
  }
  const kinds = opened.map((k) => k.resources);
  return {
    secrets: () => kinds.flatMap((k) => k.secrets()),
    sentValues: () => kinds.flatMap((k) => k.sentValues?.() ?? []),
    prepareAll(redact) {
      const backends = new Map<string, PreparedBackend>();
      for (const k of opened) for (const [name, b] of k.prepareAll(redact)) backends.set(name, b);
      return backends;
    },
    async ready() {
      const checks = await Promise.all(kinds.map((k) => (k.ready ? k.ready() : true)));
      return checks.every(Boolean);
    },
    readiness: () =>
      Object.assign({}, ...kinds.map((k) => k.readiness?.() ?? {})) as Record<string, unknown>,
    close: () => closeAll(kinds),
  };
}

/** One kind opened for a spec: its resources, and its grants' backends once secrets are known. */
interface OpenKind {
  readonly resources: KindResources;
  prepareAll(redact: Redactor): ReadonlyMap<string, PreparedBackend>;
}

/** The spec's grants of kind `kind` (a type guard, so each kind sees its own backend type). */
function grantsOf<K extends KindName>(tools: readonly ToolDescriptor[], kind: K): GrantOf<K>[] {
  return tools.filter((d): d is GrantOf<K> => d.backend.kind === kind);
}

/** Loads the kind's module and opens it for `ctx.grants`. */
async function openKind<K extends KindName>(
  name: K,
  ctx: KindContext<K>,
  onUpstreamCall: UpstreamCallObserver | undefined,
): Promise<OpenKind> {
  const descriptor: KindDescriptor<K> = KINDS[name];
  const factory: KindFactory<K> = await descriptor.load();
  const kind = await factory(ctx);
  return {
    resources: kind,
    prepareAll: (redact) =>
      new Map(
        ctx.grants.map((g) => [
          g.name,
          observed(
            kind.prepare(g, redact),
            new ClientSpans(
              withCredential(
                descriptor.span(g.backend, g.name, ctx.spec),
                descriptor.credential(g.backend, ctx.spec),
              ),
            ),
            descriptor.operation?.(g.backend),
            onUpstreamCall,
          ),
        ]),
      ),
  };
}

/** A grant's client span names what its upstream call is made as (static per grant). */
function withCredential(facts: ClientSpanFacts, credential: string): ClientSpanFacts {
  return {
    name: facts.name,
    attributes: () => ({ ...facts.attributes(), 'mcp_beaver.credential': credential }),
  };
}

/**
 * The one place a backend's upstream call is observed (docs/observability.md, "Spans"
 * and "Metrics"): its client span when the request's span records, and the
 * histogram of a call to an upstream MCP server, as the grant's kind names them. A call nothing observes goes straight
 * to the backend: no span, no timing, no second promise.
 */
function observed(
  backend: KindBackend,
  spans: ClientSpans,
  operation: UpstreamOperation | undefined,
  onUpstreamCall?: UpstreamCallObserver,
): PreparedBackend {
  const counted = operation && onUpstreamCall && { op: operation, onUpstreamCall };
  return {
    invoke(args, ctx) {
      if (!ctx.span?.recording && !counted) return backend.invoke(args, ctx, UNTRACED);
      return traced();

      async function traced(): Promise<BackendOutcome> {
        const started = performance.now();
        const leg = ctx.span?.recording ? spans.leg(ctx.span) : undefined;
        let out: BackendOutcome | undefined;
        try {
          out = await backend.invoke(args, ctx, leg ?? UNTRACED);
        } finally {
          leg?.end(out === undefined || out.ok ? undefined : out.error.code);
        }
        counted?.onUpstreamCall(
          { ...counted.op, ...(!out.ok && { errorType: out.error.code }) },
          (performance.now() - started) / 1000,
        );
        return out;
      }
    },
  };
}

async function closeAll(kinds: readonly KindResources[]): Promise<void> {
  await Promise.allSettled(kinds.map((k) => k.close()));
}
