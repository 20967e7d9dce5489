/** Node kinds that several tables share: texts, counts, durations, rate limits, located strings. */
import type { Located, SpecErrorCode, Subject } from './diagnostics.js';
import type { RateLimit } from './descriptor.js';
import {
  arg,
  argAt,
  type NodeKind,
  type ReadContext,
  type ReadNode,
  type TableRow,
} from './kdl-reader.js';
import { parseDuration, parseRateLimit } from './values.js';

/** A kind that may appear once in its table. */
export const once = <T>(kind: NodeKind<T>): TableRow => ({ ...kind, once: true });

/** One string argument, kept with its place. */
export function locatedString(what: string): NodeKind<Located<string>> {
  return {
    args: [{ what, type: 'string' }],
    build: (n) => {
      const value = arg<string>(n, 0);
      return value === undefined ? undefined : { value, at: argAt(n, 0) };
    },
  };
}

/** `max-rows 100`, `max-bytes 65536`: one whole number of at least `min`, kept with its place. */
export function count(name: string, min = 1): NodeKind<Located<number>> {
  return {
    args: [{ what: `${name} value`, type: 'integer', min }],
    build: (n) => {
      const value = arg<number>(n, 0);
      return value === undefined ? undefined : { value, at: n.at };
    },
  };
}

export const TEXT: NodeKind<string> = {
  args: [{ what: 'a text', type: 'string' }],
  build: (n) => arg(n, 0),
};

/**
 * One text argument that `parse` reads; a text it cannot read is refused with `code` and
 * the message `refusal` words (the node is named by its own name, `timeout` or another).
 */
function parsedText<T>(
  what: string,
  parse: (text: string) => T | undefined,
  code: SpecErrorCode,
  refusal: (node: string, quoted: string) => string,
): NodeKind<T> {
  return {
    args: [{ what, type: 'string' }],
    build(n, { diag }) {
      const text = arg<string>(n, 0);
      if (text === undefined) return undefined;
      const value = parse(text);
      if (value === undefined)
        diag.error(code, argAt(n, 0), n.subject, refusal(n.name, JSON.stringify(text)));
      return value;
    },
  };
}

/** `timeout "10s"`, at the top and in a grant. */
export const TIMEOUT: NodeKind<number> = parsedText(
  'a duration such as "10s"',
  parseDuration,
  'SPEC_DURATION',
  (node, quoted) => `${node} ${quoted} is not a duration like 500ms, 10s, 2m`,
);

/** `rate-limit "60/m"`, at the top and in a grant. */
export const RATE_LIMIT: NodeKind<RateLimit> = parsedText(
  'a rate such as "60/m"',
  parseRateLimit,
  'SPEC_RATE_LIMIT',
  (_, quoted) => `rate-limit ${quoted} is not like "60/m" (calls per s, m or h)`,
);

/** The subject `<kind> <name>` of a node named by its first argument; none without one. */
export function namedSubject(kind: string): (n: ReadNode) => Subject | undefined {
  return (n) => {
    const name = arg<string>(n, 0);
    return name === undefined ? undefined : [`${kind} ${name}`];
  };
}

/** `scope "<s>"...`, repeatable, on grants, resources and prompts. */
export const SCOPE: NodeKind<string[]> = {
  rest: { what: 'a scope', type: 'string' },
  build(n, { diag, subject }) {
    if (n.args.length === 0)
      diag.error('SPEC_MISSING', n.at, subject, '`scope` needs a scope name');
    return n.args.flatMap((a) => (a ? [a.value as string] : []));
  },
};

/**
 * A text that may be written as a property or as a child (`describe="..."` or
 * `describe "..."`), on resources and prompts; both at once is a duplicate.
 */
export function propOrChild(
  n: ReadNode,
  name: string,
  ctx: ReadContext,
): Located<string> | undefined {
  const fromProp = n.props.get(name) as Located<string> | undefined;
  const child = n.children.find((c) => c.name === name);
  if (fromProp && child) {
    ctx.diag.error(
      'SPEC_DUPLICATE',
      child.at,
      ctx.subject,
      `\`${name}\` is given twice (as ${name}= on line ${fromProp.at.line} and as a child)`,
    );
  }
  if (fromProp) return fromProp;
  if (!child) return undefined;
  const v = child.value as string | Located<string>;
  return typeof v === 'string' ? { value: v, at: child.at } : v;
}
