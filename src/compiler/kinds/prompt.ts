/**
 * The prompt kind: `prompt "<name>" { argument ...; message ... }` (spec-language.md,
 * "Resources and prompts"). Its node rows; its checks (its name, arguments whose rules
 * a default and enum values obey, messages whose placeholders are declared arguments,
 * embedded resources that some declared resource serves); and its lowering: message
 * text split into literal pieces and placeholders once, and the scopes of every
 * embedded resource (found by the check) added to the prompt's own, so a caller who
 * cannot read what a prompt embeds does not see it.
 */
import { matchName, NameClaims, takenBy } from '../name-claims.js';
import { namedSubject, once, propOrChild, SCOPE, TEXT } from '../common-kinds.js';
import type { Diagnostics, Located, Position, Subject } from '../diagnostics.js';
import type {
  PromptDescriptor,
  PromptMessageDescriptor,
  ResourceDescriptor,
} from '../descriptor.js';
import {
  arg,
  argAt,
  childNamed,
  childrenNamed,
  prop,
  propAt,
  type NodeKind,
} from '../kdl-reader.js';
import type { FieldSpec } from '../field-types.js';
import { checkPattern } from '../pattern-safety.js';
import {
  fillPlaceholders,
  placeholdersOf,
  PROMPT_NAME,
  splitPlaceholders,
} from '../prompt-text.js';
import { compileUriPlan, matchUri } from '../uri-match.js';
import { reportPattern } from './field.js';
import type { CheckedResource } from './resource.js';

/** An argument as written: a field's rules that apply to a string, its values strings. */
export interface PromptArgumentSpec extends Pick<
  FieldSpec,
  'name' | 'at' | 'required' | 'describe' | 'pattern' | 'maxLength'
> {
  readonly default?: Located<string>;
  readonly enum?: readonly Located<string>[];
}

/** `message "<role>" "<text>"` or `message "<role>" resource="<uri>"`. */
export interface PromptMessageSpec {
  readonly role: Located<string>;
  readonly at: Position;
  readonly text?: Located<string>;
  readonly resource?: Located<string>;
}

export interface PromptSpec {
  readonly name: Located<string>;
  readonly at: Position;
  readonly title?: string;
  readonly describe?: string;
  readonly arguments: readonly PromptArgumentSpec[];
  readonly messages: readonly PromptMessageSpec[];
  readonly scopes: readonly string[];
}

const DEFAULT_PROMPT_MAX_LENGTH = 1000;
const ROLES: ReadonlySet<string> = new Set(['user', 'assistant']);
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
  inner: namedSubject('prompt'),
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

/** What the check of one prompt found: for each message, the resource it embeds. */
export interface CheckedPrompt {
  readonly spec: PromptSpec;
  /** By message: the index of the embedded resource among the spec's, if any. */
  readonly embeds: readonly (number | undefined)[];
}

export function checkPrompts(
  prompts: readonly PromptSpec[],
  resources: readonly CheckedResource[],
  diag: Diagnostics,
): CheckedPrompt[] {
  const names = new NameClaims(diag, 'SPEC_DUPLICATE_PROMPT', takenBy('prompt name', 'prompt'));
  return prompts.map((p) => {
    const subject = [`prompt ${p.name.value}`];
    matchName(diag, 'SPEC_PROMPT_NAME', p.name, subject, 'prompt name', PROMPT_NAME);
    names.claim(p.name.value, p.at, p.name.at, subject);
    return { spec: p, embeds: checkPrompt(p, resources, diag, subject) };
  });
}

function checkPrompt(
  p: PromptSpec,
  resources: readonly CheckedResource[],
  diag: Diagnostics,
  subject: Subject,
): (number | undefined)[] {
  const declared = new Map<string, PromptArgumentSpec>();
  for (const a of p.arguments) {
    const here = [...subject, `argument ${a.name}`];
    if (!PROMPT_NAME.test(a.name))
      diag.error(
        'SPEC_PROMPT_NAME',
        a.at,
        here,
        `argument name ${JSON.stringify(a.name)} must match ${PROMPT_NAME.source}`,
      );
    if (declared.has(a.name))
      diag.error('SPEC_DUPLICATE', a.at, here, `argument ${a.name} is declared twice`);
    declared.set(a.name, a);
    checkArgument(a, diag, here);
  }
  if (p.messages.length === 0)
    diag.error('SPEC_MISSING', p.at, subject, 'a prompt needs at least one `message`');
  return p.messages.map((m) => {
    if (!ROLES.has(m.role.value))
      diag.error(
        'SPEC_PROMPT_MESSAGE',
        m.role.at,
        subject,
        `message role ${JSON.stringify(m.role.value)} must be "user" or "assistant"`,
      );
    if ((m.text === undefined) === (m.resource === undefined)) {
      diag.error(
        'SPEC_PROMPT_MESSAGE',
        m.at,
        subject,
        m.text
          ? 'a message has a text or resource="...", not both'
          : 'a message needs a text (message "user" "...") or resource="<uri>"',
      );
      return undefined;
    }
    const given = (m.text ?? m.resource)!;
    for (const name of placeholdersOf(given.value))
      if (!declared.has(name))
        diag.error(
          'SPEC_PLACEHOLDER',
          given.at,
          subject,
          `placeholder {${name}} is not a declared argument (declared: ${[...declared.keys()].join(', ') || 'none'})`,
        );
    if (!m.resource) return undefined;
    const embedded = embeddedResource(m.resource.value, resources);
    if (embedded === undefined)
      diag.error(
        'SPEC_PROMPT_RESOURCE',
        m.resource.at,
        subject,
        `resource=${JSON.stringify(m.resource.value)} matches no declared resource or template`,
      );
    return embedded;
  });
}

function checkArgument(a: PromptArgumentSpec, diag: Diagnostics, subject: Subject): void {
  let pattern: RegExp | undefined;
  if (a.pattern) {
    reportPattern(a.pattern, diag, subject);
    if (checkPattern(a.pattern.value).ok) pattern = new RegExp(a.pattern.value, 'u');
  }
  const maxLength = a.maxLength?.value ?? DEFAULT_PROMPT_MAX_LENGTH;
  const misfit = (v: string): string | undefined => {
    if ([...v].length > maxLength) return `is longer than max-length=${maxLength}`;
    if (pattern && !pattern.test(v)) return `does not match pattern ${a.pattern!.value}`;
    return undefined;
  };
  for (const e of a.enum ?? []) {
    const why = misfit(e.value);
    if (why) diag.error('SPEC_ENUM', e.at, subject, `enum value ${JSON.stringify(e.value)} ${why}`);
  }
  if (a.default) {
    if (a.required)
      diag.error(
        'SPEC_DEFAULT',
        a.default.at,
        subject,
        'a required argument never uses its default; drop one of the two',
      );
    const why =
      misfit(a.default.value) ??
      (a.enum && !a.enum.some((e) => e.value === a.default!.value)
        ? `is not one of the enum values`
        : undefined);
    if (why)
      diag.error(
        'SPEC_DEFAULT',
        a.default.at,
        subject,
        `default ${JSON.stringify(a.default.value)} ${why}`,
      );
  }
}

/**
 * The index of the resource a message embeds: a fixed URI served as written or by a
 * template; a URI with placeholders must have the shape of a template (each placeholder
 * filling a part).
 */
function embeddedResource(uri: string, resources: readonly CheckedResource[]): number | undefined {
  const withPlaceholders = placeholdersOf(uri).length > 0;
  // A placeholder stands for one value: a sample without '/' tests the shape.
  const sample = fillPlaceholders(splitPlaceholders(uri), {}, () => 'x');
  const index = resources.findIndex(({ spec: r, template: t }) => {
    if (!t) return false;
    if (t.variables.length === 0) return !withPlaceholders && r.uri.value === uri;
    return matchUri(compileUriPlan(t.literals), sample);
  });
  return index < 0 ? undefined : index;
}

/** The prompts of a clean spec → PromptDescriptors. */
export function lowerPrompts(
  prompts: readonly CheckedPrompt[],
  resources: readonly ResourceDescriptor[],
  specFile: string,
): PromptDescriptor[] {
  return prompts.map(({ spec: p, embeds }) => {
    const scopes = [...p.scopes];
    const messages = p.messages.map((m, i): PromptMessageDescriptor => {
      const role = m.role.value as 'user' | 'assistant';
      if (m.resource) {
        scopes.push(...resources[embeds[i]!]!.scopes);
        return { role, resource: m.resource.value, parts: splitPlaceholders(m.resource.value) };
      }
      return { role, text: m.text!.value, parts: splitPlaceholders(m.text!.value) };
    });
    return {
      name: p.name.value,
      ...(p.title !== undefined && { title: p.title }),
      ...(p.describe !== undefined && { description: p.describe }),
      arguments: p.arguments.map((a) => ({
        name: a.name,
        ...(a.describe !== undefined && { description: a.describe }),
        required: a.required,
        ...(a.default && { default: a.default.value }),
        ...(a.enum && { enum: a.enum.map((e) => e.value) }),
        ...(a.pattern && { pattern: a.pattern.value }),
        maxLength: a.maxLength?.value ?? DEFAULT_PROMPT_MAX_LENGTH,
      })),
      messages,
      scopes: [...new Set(scopes)],
      source: { file: specFile, line: p.at.line, column: p.at.column },
    };
  });
}
