/**
 * What a `from=` resource needs of its grant: the tool's top-level arguments with their
 * fields, found by tool name. Computed the way lowering places them, so the checker and
 * lowering agree on which arguments exist.
 */
import {
  bodyPlacements,
  paramPlacements,
  pathPlacements,
  queryPlacements,
  type Placement,
} from './grant-arguments.js';
import { toolName } from './naming.js';
import { parseTemplate } from './path-template.js';
import type { GrantSpec, Spec } from './spec-types.js';

export interface GrantArguments {
  readonly grant: GrantSpec;
  readonly name: string;
  /** Top-level arguments the caller supplies (from-claim ones excluded). */
  readonly inputs: readonly Placement[];
}

export function grantsByTool(spec: Spec): ReadonlyMap<string, GrantArguments> {
  const out = new Map<string, GrantArguments>();
  for (const g of spec.grants) {
    const name = toolName(g.verb.value, g.resource);
    if (out.has(name)) continue;
    let placements: Placement[];
    if (g.sql !== undefined) placements = paramPlacements(g);
    else if (g.path !== undefined) {
      const template = parseTemplate(g.path.value);
      const params = template.ok ? template.params : [];
      placements = [...pathPlacements(g, params), ...queryPlacements(g), ...bodyPlacements(g)];
    } else placements = [];
    const inputs = placements.filter((p) => p.argument.fromClaim === undefined);
    out.set(name, { grant: g, name, inputs });
  }
  return out;
}
