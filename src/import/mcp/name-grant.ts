/**
 * `can <verb> <resource>` for an upstream tool. The verb is the tool name's first word
 * when it is one of ours and at least as cautious as the tool's hints (the same rule as
 * `import openapi`'s operationIds, name-tools.ts): `read_text_file` → `read text-file`,
 * `delete_entities` → `delete entities`. Otherwise the verb of the hints' behaviour and
 * the whole name as the resource: `echo` → `get echo`, `move_file` → `update move-file`.
 * A read-only tool named `trigger-…` keeps `trigger`: its grant claims less than the
 * upstream, never more.
 */
import type { HttpMethod } from '../../compiler/verbs.js';
import { methodOfVerb } from '../../compiler/verbs.js';
import { toolName } from '../../compiler/naming.js';
import { cautious, words } from '../openapi/name-tools.js';

export interface GrantNaming {
  readonly verb: string;
  readonly resource: string;
}

/** The hints' behaviour as the method whose row of the verb table has it. */
export function methodOfHints(annotations: unknown): HttpMethod {
  const a = annotations !== null && typeof annotations === 'object' ? annotations : {};
  const hint = (k: string): unknown => (a as Record<string, unknown>)[k];
  if (hint('readOnlyHint') === true) return 'GET';
  // MCP's defaults: a tool that says nothing may destroy, and is not idempotent.
  const destructive = hint('destructiveHint') !== false;
  const idempotent = hint('idempotentHint') === true;
  if (!destructive) return 'POST'; // POST claims no idempotency: more cautious, never less
  return idempotent ? 'PUT' : 'PATCH';
}

export function isReadOnlyTool(annotations: unknown): boolean {
  return methodOfHints(annotations) === 'GET';
}

/** The verb of a tool whose name starts with none we can use. */
const DEFAULT_VERB: Record<HttpMethod, string> = {
  GET: 'get',
  POST: 'run',
  PATCH: 'update',
  PUT: 'replace',
  DELETE: 'delete',
};

export function nameGrant(tool: string, annotations: unknown, server: string): GrantNaming {
  const method = methodOfHints(annotations);
  const w = words(tool);
  const first = w[0];
  const firstMethod = first === undefined ? undefined : methodOfVerb(first);
  if (first !== undefined && firstMethod !== undefined && cautious(firstMethod, method))
    return fit(first, w.length > 1 ? w.slice(1) : [server]);
  return fit(DEFAULT_VERB[method], w.length > 0 ? w : [server]);
}

/** `<verb>_<resource>` in 64 characters: the resource's end is cut. */
function fit(verb: string, nouns: readonly string[]): GrantNaming {
  const resource = nouns
    .join('-')
    .slice(0, 63 - verb.length)
    .replace(/-+$/, '');
  return { verb, resource: resource === '' ? 'tool' : resource };
}

export interface Renamed {
  readonly tool: string;
  readonly from: string;
  readonly to: string;
}

/**
 * Unique tool names, settled in the order given (the tools sorted by name, so the same
 * server always gives the same names): a name taken already is numbered `_2`, `_3`.
 */
export function uniqueGrantNames(
  items: readonly { readonly tool: string; readonly naming: GrantNaming }[],
): { namings: GrantNaming[]; renames: Renamed[] } {
  const taken = new Set<string>();
  const renames: Renamed[] = [];
  const namings = items.map(({ tool, naming }) => {
    let resource = naming.resource;
    for (let n = 2; taken.has(toolName(naming.verb, resource)); n++) {
      const suffix = `-${n}`;
      resource = `${naming.resource.slice(0, 63 - naming.verb.length - suffix.length)}${suffix}`;
    }
    const name = toolName(naming.verb, resource);
    taken.add(name);
    if (resource !== naming.resource)
      renames.push({ tool, from: toolName(naming.verb, naming.resource), to: name });
    return { verb: naming.verb, resource };
  });
  return { namings, renames };
}
