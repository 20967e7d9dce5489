/**
 * The `prompt "<name>" { ... }` node kind: typed string arguments and messages
 * (spec-language.md, "Resources and prompts"). Placeholders, roles and the resources a
 * message embeds are checked by `check-prompt.ts`.
 */
import type { Located } from './diagnostics.js';
import {
  arg,
  argAt,
  childNamed,
  childrenNamed,
  prop,
  propAt,
  type NodeKind,
} from './kdl-reader.js';
import { once, SCOPE, TEXT } from './common-kinds.js';
import { propOrChild } from './parse-resource.js';
import type { PromptArgumentSpec, PromptMessageSpec, PromptSpec } from './spec-types.js';

const STRING = { type: 'string' } as const;

const ENUM: NodeKind<Located<string>[]> = {
  rest: { what: 'an allowed value', type: 'string' },
  build(n, { diag, subject }) {
    if (n.args.length === 0)
      diag.error('SPEC_MISSING', n.at, subject, '`enum` needs at least one value');
    return n.args.flatMap((a) => (a ? [a as Located<string>] : []));
  },
};

const ARGUMENT: NodeKind<PromptArgumentSpec> = {
  args: [{ what: 'an argument name (argument "id")', type: 'string' }],
  props: {
    required: { type: 'boolean' },
    default: STRING,
    describe: STRING,
    pattern: STRING,
    'max-length': { type: 'integer', min: 1 },
  },
  children: { kinds: { enum: once(ENUM) }, where: 'in a prompt argument' },
  build(n) {
    const name = arg<string>(n, 0);
    if (name === undefined) return undefined;
    const located = <T>(p: string): Located<T> | undefined =>
      n.props.has(p) ? { value: prop(n, p) as T, at: propAt(n, p) } : undefined;
    const def = located<string>('default');
    const pattern = located<string>('pattern');
    const maxLength = located<number>('max-length');
    const describe = prop<string>(n, 'describe');
    const values = childNamed<Located<string>[]>(n.children, 'enum');
    return {
      name,
      at: n.at,
      required: prop<boolean>(n, 'required') ?? false,
      ...(def && { default: def }),
      ...(describe !== undefined && { describe }),
      ...(pattern && { pattern }),
      ...(maxLength && { maxLength }),
      ...(values && { enum: values }),
    };
  },
};

const MESSAGE: NodeKind<PromptMessageSpec> = {
  args: [
    { what: 'a role, "user" or "assistant"', type: 'string' },
    { what: 'the message text', type: 'string', required: false },
  ],
  props: { resource: STRING },
  build(n) {
    const role = arg<string>(n, 0);
    if (role === undefined) return undefined;
    const text = arg<string>(n, 1);
    const resource = prop<string>(n, 'resource');
    return {
      role: { value: role, at: argAt(n, 0) },
      at: n.at,
      ...(text !== undefined && { text: { value: text, at: argAt(n, 1) } }),
      ...(resource !== undefined && { resource: { value: resource, at: propAt(n, 'resource') } }),
    };
  },
};

export const PROMPT: NodeKind<PromptSpec> = {
  args: [{ what: 'a prompt name (prompt "triage-ticket")', type: 'string' }],
  props: { title: STRING, describe: STRING },
  children: {
    kinds: {
      title: once(TEXT),
      describe: once(TEXT),
      argument: ARGUMENT,
      message: MESSAGE,
      scope: SCOPE,
    },
    where: 'in a prompt',
    twice: 'is given twice',
  },
  inner: (n) => {
    const name = arg<string>(n, 0);
    return name === undefined ? undefined : [`prompt ${name}`];
  },
  build(n, outer) {
    const name = arg<string>(n, 0)!;
    const ctx = { ...outer, subject: [`prompt ${name}`] };
    const title = propOrChild(n, 'title', ctx)?.value;
    const describe = propOrChild(n, 'describe', ctx)?.value;
    return {
      name: { value: name, at: argAt(n, 0) },
      at: n.at,
      ...(title !== undefined && { title }),
      ...(describe !== undefined && { describe }),
      arguments: childrenNamed<PromptArgumentSpec>(n.children, 'argument'),
      messages: childrenNamed<PromptMessageSpec>(n.children, 'message'),
      scopes: childrenNamed<string[]>(n.children, 'scope').flat(),
    };
  },
};
