/** The `can <verb> <resource> { ... }` node kind and its children (spec-language.md, "Grants"). */
import { MIN_MAX_BYTES } from '../envelope/envelope.js';
import type { Located } from './diagnostics.js';
import type { RateLimit } from './descriptor.js';
import {
  arg,
  argAt,
  childNamed,
  childrenNamed,
  prop,
  propAt,
  type NodeKind,
  type ReadContext,
  type ReadNode,
  type Table,
} from './kdl-reader.js';
import { toolName } from './naming.js';
import { FIELD, uniqueFields } from './parse-field.js';
import { locatedString, once, RATE_LIMIT, SCOPE, TEXT, TIMEOUT } from './common-kinds.js';
import type { BodySpec, FieldBlockSpec, GrantSpec, QuerySpec, SetSpec } from './spec-types.js';

function count(name: string, min = 1): NodeKind<Located<number>> {
  return {
    args: [{ what: `${name} value`, type: 'integer', min }],
    build: (n) => {
      const value = arg<number>(n, 0);
      return value === undefined ? undefined : { value, at: n.at };
    },
  };
}

const EXCLUSIVE: NodeKind<FieldBlockSpec['exclusive'][number]> = {
  rest: { what: 'a field name', type: 'string' },
  build(n, { diag, subject }) {
    const names = n.args.filter((a): a is Located<string> => a !== undefined);
    if (names.length < 2)
      diag.error('SPEC_EXCLUSIVE', n.at, subject, '`exclusive` names at least two fields');
    return { value: names, at: n.at };
  },
};

/** `query`, `body` and `params`: fields named freely, and `exclusive` groups. */
function block(label: string): Table {
  return { kinds: { exclusive: EXCLUSIVE }, other: FIELD, label };
}

function fieldBlock(n: ReadNode, ctx: ReadContext): FieldBlockSpec {
  return {
    at: n.at,
    fields: uniqueFields(n.children, ctx),
    exclusive: childrenNamed(n.children, 'exclusive'),
  };
}

const BLOCK = (label: string): NodeKind<FieldBlockSpec> => ({
  children: block(label),
  build: (n, ctx) => fieldBlock(n, { ...ctx, label }),
});

const BODY: NodeKind<BodySpec> = {
  props: { encoding: { type: 'string' } },
  children: block('body field'),
  build(n, ctx) {
    const encoding = prop<string>(n, 'encoding') ?? 'json';
    if (encoding !== 'json' && encoding !== 'form')
      ctx.diag.error(
        'SPEC_VALUE_TYPE',
        propAt(n, 'encoding'),
        ctx.subject,
        `body encoding=${JSON.stringify(encoding)} must be "json" or "form"`,
      );
    return {
      ...fieldBlock(n, { ...ctx, label: 'body field' }),
      encoding: encoding === 'form' ? 'form' : 'json',
    };
  },
};

const QUERY: NodeKind<QuerySpec> = {
  props: { encoding: { type: 'string' } },
  children: block('query field'),
  build(n, ctx) {
    const encoding = prop<string>(n, 'encoding');
    if (encoding !== undefined && encoding !== 'percent' && encoding !== 'form')
      ctx.diag.error(
        'SPEC_VALUE_TYPE',
        propAt(n, 'encoding'),
        ctx.subject,
        `query encoding=${JSON.stringify(encoding)} must be "percent" or "form"`,
      );
    return {
      ...fieldBlock(n, { ...ctx, label: 'query field' }),
      ...((encoding === 'percent' || encoding === 'form') && { encoding }),
    };
  },
};

const PATH: NodeKind<NonNullable<GrantSpec['path']>> = {
  args: [{ what: 'a path template', type: 'string' }],
  children: { kinds: {}, other: FIELD, label: 'path param' },
  build(n, ctx) {
    const params = uniqueFields(n.children, { ...ctx, label: 'path param' });
    const template = arg<string>(n, 0);
    return template === undefined ? undefined : { value: template, at: argAt(n, 0), params };
  },
};

function setEntry(target: SetSpec['target']): NodeKind<SetSpec> {
  return {
    args: [{ what: `a ${target} name`, type: 'string' }],
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

const SET: NodeKind<Located<SetSpec[]>> = {
  children: {
    kinds: { query: setEntry('query'), header: setEntry('header'), body: setEntry('body') },
    where: 'in set',
  },
  build: (n) => ({ value: n.children.map((c) => c.value as SetSpec), at: n.at }),
};

/** `pick` / `omit`: field paths, checked in check-grant.ts. */
const SHAPE: NodeKind<Located<Located<string>[]>> = {
  rest: { what: 'a field path such as "user.login" or "labels[].name"', type: 'string' },
  build(n, { diag, subject }) {
    if (n.args.length === 0)
      diag.error('SPEC_MISSING', n.at, subject, `\`${n.name}\` needs at least one field path`);
    return {
      value: n.args.flatMap((a) => (a ? [{ value: a.value as string, at: a.at }] : [])),
      at: n.at,
    };
  },
};

/** A grant's children, in the order the "known: ..." hint lists them. */
const GRANT_TABLE: Table = {
  kinds: {
    describe: once(TEXT),
    title: once(TEXT),
    method: once(locatedString('an HTTP method')),
    path: once(PATH),
    query: once(QUERY),
    body: once(BODY),
    set: once(SET),
    sql: once(locatedString('an SQL statement')),
    params: once(BLOCK('param')),
    'max-rows': once(count('max-rows')),
    pick: once(SHAPE),
    omit: once(SHAPE),
    scope: SCOPE,
    'rate-limit': once(RATE_LIMIT),
    timeout: once(TIMEOUT),
    'max-bytes': once(count('max-bytes', MIN_MAX_BYTES)),
    'budget-bytes': once(count('budget-bytes')),
  },
  where: 'in a grant',
  twice: 'is given twice',
};

export const GRANT: NodeKind<GrantSpec> = {
  args: [
    { what: 'a verb (can list issues)', type: 'string' },
    { what: 'a resource (can list issues)', type: 'string' },
  ],
  children: GRANT_TABLE,
  // Without both words there is no tool name to speak of: its children are not read.
  inner: (n) => {
    const verb = arg<string>(n, 0);
    const resource = arg<string>(n, 1);
    return verb === undefined || resource === undefined
      ? undefined
      : [`grant ${toolName(verb, resource)}`];
  },
  build(n) {
    const c = n.children;
    return {
      verb: { value: arg<string>(n, 0)!, at: argAt(n, 0) },
      resource: arg<string>(n, 1)!,
      at: n.at,
      describe: childNamed(c, 'describe'),
      title: childNamed(c, 'title'),
      method: childNamed(c, 'method'),
      path: childNamed(c, 'path'),
      query: childNamed(c, 'query'),
      body: childNamed(c, 'body'),
      set: childNamed(c, 'set'),
      sql: childNamed(c, 'sql'),
      params: childNamed(c, 'params'),
      maxRows: childNamed(c, 'max-rows'),
      pick: childNamed(c, 'pick'),
      omit: childNamed(c, 'omit'),
      scopes: childrenNamed<string[]>(c, 'scope').flat(),
      rateLimit: childNamed<RateLimit>(c, 'rate-limit'),
      timeoutMs: childNamed(c, 'timeout'),
      maxBytes: childNamed<Located<number>>(c, 'max-bytes')?.value,
      budgetBytes: childNamed<Located<number>>(c, 'budget-bytes')?.value,
    };
  },
};
