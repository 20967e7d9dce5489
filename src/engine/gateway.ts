/**
 * The prepared gateway: what one compiled spec serves, and the call entry point both
 * surfaces use. It wires the parts and holds no logic of its own: the backend kinds
 * opened for the spec (backends/registry.ts), every grant prepared as an Operation
 * (prepare-operation.ts), and per call lookup → admission (admission.ts) → execute
 * (execute.ts) → the error redacted once more → the call event (call-event.ts).
 */
import type { Logger } from 'pino';
import type { CompiledSpec } from '../compiler/descriptor.js';
import { Admission } from './admission.js';
import { openKinds, type OpenKinds } from './backends/registry.js';
import type { CallArguments } from './call-arguments.js';
import type { CallContext } from './call-context.js';
import { callEvent } from './call-event.js';
import type { Observer } from '../telemetry/observer.js';
import type { Caller } from './caller.js';
import { complete, type Completion, type CompletionRef } from './completion.js';
import type { Env } from '../process/env.js';
import type { EngineError } from './error-catalogue.js';
import { execute, type Asked, type Outcome } from './execute.js';
import {
  createConsentServices,
  hasConsent,
  type OwnedConsentServices,
} from './consent/consent-services.js';
import type { ConsentChannel, ConsentServices } from './consent/consent-types.js';
import type { Operation } from './operation.js';
import { prepareOperations } from './prepare-operation.js';
import { preparePrompts, type PromptCatalog, type PromptGet } from './prompts.js';
import { createMemoryLimiter } from './rate-limit/memory-limiter.js';
import type { RateLimiter } from './rate-limit/rate-limiter.js';
import { makeRedactor, type Redactor } from './redact.js';
import { prepareResources, type ResourceCatalog, type ResourceRead } from './resources.js';
import { prepareToolsets, type Toolset } from './toolsets.js';
import { prepareVisibility, type VisibleTo, type VisibleTools } from './visibility.js';
import { warmValidators } from './warm-validators.js';

export interface GatewayOptions {
  readonly env?: Env;
  /** Calls allowed in flight at once; beyond it calls are shed with OVERLOADED. */
  readonly maxInFlight?: number;
  readonly log?: Pick<Logger, 'warn' | 'info'>;
  /** Credentials held outside the backends (inbound API keys), redacted like the rest. */
  readonly extraSecrets?: readonly string[];
  /** Told of each finished call, and of each call a backend makes to an upstream MCP server. */
  readonly observer?: Observer;
  /**
   * Counts `rate-limit` grants; the server passes one that outlives reloads. Without it
   * a spec with rate limits gets a per-gateway in-process limiter.
   */
  readonly rateLimiter?: RateLimiter;
  /**
   * The key and stores of `confirm` / `approve`; the server passes ones that outlive
   * reloads. Without them a spec with such grants gets in-process ones of its own.
   */
  readonly consent?: ConsentServices;
}

export class Gateway {
  private readonly visible: VisibleTo;
  /** Each toolset's own views: its members, then the caller's scopes. */
  private readonly visibleInToolset: ReadonlyMap<Toolset, VisibleTo>;
  /** The spec's toolsets by name (spec-language.md, "Toolsets"). */
  readonly toolsets: ReadonlyMap<string, Toolset>;
  /** Resources and templates of the spec, matched and read through `call`. */
  readonly resources: ResourceCatalog;
  readonly prompts: PromptCatalog;

  private constructor(
    readonly spec: CompiledSpec,
    readonly operations: ReadonlyMap<string, Operation>,
    private readonly kinds: OpenKinds,
    readonly redact: Redactor,
    private readonly admission: Admission,
    private readonly observer: Observer | undefined,
    private readonly ownedLimiter?: RateLimiter,
    private readonly ownedConsent?: OwnedConsentServices,
    /** The approvals store calls of this spec park in, when a grant has `approve`. */
    readonly consent?: ConsentServices,
  ) {
    const all = [...operations.values()];
    this.visible = prepareVisibility(all, spec.resources, spec.prompts);
    this.toolsets = prepareToolsets(spec);
    this.visibleInToolset = new Map(
      [...this.toolsets.values()].map((t) => [
        t,
        prepareVisibility(
          all.filter((op) => t.hasTool(op.name)),
          t.resources,
          t.prompts,
        ),
      ]),
    );
    this.resources = prepareResources(
      spec.resources,
      (name) => operations.get(name),
      (op, input, caller, ctx) => this.call(op, input, caller, ctx),
      redact,
    );
    this.prompts = preparePrompts(spec.prompts, this.resources, redact);
  }

  static async prepare(spec: CompiledSpec, opts: GatewayOptions = {}): Promise<Gateway> {
    const ownedLimiter =
      opts.rateLimiter === undefined && spec.tools.some((d) => d.limits.rateLimit)
        ? createMemoryLimiter()
        : undefined;
    const limiter = opts.rateLimiter ?? ownedLimiter;
    let kinds: OpenKinds | undefined;
    let ownedConsent: OwnedConsentServices | undefined;
    try {
      if (opts.consent === undefined && hasConsent(spec))
        ownedConsent = await createConsentServices(spec, {
          env: opts.env ?? process.env,
          ...(opts.log && { log: opts.log }),
        });
      const consent = opts.consent ?? ownedConsent;
      // Only the kinds the spec has grants of are loaded and opened.
      kinds = await openKinds(spec, {
        env: opts.env ?? process.env,
        spec,
        ...(opts.log && { log: opts.log }),
        ...(opts.observer && { onUpstreamCall: opts.observer.upstreamCall }),
      });
      // One matcher for every secret of every kind and the inbound API keys, built before
      // any grant is prepared: backends redact with it where upstream bytes become text.
      const redact = makeRedactor(
        [...kinds.secrets(), ...(opts.extraSecrets ?? [])],
        kinds.sentValues(),
      );
      const operations = prepareOperations(spec.tools, kinds.prepareAll(redact), limiter, consent);
      return new Gateway(
        spec,
        operations,
        kinds,
        redact,
        new Admission(opts.maxInFlight ?? 1024),
        opts.observer,
        ownedLimiter,
        ownedConsent,
        consent,
      );
    } catch (err) {
      await kinds?.close();
      await ownedLimiter?.close();
      await ownedConsent?.close();
      throw err;
    }
  }

  get busy(): number {
    return this.admission.busy;
  }

  get isDraining(): boolean {
    return this.admission.isDraining;
  }

  /**
   * Looks a tool up by name; a Map, so names like `__proto__` find nothing. In a toolset
   * a non-member is not found: the same answer as a name no grant has.
   */
  operation(name: string, toolset?: Toolset): Operation | undefined {
    if (toolset && !toolset.hasTool(name)) return undefined;
    return this.operations.get(name);
  }

  /** A toolset by name; undefined for a name the spec has none of. */
  toolset(name: string): Toolset | undefined {
    return this.toolsets.get(name);
  }

  /**
   * The tools, resources and prompts this caller may see (in `toolset`, its members
   * only): one frozen view per distinct outcome.
   */
  visibleTo(caller: Caller, toolset?: Toolset): VisibleTools {
    return toolset ? this.visibleInToolset.get(toolset)!(caller) : this.visible(caller);
  }

  // Resources, prompts and completion are answered by their own modules; the gateway
  // only hands them the caller, so both surfaces reach them the way they reach `call`.

  /**
   * `resources/read`: fixed content after the scope check, or the `from=` grant called
   * with the URI's variables converted to its field types, through `call`.
   */
  readResource(
    uri: string,
    caller: Caller,
    ctx: CallContext = {},
    toolset?: Toolset,
  ): Promise<ResourceRead> {
    return this.resources.read(uri, caller, ctx, toolset?.hasResource);
  }

  /** `prompts/get`: arguments checked, placeholders filled, embedded resources read. */
  getPrompt(
    name: string,
    args: unknown,
    caller: Caller,
    ctx: CallContext = {},
    toolset?: Toolset,
  ): Promise<PromptGet> {
    return this.prompts.get(name, args, caller, ctx, toolset?.hasPrompt);
  }

  /** `completion/complete`: the enum values of a prompt argument or template variable. */
  complete(
    ref: CompletionRef,
    argument: string,
    prefix: string,
    caller: Caller,
    toolset?: Toolset,
  ): Completion {
    return complete(this.prompts, this.resources, ref, argument, prefix, caller, toolset);
  }

  /** A call from a surface that cannot ask the caller's user anything (REST, 2025 eras, reads). */
  call(
    op: Operation,
    input: CallArguments,
    caller: Caller,
    ctx: CallContext = {},
  ): Promise<Outcome> {
    // Without a channel the consent step never asks: it refuses or parks instead.
    return this.run(op, input, caller, ctx, undefined) as Promise<Outcome>;
  }

  /**
   * A 2026-07-28 tools/call: a grant with `confirm` may answer that it needs the user's
   * answer first (an MRTR input_required), and `channel` carries the retry's answer.
   */
  callAsking(
    op: Operation,
    input: CallArguments,
    caller: Caller,
    ctx: CallContext,
    channel: ConsentChannel,
  ): Promise<Outcome | Asked> {
    return this.run(op, input, caller, ctx, channel);
  }

  private async run(
    op: Operation,
    input: CallArguments,
    caller: Caller,
    ctx: CallContext,
    channel: ConsentChannel | undefined,
  ): Promise<Outcome | Asked> {
    const started = performance.now();
    const ran = await this.admission.run(() => execute(op, input, caller, ctx, channel));
    // Errors are redacted once more where they leave for both surfaces: a message may quote
    // anything (an upstream header, a database error), whatever built it.
    const out =
      ran.ok || ran.error === undefined
        ? ran
        : { ok: false as const, error: redactError(this.redact, ran.error) };
    this.observer?.call(callEvent(op.name, caller, ctx, out, performance.now() - started));
    return out;
  }

  async ready(): Promise<boolean> {
    if (this.admission.isDraining) return false;
    return this.kinds.ready();
  }

  /** What `/readyz` adds beside its status (the state of each upstream MCP server). */
  readiness(): Readonly<Record<string, unknown>> {
    return this.kinds.readiness();
  }

  /**
   * Compiles every grant's validator in the background after start-up
   * (warm-validators.ts); a schema that does not compile is reported through `onProblem`.
   */
  warmUp(onProblem: (tool: string, message: string) => void): Promise<void> {
    return warmValidators(this.operations.values(), onProblem, () => this.admission.isDraining);
  }

  /**
   * Resolves when no call is in flight, without refusing new ones: a replaced runtime
   * still serves the requests that picked it up just before the swap.
   */
  whenIdle(): Promise<void> {
    return this.admission.whenIdle();
  }

  /** Stops admitting calls and resolves when the ones in flight have finished. */
  drain(): Promise<void> {
    return this.admission.drain();
  }

  async close(): Promise<void> {
    this.admission.stop();
    await this.kinds.close();
    await this.ownedLimiter?.close();
    await this.ownedConsent?.close();
  }
}

function redactError(redact: Redactor, e: EngineError): EngineError {
  if (!redact.active) return e;
  const message = redact.text(e.message);
  const details = redact.value(e.details);
  return message === e.message && details === e.details
    ? e
    : { ...e, message, ...(details !== undefined && { details }) };
}
