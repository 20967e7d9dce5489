/**
 * The meaning of every `prompt` (spec-language.md, "Resources and prompts"): its name,
 * arguments whose rules a default and enum values obey, messages whose placeholders are
 * declared arguments, and embedded resources that some declared resource serves.
 */
import { reportPattern } from './check-fields.js';
import type { Diagnostics, Position, Subject } from './diagnostics.js';
import { checkPattern } from './pattern-safety.js';
import { fillPlaceholders, placeholdersOf, PROMPT_NAME, splitPlaceholders } from './prompt-text.js';
import type { PromptArgumentSpec, PromptSpec, ResourceSpec, Spec } from './spec-types.js';
import { compileUriPlan, matchUri } from './uri-match.js';
import { parseUriTemplate } from './uri-template.js';

export const DEFAULT_PROMPT_MAX_LENGTH = 1000;
const ROLES: ReadonlySet<string> = new Set(['user', 'assistant']);

export function checkPrompts(spec: Spec, diag: Diagnostics): void {
  const first = new Map<string, Position>();
  for (const p of spec.prompts) {
    const subject = [`prompt ${p.name.value}`];
    if (!PROMPT_NAME.test(p.name.value))
      diag.error(
        'SPEC_PROMPT_NAME',
        p.name.at,
        subject,
        `prompt name ${JSON.stringify(p.name.value)} must match ${PROMPT_NAME.source}`,
      );
    const seen = first.get(p.name.value);
    if (seen)
      diag.error(
        'SPEC_DUPLICATE_PROMPT',
        p.name.at,
        subject,
        `prompt name ${p.name.value} is already taken by the prompt at line ${seen.line}`,
      );
    else first.set(p.name.value, p.at);
    checkPrompt(p, spec, diag, subject);
  }
}

function checkPrompt(p: PromptSpec, spec: Spec, diag: Diagnostics, subject: Subject): void {
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
  for (const m of p.messages) {
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
      continue;
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
    if (m.resource && !embeddedResource(m.resource.value, spec.resources))
      diag.error(
        'SPEC_PROMPT_RESOURCE',
        m.resource.at,
        subject,
        `resource=${JSON.stringify(m.resource.value)} matches no declared resource or template`,
      );
  }
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
 * The resource a message embeds: a fixed URI served as written or by a template; a URI
 * with placeholders must have the shape of a template (each placeholder filling a part).
 */
export function embeddedResource(
  uri: string,
  resources: readonly ResourceSpec[],
): ResourceSpec | undefined {
  const withPlaceholders = placeholdersOf(uri).length > 0;
  // A placeholder stands for one value: a sample without '/' tests the shape.
  const sample = fillPlaceholders(splitPlaceholders(uri), {}, () => 'x');
  for (const r of resources) {
    const t = parseUriTemplate(r.uri.value);
    if (!t.ok) continue;
    if (t.variables.length === 0) {
      if (!withPlaceholders && r.uri.value === uri) return r;
      continue;
    }
    if (matchUri(compileUriPlan(t.literals), sample)) return r;
  }
  return undefined;
}
