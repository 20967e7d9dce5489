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
 */
import { buildEnvelope, type BuiltEnvelope } from '../envelope/envelope.js';
import type { CallContext } from './call-context.js';
import type { CallArguments } from './call-arguments.js';
import type { Caller } from './caller.js';
import { engineError, type EngineError } from './error-catalogue.js';
import { gatePathValues } from './guards/metachar.js';
import { checkScopes } from './guards/scopes.js';
import { withoutPrototypes } from './null-prototype.js';
import type { Operation } from './operation.js';
import type { FieldType } from '../compiler/field-types.js';

export type Outcome =
  | { readonly ok: true; readonly envelope: BuiltEnvelope; readonly upstreamStatus?: number }
  | { readonly ok: false; readonly error: EngineError };

function fail(error: EngineError): Outcome {
  return { ok: false, error };
}

export async function execute(
  op: Operation,
  input: CallArguments,
  caller: Caller,
  ctx: CallContext,
): Promise<Outcome> {
  const d = op.descriptor;
  const denied = checkScopes(op.name, d.scopes, caller);
  if (denied) return fail(denied);
  if (op.rateLimit) {
    const limited = await op.rateLimit(caller);
    if (limited) return fail(limited);
  }
  // A grant with an argument named like `toString` reads its arguments from objects
  // without a prototype, so an omitted one is absent (null-prototype.ts).
  const args = (op.nullPrototype ? withoutPrototypes(input) : input) as CallArguments;
  // `null` for an optional field is "not given" (optional-nulls.ts): gone before any guard.
  op.stripNulls?.(args);
  const gated = gatePathValues(op.pathArgs, args, op.pathSegments);
  if (gated) return fail(gated);
  const restricted = op.restrict?.(args);
  if (restricted) return fail(restricted);
  const invalid = op.validate(args);
  if (invalid) return fail(invalid);
  const rounded = op.exactNumbers(args);
  if (rounded) return fail(rounded);
  const exclusive = op.exclusive?.(args);
  if (exclusive) return fail(exclusive);
  for (const { arg, claim, type } of op.claims) {
    const value =
      caller.claims && Object.hasOwn(caller.claims, claim) ? caller.claims[claim] : undefined;
    if (value === undefined)
      return fail(
        engineError(
          'MISSING_CLAIM',
          `${op.name} binds ${arg} to the token claim ${claim}, which the caller's token lacks`,
        ),
      );
    if (!claimFits(type, value))
      return fail(
        engineError(
          'MISSING_CLAIM',
          `${op.name} binds ${arg} to the token claim ${claim}, which does not hold a ${type} value`,
        ),
      );
    args[arg] = value;
  }
  if (op.claims.length > 0) {
    // A claim is bound after the caller's arguments were checked; its value must pass the
    // same path gate and allowlists (spec-language.md: restrict applies to every argument).
    const claimGated = gatePathValues(op.claimPathArgs, args, op.pathSegments);
    if (claimGated) return fail(claimGated);
    const claimRestricted = op.restrict?.(args);
    if (claimRestricted) return fail(claimRestricted);
  }
  const out = await op.backend.invoke(args, ctx);
  if (!out.ok) return out;
  return {
    ok: true,
    // pick/omit before the envelope: coverage describes what the caller receives.
    envelope: buildEnvelope(op.shape ? op.shape(out.value) : out.value, d.limits),
    ...(out.value.upstreamStatus !== undefined && { upstreamStatus: out.value.upstreamStatus }),
  };
}

/** A claim's JSON value against the declared field type (claims are not schema-validated). */
function claimFits(type: FieldType | undefined, v: unknown): boolean {
  if (type === undefined || type === 'raw') return true;
  if (type.endsWith('[]'))
    return Array.isArray(v) && v.every((x) => claimFits(type.slice(0, -2) as FieldType, x));
  switch (type) {
    case 'string':
      return typeof v === 'string';
    case 'integer':
      return Number.isSafeInteger(v);
    case 'number':
      return typeof v === 'number' && Number.isFinite(v);
    case 'boolean':
      return typeof v === 'boolean';
    default:
      return v !== null && typeof v === 'object' && !Array.isArray(v);
  }
}
