/**
 * `from-claim=` fields (spec-language.md, "Properties"): the value comes from the
 * caller's verified token, never from the input. A token without the claim, or whose
 * claim does not hold the field's type, is refused; claims are not schema-validated, so
 * the type is checked here. The bound values then pass the path gate and `restrict`
 * again in execute.ts, like every other argument.
 */
import type { ArgumentDescriptor } from '../../compiler/descriptor.js';
import type { FieldType } from '../../compiler/field-types.js';
import type { Caller } from '../caller.js';
import { engineError, type EngineError } from '../error-catalogue.js';

/** Writes the caller's claims into `args`, or says which one is missing or mistyped. */
export type ClaimBinder = (
  args: Record<string, unknown>,
  caller: Caller,
) => EngineError | undefined;

export function prepareClaims(
  tool: string,
  fields: readonly ArgumentDescriptor[],
): ClaimBinder | undefined {
  const bindings = fields.flatMap((a) =>
    a.fromClaim === undefined ? [] : [{ arg: a.name, claim: a.fromClaim, type: a.type }],
  );
  if (bindings.length === 0) return undefined;
  return function claimBinder(args, caller) {
    for (const { arg, claim, type } of bindings) {
      const value =
        caller.claims && Object.hasOwn(caller.claims, claim) ? caller.claims[claim] : undefined;
      if (value === undefined)
        return engineError(
          'MISSING_CLAIM',
          `${tool} binds ${arg} to the token claim ${claim}, which the caller's token lacks`,
        );
      if (!claimFits(type, value))
        return engineError(
          'MISSING_CLAIM',
          `${tool} binds ${arg} to the token claim ${claim}, which does not hold a ${type} value`,
        );
      args[arg] = value;
    }
    return undefined;
  };
}

/** A claim's JSON value against the declared field type. */
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
