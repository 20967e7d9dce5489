/**
 * The prepared gateway: what one compiled spec serves, and the one call entry point every
 * surface uses. It wires the parts and holds no logic of its own: the backend kinds
 * opened for the spec (backends/registry.ts), every grant prepared as an Operation
 * (prepare-operation.ts), the spec as each URL serves it (`view`, visibility.ts), and per
 * call admission (admission.ts) → execute (execute.ts) → the error redacted once more →
 * the call event (call-event.ts). A surface's gate builds the request scope
 * (call-context.ts) the call reads.
 */
import type { ConnectionServices } from '../connections/connection-services.js';
import type { Logger } from 'pino';
import type { CompiledSpec } from '../compiler/descriptor.js';
import { Admission } from './admission.js';
import { openKinds, type OpenKinds } from './backends/registry.js';
import type { CallArguments } from './call-arguments.js';
import type { AnsweringScope, RequestScope } from './call-context.js';
import { callEvent } from './call-event.js';
import type { Observer } from '../telemetry/observer.js';
import type { Env } from '../process/env.js';
import type { EngineError } from './error-catalogue.js';
import { execute, type Done, type Failed, type Outcome } from './execute.js';
import {
  createConsentServices,
  hasConsent,
  type OwnedConsentServices,
} from './consent/consent-services.js';
import type { ConsentServices } from './consent/consent-types.js';
import type { Operation } from './operation/operation.js';
import { prepareOperations } from './operation/prepare-operation.js';
import { preparePrompts, type PromptCatalog } from './resources-prompts/prompts.js';
import { createMemoryLimiter } from './rate-limit/memory-limiter.js';
import type { RateLimiter } from './rate-limit/rate-limiter.js';
import { makeRedactor, type Redactor } from './redact.js';
import { prepareResources, type ResourceCatalog } from './resources-prompts/resources.js';
import { prepareToolsets, type Toolset } from './view/toolsets.js';
import { prepareView, type GatewayView } from './view/visibility.js';
import { warmValidators } from './operation/warm-validators.js';

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
  /** With an `oauth-provider`: the process's connected accounts (`auth user`). */
  readonly connections?: ConnectionServices;
}

export class Gateway {
  /** The whole spec's view, and each toolset's: its members, then the caller's scopes. */
  private readonly views: Map<Toolset | undefined, GatewayView>;
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
    this.toolsets = prepareToolsets(spec);
    this.resources = prepareResources(
      spec.resources,
      (name) => operations.get(name),
      // A read is answered at once: its scope asks nothing, so the call cannot ask.
      (op, input, scope) => this.call(op, input, { ...scope, questions: undefined }),
      redact,
    );
    this.prompts = preparePrompts(spec.prompts, this.resources, redact);
    const parts = { spec, operations, resources: this.resources, prompts: this.prompts };
    this.views = new Map(
      [undefined, ...this.toolsets.values()].map((t) => [t, prepareView(parts, t)]),
    );
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
        ...(opts.connections && { connections: opts.connections }),
        ...(opts.observer && { onUpstreamCall: opts.observer.upstreamCall }),
      });
      // One matcher for every secret of every kind and the inbound API keys, built before
      // any grant is prepared: backends redact with it where upstream bytes become text.
      const redact = makeRedactor(
        [...kinds.secrets(), ...(opts.extraSecrets ?? [])],
        kinds.sentValues(),
      );
      const operations = prepareOperations(spec, kinds.prepareAll(redact), limiter, consent);
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

  /** A toolset by name; undefined for a name the spec has none of. */
  toolset(name: string): Toolset | undefined {
    return this.toolsets.get(name);
  }

  /** The spec as one URL serves it: `toolset`'s members only, or all of it. */
  view(toolset?: Toolset): GatewayView {
    return this.views.get(toolset)!;
  }

  /**
   * The one call of every surface: a grant with `confirm` or `approve` may answer with a
   * question for the caller's user when the scope says the request can be asked.
   */
  call(op: Operation, input: CallArguments, scope: AnsweringScope): Promise<Done | Failed>;
  call(op: Operation, input: CallArguments, scope: RequestScope): Promise<Outcome>;
  async call(op: Operation, input: CallArguments, scope: RequestScope): Promise<Outcome> {
    const started = performance.now();
    let ran: Outcome | Failed | undefined = this.admission.enter();
    if (ran === undefined) {
      try {
        ran = await execute(op, input, scope);
      } finally {
        this.admission.leave();
      }
    }
    // Errors are redacted once more where they leave for every surface: a message may quote
    // anything (an upstream header, a database error), whatever built it.
    const out =
      ran.ok || ran.error === undefined
        ? ran
        : { ok: false as const, error: redactError(this.redact, ran.error) };
    this.observer?.call(callEvent(op, scope, out, performance.now() - started));
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
