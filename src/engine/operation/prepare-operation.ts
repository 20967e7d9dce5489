/**
 * A descriptor turned into an Operation, once at boot (architecture.md, "The data
 * path"): every matcher and check a call runs is built here, so a call only looks up
 * its operation and runs execute.ts. Validators are prepared but compile later
 * (warm-validators.ts, or a grant's first call).
 */
import type { Ajv2020 } from 'ajv/dist/2020.js';
import type { CompiledSpec, ToolDescriptor } from '../../compiler/descriptor.js';
import { prepareShaper } from '../../envelope/shape.js';
import type { PreparedBackend } from '../backends/kind.js';
import { prepareConsent } from '../consent/consent-step.js';
import type { ConsentServices } from '../consent/consent-types.js';
import { prepareClaims } from '../guards/claims.js';
import { prepareExactNumbers } from '../guards/exact-numbers.js';
import { prepareExclusive } from '../guards/exclusive.js';
import { kindOf } from '../backends/kinds.js';
import { prepareNullStripper } from '../guards/optional-nulls.js';
import { prepareRestrict } from '../guards/restrict-matchers.js';
import { createAjv, prepareValidator } from '../guards/validate.js';
import { declaresInheritedName } from '../guards/null-prototype.js';
import type { Operation } from './operation.js';
import { prepareRateLimit, type RateLimiter } from '../rate-limit/rate-limiter.js';

/** What every grant's preparation shares. */
export interface OperationParts {
  /** The spec the grants are of: a grant's upstream and credential are looked up in it. */
  readonly spec?: CompiledSpec;
  /** The first-error and all-errors ajv instances every validator compiles in. */
  readonly fastAjv: Ajv2020;
  readonly fullAjv: Ajv2020;
  /** Counts `rate-limit` grants; absent when the spec has none. */
  readonly limiter?: RateLimiter;
  /** The key and stores of `confirm` / `approve`; absent when no grant has either. */
  readonly consent?: ConsentServices;
  /**
   * Checks already prepared, by the descriptor part they were made of. The compiler
   * makes equal parts one object (compiler/freeze.ts): every grant of a spec with a
   * top-level `restrict` holds the same entries, grants with the same arguments the
   * same input schema. A check keeps nothing of its grant, so grants sharing a part
   * share its check: a 5,000-grant spec built 4,000 copies of one restrict matcher.
   * One map per check, as two parts of different roles may be one object (`[]`).
   */
  readonly shared?: Record<'restrict' | 'exclusive' | 'stripNulls', WeakMap<object, unknown>>;
}

/** `make(part)`, once per part object in `shared`. */
function sharedBy<P extends object, T>(
  shared: WeakMap<object, unknown> | undefined,
  part: P,
  make: (part: P) => T,
): T {
  if (!shared) return make(part);
  if (shared.has(part)) return shared.get(part) as T;
  const made = make(part);
  shared.set(part, made);
  return made;
}

/** Every grant of `spec` prepared on its backend, by name (a Map: `__proto__` finds nothing). */
export function prepareOperations(
  spec: CompiledSpec,
  backends: ReadonlyMap<string, PreparedBackend>,
  limiter: RateLimiter | undefined,
  consent?: ConsentServices,
): ReadonlyMap<string, Operation> {
  const tools = spec.tools;
  const parts: OperationParts = {
    spec,
    fastAjv: createAjv(false, { metaCheck: false }),
    fullAjv: createAjv(true, { metaCheck: false }),
    ...(limiter && { limiter }),
    ...(consent && { consent }),
    shared: { restrict: new WeakMap(), exclusive: new WeakMap(), stripNulls: new WeakMap() },
  };
  return new Map(tools.map((d) => [d.name, prepareOperation(d, backends.get(d.name)!, parts)]));
}

export function prepareOperation(
  d: ToolDescriptor,
  backend: PreparedBackend,
  { spec, fastAjv, fullAjv, limiter, consent: services, shared }: OperationParts,
): Operation {
  const rateLimit =
    d.limits.rateLimit && limiter && prepareRateLimit(d.name, d.limits.rateLimit, limiter);
  // The consent step counts the rate limit of its grant itself (consent-step.ts).
  const consent = services && prepareConsent(d, services, rateLimit || undefined);
  if (d.consent && !consent)
    throw new Error(`grant ${d.name} has confirm/approve but no consent services`);
  const restrict = sharedBy(shared?.restrict, d.restrict, prepareRestrict);
  const exclusive = sharedBy(shared?.exclusive, d.exclusive, prepareExclusive);
  const stripNulls = sharedBy(shared?.stripNulls, d.inputSchema, prepareNullStripper);
  const bindClaims = prepareClaims(d.name, d.arguments);
  return {
    name: d.name,
    descriptor: d,
    pathArgs: d.arguments
      .filter((a) => a.in === 'path' && a.fromClaim === undefined)
      .map((a) => a.name),
    pathSegments: kindOf(d.backend).pathSegments?.(d.backend) ?? [],
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
    ...(bindClaims && { bindClaims }),
    claimPathArgs: d.arguments
      .filter((a) => a.in === 'path' && a.fromClaim !== undefined)
      .map((a) => a.name),
    ...(consent && { consent }),
    backend,
    // Without its spec (a test preparing one grant) a grant's upstream is unknown: 'none'.
    credential: spec ? kindOf(d.backend).credential(d.backend, spec) : 'none',
    ...(d.shape && { shape: prepareShaper(d.shape) }),
  };
}
