/** Spec → CompiledSpec: check every meaning error, and lower only a spec that has none. */
import { checkSpec, type SpecOverrides } from './check-spec.js';
import type { CompiledSpec } from './descriptor.js';
import type { Diagnostics } from './diagnostics.js';
import { lowerSpec } from './lower-spec.js';
import type { Spec } from './spec-types.js';

export type { SpecOverrides };

/** Undefined when the spec has an error; `diag` then lists every one. */
export function compileSpec(
  spec: Spec,
  diag: Diagnostics,
  overrides: SpecOverrides = {},
): CompiledSpec | undefined {
  checkSpec(spec, diag, overrides);
  return diag.errors.length > 0 ? undefined : lowerSpec(spec, overrides);
}
