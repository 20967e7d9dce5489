/**
 * The one pipeline every surface calls (architecture.md, "The data path"):
 * scopes → rate limit → optional nulls dropped → metachar gate → restrict → schema → exact numbers →
 * exclusive groups → claims → backend → shape (pick/omit) → envelope. Each guard returns an expected
 * failure as a value; the first one ends
 * the call before anything leaves the gateway.
 *
 * Scopes run first, ahead of the order in the engine issue: a caller who may not
 * call a grant learns nothing about its arguments or allowlists from its errors. The rate
 * limit comes right after, so such a caller spends no quota either.
 *
 * A grant with `confirm` or `approve` runs its consent step (consent/consent-step.ts) on
 * the checked arguments after claims, and the step counts its rate limit
 * (docs/spec-language.md, "Confirmation and approval"): asking, answering and waiting
 * for a person are round trips, not calls, while parking an approval is the call it
 * asks for; a call the step stops sends nothing.
 */
import { buildEnvelope, type BuiltEnvelope } from '../envelope/envelope.js';
import type { RequestScope } from './call-context.js';
import type { CallArguments } from './call-arguments.js';
import type { EngineError } from './error-catalogue.js';
import { gatePathValues } from './guards/metachar.js';
import { checkScopes } from './guards/scopes.js';
import { withoutPrototypes } from './guards/null-prototype.js';
import type { Operation } from './operation/operation.js';
import type { Question } from './consent/questions.js';

/** The call ran: its envelope, and the upstream's status where it has one. */
export interface Done {
  readonly ok: true;
  readonly envelope: BuiltEnvelope;
  readonly upstreamStatus?: number;
}

/** The call failed, or was refused, with a catalogue error. */
export interface Failed {
  readonly ok: false;
  readonly error: EngineError;
}

/**
 * The call waits on the caller's user; only a request whose scope says it can be asked
 * gets it, and its surface renders the question.
 */
export interface Asked {
  readonly ok: false;
  readonly asked: Question;
  readonly error?: undefined;
}

export type Outcome = Done | Failed | Asked;

function fail(error: EngineError): Failed {
  return { ok: false, error };
}

export async function execute(
  op: Operation,
  input: CallArguments,
  scope: RequestScope,
): Promise<Outcome> {
  const { caller } = scope;
  const d = op.descriptor;
  const denied = checkScopes(op.name, d.scopes, caller);
  if (denied) return fail(denied);
  if (op.rateLimit && !op.consent) {
    const limited = await op.rateLimit(caller);
    if (limited) return fail(limited);
  }
  // A grant with an argument named like `toString` reads its arguments from objects
  // without a prototype, so an omitted one is absent (null-prototype.ts).
  const call = op.nullPrototype ? withoutPrototypes(input) : input;
  // The guards change `args` in place only where no number text can be: a `null` goes,
  // defaults and claims fill names the caller did not send (number-text.ts).
  const args = call.value;
  // `null` for an optional field is "not given" (optional-nulls.ts): gone before any guard.
  op.stripNulls?.(args);
  const gated = gatePathValues(op.pathArgs, args, op.pathSegments);
  if (gated) return fail(gated);
  const restricted = op.restrict?.(args);
  if (restricted) return fail(restricted);
  const invalid = op.validate(args);
  if (invalid) return fail(invalid);
  const rounded = op.exactNumbers(call);
  if (rounded) return fail(rounded);
  const exclusive = op.exclusive?.(args);
  if (exclusive) return fail(exclusive);
  if (op.bindClaims) {
    const unbound = op.bindClaims(args, caller);
    if (unbound) return fail(unbound);
    // A claim is bound after the caller's arguments were checked; its value must pass the
    // same path gate and allowlists (spec-language.md: restrict applies to every argument).
    const claimGated = gatePathValues(op.claimPathArgs, args, op.pathSegments);
    if (claimGated) return fail(claimGated);
    const claimRestricted = op.restrict?.(args);
    if (claimRestricted) return fail(claimRestricted);
  }
  if (op.consent) {
    const verdict = await op.consent(call, scope);
    if (verdict) return 'ask' in verdict ? { ok: false, asked: verdict.ask } : fail(verdict.error);
  }
  const out = await op.backend.invoke(call, scope);
  if (!out.ok) return out;
  return {
    ok: true,
    // pick/omit before the envelope: coverage describes what the caller receives.
    envelope: buildEnvelope(op.shape ? op.shape(out.value) : out.value, d.limits),
    ...(out.value.upstreamStatus !== undefined && { upstreamStatus: out.value.upstreamStatus }),
  };
}
