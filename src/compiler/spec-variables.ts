/**
 * The environment variables a spec names, where, and by what. Every property of the
 * language that names a variable is spelled `env` or ends in `-env` (`auth bearer env=`,
 * `api-key env=`, `confirm-key-env=`, `redis-env=`, `from-env=`, `username-env=`), or
 * is a node whose name ends in `-env` and whose argument is the variable
 * (`oauth-provider` { `client-id-env "V"` }), so they are found by that spelling, under
 * any node, without knowing the nodes: a new
 * kind that reads a variable is listed the day it is written. Start-up uses the list to
 * name every missing variable at once, and `check --env` prints it.
 */
import type { Node } from '@bgotink/kdl';
import type { SpecVariable } from './descriptor.js';
import { positionOf } from './kdl-reader.js';

const NAMES_A_VARIABLE = /(^|-)env$/;
/** Not a bare `env` node: that one (`mcp-server` { `env "NAME" "value"` }) sets a child's variable. */
const NODE_NAMES_A_VARIABLE = /-env$/;

/** The variable a `client-id-env "V"` node names, with its entry. */
function nodeVariable(node: Node) {
  if (!NODE_NAMES_A_VARIABLE.test(node.getName())) return undefined;
  const entry = node.getArgumentEntries()[0];
  return entry && typeof entry.getValue() === 'string' ? entry : undefined;
}

/** The variables named under `nodes`, in file order. */
export function specVariables(
  nodes: readonly Node[],
  path: readonly string[] = [],
): SpecVariable[] {
  const found: SpecVariable[] = [];
  for (const node of nodes) {
    // The node as the spec's messages name it: `mcp-server tracker auth bearer`.
    const named = nodeVariable(node);
    if (named) {
      const { line, column } = positionOf(named);
      found.push({
        name: named.getValue() as string,
        reads: [...path, node.getName()].join(' '),
        line,
        column,
      });
    }
    const here = [
      ...path,
      node.getName(),
      ...node.getArguments().flatMap((a) => (typeof a === 'string' ? [a] : [])),
    ];
    for (const [prop, entry] of node.getPropertyEntryMap()) {
      const name = entry.getValue();
      if (!NAMES_A_VARIABLE.test(prop) || typeof name !== 'string') continue;
      const { line, column } = positionOf(entry);
      // `env=` is the node's one variable; any other spelling says which of its variables.
      const reads = (prop === 'env' ? here : [...here, prop]).join(' ');
      found.push({ name, reads, line, column });
    }
    found.push(...specVariables(node.children?.nodes ?? [], here));
  }
  return found;
}

/**
 * Whether any node in `node`'s tree has a property that names a variable: the cheap
 * test before `specVariables`, which builds each node's name path as it goes.
 */
export function namesAVariable(node: Node): boolean {
  if (nodeVariable(node)) return true;
  for (const entry of node.entries) {
    const prop = entry.getName();
    if (prop !== null && NAMES_A_VARIABLE.test(prop) && typeof entry.getValue() === 'string')
      return true;
  }
  return node.children?.nodes.some(namesAVariable) ?? false;
}
