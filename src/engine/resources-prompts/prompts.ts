/**
 * MCP prompts in the engine: each prompt's argument rules compiled once at boot (enum
 * sets, patterns), so a get only checks strings, fills placeholders and reads the
 * resources its messages embed, through the resource catalogue with the caller's
 * identity (spec-language.md, "Resources and prompts"). A message's own text is the
 * spec's, and redacted once at boot like the resources it embeds.
 */
import type { PromptDescriptor, PromptTextPart } from '../../compiler/descriptor.js';
import { fillPlaceholders } from '../../compiler/prompt-text.js';
import type { RequestScope } from '../call-context.js';
import { engineError, type EngineError } from '../error-catalogue.js';
import { checkScopes } from '../guards/scopes.js';
import type { Redactor } from '../redact.js';
import { clipped, loneSurrogateProblem, MAX_QUOTED_NAME, ProblemList } from '../refusal-text.js';
import type { ResourceCatalog, ResourceContents } from './resources.js';

export type PromptContent =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'resource'; readonly resource: ResourceContents };

export interface PromptMessage {
  readonly role: 'user' | 'assistant';
  readonly content: PromptContent;
}

export type PromptGet =
  | {
      readonly ok: true;
      readonly prompt: PromptDescriptor;
      readonly messages: readonly PromptMessage[];
      /** Whether an embedded resource came from a grant: the result is then per caller. */
      readonly fromGrant: boolean;
      /**
       * Whether an embedded resource needs a scope: the result then depends on who asks.
       * Taken from what was read, not from the resource matched at load with a sample
       * value: a filled URI can be a fixed resource with scopes that the load never saw.
       */
      readonly scoped: boolean;
    }
  | { readonly ok: false; readonly error: EngineError };

export interface PromptCatalog {
  byName(name: string): PromptDescriptor | undefined;
  /**
   * `member` narrows which prompts may be got (a toolset's); a non-member is unknown. The
   * resources a prompt embeds are read whatever the toolset (spec-language.md, "Toolsets").
   */
  get(
    name: string,
    args: unknown,
    scope: RequestScope,
    member?: (name: string) => boolean,
  ): Promise<PromptGet>;
}

type ArgumentCheck = (value: string) => string | undefined;

export function preparePrompts(
  prompts: readonly PromptDescriptor[],
  resources: ResourceCatalog,
  redact: Redactor,
): PromptCatalog {
  const byName = new Map(prompts.map((p) => [p.name, p]));
  // Literal text redacted once; an argument's value is the caller's own.
  const textParts = new Map<object, readonly PromptTextPart[]>();
  for (const p of prompts)
    for (const m of p.messages)
      if ('text' in m)
        textParts.set(
          m,
          m.parts.map((part) =>
            'literal' in part ? { literal: redact.text(part.literal) } : part,
          ),
        );
  const checks = new Map(
    prompts.map((p) => [
      p,
      new Map(
        p.arguments.map((a) => {
          const allowed = a.enum && new Set(a.enum);
          const pattern = a.pattern !== undefined ? new RegExp(a.pattern, 'u') : undefined;
          const check: ArgumentCheck = (v) => {
            // Before anything reads it as text: a value may fill a resource URI.
            const broken = loneSurrogateProblem(v);
            if (broken) return broken;
            if ([...v].length > a.maxLength) return `must be at most ${a.maxLength} characters`;
            if (allowed && !allowed.has(v))
              return `must be one of ${a.enum!.map((e) => JSON.stringify(e)).join(', ')}`;
            if (pattern && !pattern.test(v)) return `must match ${a.pattern}`;
            return undefined;
          };
          return [a.name, check] as const;
        }),
      ),
    ]),
  );

  return {
    byName: (name) => byName.get(name),
    async get(name, args, scope, member) {
      const prompt = member === undefined || member(name) ? byName.get(name) : undefined;
      if (!prompt)
        return {
          ok: false,
          error: engineError(
            'UNKNOWN_PROMPT',
            `Unknown prompt: ${JSON.stringify(clipped(name, MAX_QUOTED_NAME))}`,
          ),
        };
      const denied = checkScopes(`prompt ${prompt.name}`, prompt.scopes, scope.caller);
      if (denied) return { ok: false, error: denied };
      const values = argumentValues(prompt, args, checks.get(prompt)!);
      if (!values.ok) return values;
      const messages: PromptMessage[] = [];
      let fromGrant = false;
      let scoped = false;
      for (const m of prompt.messages) {
        if ('text' in m) {
          messages.push({
            role: m.role,
            content: { type: 'text', text: fillPlaceholders(textParts.get(m)!, values.values) },
          });
          continue;
        }
        // A value fills one URI part: percent-encoded, as RFC 6570 simple expansion does.
        const uri = fillPlaceholders(m.parts, values.values, encodeURIComponent);
        const read = await resources.read(uri, scope);
        if (!read.ok) return read;
        if (read.resource.content.kind === 'tool') fromGrant = true;
        if (read.resource.scopes.length > 0) scoped = true;
        messages.push({ role: m.role, content: { type: 'resource', resource: read.contents } });
      }
      return { ok: true, prompt, messages, fromGrant, scoped };
    },
  };
}

type Values = { ok: true; values: Record<string, string> } | { ok: false; error: EngineError };

/**
 * Arguments are strings; undeclared, missing required or out-of-rule ones are named, the
 * first few of them and the count of the rest (refusal-text.ts).
 */
function argumentValues(
  prompt: PromptDescriptor,
  given: unknown,
  checks: ReadonlyMap<string, ArgumentCheck>,
): Values {
  const problems = new ProblemList();
  const refuse = (): Values => ({
    ok: false,
    error: problems.refusal(
      `arguments of prompt ${prompt.name}`,
      (p) => `${p.field.slice(1) || '(arguments)'} ${p.message}`,
    )!,
  });
  if (given === undefined || given === null) given = {};
  if (typeof given !== 'object' || Array.isArray(given)) {
    problems.add('', 'must be an object of strings');
    return refuse();
  }
  const input = given as Record<string, unknown>;
  for (const key of Object.keys(input))
    if (!checks.has(key)) problems.add(`/${clipped(key)}`, 'is not an argument of this prompt');
  const values: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const a of prompt.arguments) {
    const v = Object.hasOwn(input, a.name) ? input[a.name] : undefined;
    if (v === undefined) {
      if (a.required) problems.add(`/${a.name}`, 'is required');
      else values[a.name] = a.default ?? '';
      continue;
    }
    if (typeof v !== 'string') {
      problems.add(`/${a.name}`, 'must be a string');
      continue;
    }
    const why = checks.get(a.name)!(v);
    if (why) problems.add(`/${a.name}`, why);
    else values[a.name] = v;
  }
  return problems.total > 0 ? refuse() : { ok: true, values };
}
