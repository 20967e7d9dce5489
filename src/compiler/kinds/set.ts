/**
 * The `set { ... }` kind of a grant (spec-language.md, "set" and "Upstream MCP servers"):
 * fixed values the caller never sees. HTTP grants pin `query`, `header` and `body` values,
 * MCP grants `arg` values; one row reads them all, and each backend refuses the entries
 * of the other.
 */
import type { Located, Position } from '../diagnostics.js';
import { arg, argAt, type NodeKind, type Scalar } from '../kdl-reader.js';

export interface SetSpec {
  readonly target: 'query' | 'header' | 'body' | 'arg';
  readonly key: string;
  readonly value: Scalar;
  readonly at: Position;
}

function setEntry(target: SetSpec['target']): NodeKind<SetSpec> {
  return {
    args: [
      { what: `a ${target === 'arg' ? 'dotted argument path' : `${target} name`}`, type: 'string' },
    ],
    rest: { what: 'a value', type: 'scalar' },
    build(n, { diag, subject }) {
      const entries = n.node.getArgumentEntries();
      if (!entries[1]) {
        diag.error('SPEC_MISSING', n.at, subject, `set ${target} needs a value`);
        return undefined;
      }
      if (entries.length > 2)
        diag.error(
          'SPEC_UNKNOWN_PROPERTY',
          argAt(n, 2),
          subject,
          `set ${target} takes a name and one value`,
        );
      const value = entries[1].getValue();
      if (target === 'header' && typeof value !== 'string') {
        diag.error('SPEC_VALUE_TYPE', argAt(n, 1), subject, `set header value must be a string`);
        return undefined;
      }
      const key = arg<string>(n, 0);
      return key === undefined ? undefined : { target, key, value, at: n.at };
    },
  };
}

export const SET: NodeKind<Located<SetSpec[]>> = {
  children: {
    kinds: {
      query: setEntry('query'),
      header: setEntry('header'),
      body: setEntry('body'),
      arg: setEntry('arg'),
    },
    where: 'in set',
  },
  build: (n) => ({ value: n.children.map((c) => c.value as SetSpec), at: n.at }),
};
