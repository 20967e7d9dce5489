/**
 * The prepared gateway: every grant of a compiled spec turned into an Operation at
 * boot, and the call entry point both surfaces use (lookup, admission, execute).
 */
import { prepareShaper } from '../envelope/shape.js';
import type { CompiledSpec } from '../compiler/descriptor.js';
import type { PreparedBackend } from './backends/backend.js';
import {
  grantsOf,
  KIND_NAMES,
  openKind,
  type KindResources,
  type OpenKind,
} from './backends/backend-kinds.js';
import type { CallContext } from './call-context.js';
import type { Env } from './env.js';
import type { Logger } from 'pino';
import type { Caller } from './caller.js';
import { engineError, type EngineError, type ErrorCode } from './error-catalogue.js';
import type { CallArguments } from './call-arguments.js';
import { execute, type Outcome } from './execute.js';
import { prepareExclusive } from './guards/exclusive.js';
import { mixedSegments } from './guards/metachar.js';
import { prepareNullStripper } from './guards/optional-nulls.js';
import { prepareExactNumbers } from './guards/exact-numbers.js';
import { declaresInheritedName } from './null-prototype.js';
import { prepareRestrict } from './guards/restrict.js';
import { createAjv, prepareValidator } from './guards/validate.js';
import type { Operation } from './operation.js';
import { createMemoryLimiter } from './rate-limit/memory-limiter.js';
import { prepareRateLimit, type RateLimiter } from './rate-limit/rate-limiter.js';
import { makeRedactor, type Redactor } from './redact.js';
import { prepareVisibility, type VisibleTo, type VisibleTools } from './visibility.js';
import { complete, type Completion, type CompletionRef } from './completion.js';
import { preparePrompts, type PromptCatalog, type PromptGet } from './prompts.js';
import { prepareResources, type ResourceCatalog, type ResourceRead } from './resources.js';

/** One finished tool call, as audit logs and metrics see it (never its arguments). */
export interface CallEvent {
  readonly tool: string;
  readonly caller: string;
  readonly origin?: CallContext['origin'];
  readonly traceId?: string;
  /** 'ok' or the catalogue code of the failure. */
  readonly outcome: 'ok' | ErrorCode;
  readonly durationMs: number;
  readonly bytes?: number;
  readonly truncated?: boolean;
  readonly overBudget?: boolean;
  readonly upstreamStatus?: number;
}

export type CallObserver = (event: CallEvent) => void;

export interface GatewayOptions {
  readonly env?: Env;
  /** Calls allowed in flight at once; beyond it calls are shed with OVERLOADED. */
  readonly maxInFlight?: number;
  readonly log?: Pick<Logger, 'warn' | 'info'>;
  /** Credentials held outside the backends (inbound API keys), redacted like the rest. */
  readonly extraSecrets?: readonly string[];
  readonly observer?: CallObserver;
  /**
   * Counts `rate-limit` grants; the server passes one that outlives reloads. Without it
   * a spec with rate limits gets a per-gateway in-process limiter.
   */
  readonly rateLimiter?: RateLimiter;
}

export class Gateway {
  private inFlight = 0;
  private draining = false;
  private readonly idleWaiters: (() => void)[] = [];
  private readonly visible: VisibleTo;
  /** Resources and templates of the spec, matched and read through `call`. */
  readonly resources: ResourceCatalog;
  readonly prompts: PromptCatalog;

  private constructor(
    readonly spec: CompiledSpec,
    readonly operations: ReadonlyMap<string, Operation>,
    private readonly kinds: readonly KindResources[],
    readonly redact: Redactor,
    private readonly maxInFlight: number,
    private readonly observer: CallObserver | undefined,
    private readonly ownedLimiter?: RateLimiter,
  ) {
    this.visible = prepareVisibility([...operations.values()], spec.resources, spec.prompts);
    this.resources = prepareResources(
      spec.resources,
      (name) => operations.get(name),
      (op, input, caller, ctx) => this.call(op, input, caller, ctx),
      redact,
    );
    this.prompts = preparePrompts(spec.prompts, this.resources, redact);
  }

  static async prepare(spec: CompiledSpec, opts: GatewayOptions = {}): Promise<Gateway> {
    const env = opts.env ?? process.env;
    const opened: OpenKind[] = [];
    const ownedLimiter =
      opts.rateLimiter === undefined && spec.tools.some((d) => d.limits.rateLimit)
        ? createMemoryLimiter()
        : undefined;
    const limiter = opts.rateLimiter ?? ownedLimiter;
    try {
      // Only the kinds the spec has grants of are loaded and opened.
      for (const name of KIND_NAMES) {
        const grants = grantsOf(spec.tools, name);
        if (grants.length > 0)
          opened.push(
            await openKind(name, { env, grants, spec, ...(opts.log && { log: opts.log }) }),
          );
      }
      const kinds = opened.map((k) => k.resources);
      // One matcher for every secret of every kind and the inbound API keys, built before
      // any grant is prepared: backends redact with it where upstream bytes become text.
      const redact = makeRedactor(
        [...kinds.flatMap((k) => k.secrets()), ...(opts.extraSecrets ?? [])],
        kinds.flatMap((k) => k.sentValues?.() ?? []),
      );
      const backends = new Map<string, PreparedBackend>();
      for (const k of opened) for (const [name, b] of k.prepareAll(redact)) backends.set(name, b);
      const fastAjv = createAjv(false, { metaCheck: false });
      const fullAjv = createAjv(true, { metaCheck: false });
      const operations = new Map<string, Operation>();
      for (const d of spec.tools) {
        const restrict = prepareRestrict(d.restrict);
        const exclusive = prepareExclusive(d.exclusive);
        const stripNulls = prepareNullStripper(d.inputSchema);
        const rateLimit =
          d.limits.rateLimit && limiter && prepareRateLimit(d.name, d.limits.rateLimit, limiter);
        operations.set(d.name, {
          name: d.name,
          descriptor: d,
          pathArgs: d.arguments
            .filter((a) => a.in === 'path' && a.fromClaim === undefined)
            .map((a) => a.name),
          pathSegments: d.backend.kind === 'http' ? mixedSegments(d.backend.path) : [],
          ...(stripNulls && { stripNulls }),
          ...(rateLimit && { rateLimit }),
          ...(restrict && { restrict }),
          validate: prepareValidator(fastAjv, fullAjv, d),
          exactNumbers: prepareExactNumbers(d.name, d.inputSchema),
          nullPrototype: declaresInheritedName(
            d.inputSchema,
            d.arguments.map((a) => a.name),
          ),
          ...(exclusive && { exclusive }),
          claims: d.arguments
            .filter((a) => a.fromClaim !== undefined)
            .map((a) => ({ arg: a.name, claim: a.fromClaim!, type: a.type })),
          claimPathArgs: d.arguments
            .filter((a) => a.in === 'path' && a.fromClaim !== undefined)
            .map((a) => a.name),
          backend: backends.get(d.name)!,
          ...(d.shape && { shape: prepareShaper(d.shape) }),
        });
      }
      return new Gateway(
        spec,
        operations,
        kinds,
        redact,
        opts.maxInFlight ?? 1024,
        opts.observer,
        ownedLimiter,
      );
    } catch (err) {
      await Promise.allSettled(opened.map((k) => k.resources.close()));
      await ownedLimiter?.close();
      throw err;
    }
  }

  get busy(): number {
    return this.inFlight;
  }

  get isDraining(): boolean {
    return this.draining;
  }

  /** Looks a tool up by name; a Map, so names like `__proto__` find nothing. */
  operation(name: string): Operation | undefined {
    return this.operations.get(name);
  }

  /** The tools this caller may see and call: one frozen view per distinct outcome. */
  visibleTo(caller: Caller): VisibleTools {
    return this.visible(caller);
  }

  /**
   * `resources/read`: fixed content after the scope check, or the `from=` grant called
   * with the URI's variables converted to its field types, through `call`.
   */
  readResource(uri: string, caller: Caller, ctx: CallContext = {}): Promise<ResourceRead> {
    return this.resources.read(uri, caller, ctx);
  }

  /** `prompts/get`: arguments checked, placeholders filled, embedded resources read. */
  getPrompt(
    name: string,
    args: unknown,
    caller: Caller,
    ctx: CallContext = {},
  ): Promise<PromptGet> {
    return this.prompts.get(name, args, caller, ctx);
  }

  /** `completion/complete`: the enum values of a prompt argument or template variable. */
  complete(ref: CompletionRef, argument: string, prefix: string, caller: Caller): Completion {
    return complete(this.prompts, this.resources, ref, argument, prefix, caller);
  }

  async call(
    op: Operation,
    input: CallArguments,
    caller: Caller,
    ctx: CallContext = {},
  ): Promise<Outcome> {
    const started = performance.now();
    const ran = await this.admitAndRun(op, input, caller, ctx);
    // Errors are redacted once more where they leave for both surfaces: a message may quote
    // anything (an upstream header, a database error), whatever built it.
    const out = ran.ok ? ran : { ok: false as const, error: this.redactError(ran.error) };
    if (this.observer) {
      const upstream = out.ok
        ? out.upstreamStatus
        : (out.error.details as { status?: unknown } | undefined)?.status;
      this.observer({
        tool: op.name,
        caller: caller.id,
        ...(ctx.origin && { origin: ctx.origin }),
        ...(ctx.traceId && { traceId: ctx.traceId }),
        outcome: out.ok ? 'ok' : out.error.code,
        durationMs: performance.now() - started,
        ...(out.ok && {
          bytes: out.envelope.envelope.coverage.bytes,
          truncated: out.envelope.envelope.coverage.truncated,
          overBudget: out.envelope.envelope.coverage.over_budget,
        }),
        ...(typeof upstream === 'number' && { upstreamStatus: upstream }),
      });
    }
    return out;
  }

  private redactError(e: EngineError): EngineError {
    if (!this.redact.active) return e;
    const message = this.redact.text(e.message);
    const details = this.redact.value(e.details);
    return message === e.message && details === e.details
      ? e
      : { ...e, message, ...(details !== undefined && { details }) };
  }

  private async admitAndRun(
    op: Operation,
    input: CallArguments,
    caller: Caller,
    ctx: CallContext,
  ): Promise<Outcome> {
    if (this.draining) {
      return {
        ok: false,
        error: engineError('DRAINING', 'the gateway is shutting down; retry on another replica', {
          retryAfter: 1,
        }),
      };
    }
    // Load shedding: past the cap a call is refused at once, never queued.
    if (this.inFlight >= this.maxInFlight) {
      return {
        ok: false,
        error: engineError(
          'OVERLOADED',
          `${this.inFlight} calls are in flight, the most this gateway takes; retry shortly`,
          { retryAfter: 1 },
        ),
      };
    }
    this.inFlight += 1;
    try {
      return await execute(op, input, caller, ctx);
    } finally {
      this.inFlight -= 1;
      if (this.inFlight === 0) for (const w of this.idleWaiters.splice(0)) w();
    }
  }

  async ready(): Promise<boolean> {
    if (this.draining) return false;
    const checks = await Promise.all(this.kinds.map((k) => (k.ready ? k.ready() : true)));
    return checks.every(Boolean);
  }

  /**
   * Compiles every grant's validator in small slices after start-up, so readiness does
   * not wait for them and a first call finds its validator ready. A schema that does
   * not compile is reported through `onProblem`, and that grant answers INTERNAL.
   */
  warmUp(onProblem: (tool: string, message: string) => void): Promise<void> {
    const ops = [...this.operations.values()];
    return new Promise((resolve) => {
      const slice = (from: number): void => {
        for (let i = from; i < Math.min(from + 25, ops.length); i++) {
          try {
            ops[i]!.validate.warm();
          } catch (err) {
            onProblem(ops[i]!.name, (err as Error).message);
          }
        }
        if (from + 25 < ops.length && !this.draining) setImmediate(slice, from + 25);
        else resolve();
      };
      setImmediate(slice, 0);
    });
  }

  /**
   * Resolves when no call is in flight, without refusing new ones: a replaced runtime
   * still serves the requests that picked it up just before the swap.
   */
  whenIdle(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops admitting calls and resolves when the ones in flight have finished. */
  drain(): Promise<void> {
    this.draining = true;
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  async close(): Promise<void> {
    this.draining = true;
    await Promise.allSettled(this.kinds.map((k) => k.close()));
    await this.ownedLimiter?.close();
  }
}
