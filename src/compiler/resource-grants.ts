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

/** The grants by tool name, for the few a spec's `from=` resources name. */
export interface GrantLookup {
  /** The first grant of this tool name, with its arguments; undefined when none has it. */
  get(name: string): GrantArguments | undefined;
  /** Every tool name, once each, in spec order. */
  names(): string[];
}

/**
 * Lazy: nothing is computed until a resource asks, and then only the arguments of the
 * grant it names. Placing every grant's arguments up front cost a 500-grant spec with
 * no resources about 10 ms of its cold start, twice (check and lowering).
 */
export function grantsByTool(spec: Spec): GrantLookup {
  let byName: Map<string, GrantSpec> | undefined;
  const named = (): Map<string, GrantSpec> => {
    if (byName) return byName;
    byName = new Map();
    for (const g of spec.grants) {
      const name = toolName(g.verb.value, g.resource);
      if (!byName.has(name)) byName.set(name, g);
    }
    return byName;
  };
  const placed = new Map<string, GrantArguments>();
  return {
    get(name) {
      const known = placed.get(name);
      if (known) return known;
      const g = named().get(name);
      if (!g) return undefined;
      const args = { grant: g, name, inputs: inputsOf(g) };
      placed.set(name, args);
      return args;
    },
    names: () => [...named().keys()],
  };
}

function inputsOf(g: GrantSpec): Placement[] {
  let placements: Placement[];
  if (g.sql !== undefined) placements = paramPlacements(g);
  else if (g.path !== undefined) {
    const template = parseTemplate(g.path.value);
    const params = template.ok ? template.params : [];
    placements = [...pathPlacements(g, params), ...queryPlacements(g), ...bodyPlacements(g)];
  } else placements = [];
  return placements.filter((p) => p.argument.fromClaim === undefined);
}
