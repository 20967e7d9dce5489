/**
 * Checked prompts → PromptDescriptors: message text split into literal pieces and
 * argument placeholders once, and the scopes of every embedded resource added to the
 * prompt's own, so a caller who cannot read what a prompt embeds does not see it.
 */
import { DEFAULT_PROMPT_MAX_LENGTH, embeddedResource } from './check-prompt.js';
import type {
  PromptDescriptor,
  PromptMessageDescriptor,
  ResourceDescriptor,
} from './descriptor.js';
import { splitPlaceholders } from './prompt-text.js';
import type { Spec } from './spec-types.js';

export function lowerPrompts(
  spec: Spec,
  resources: readonly ResourceDescriptor[],
): PromptDescriptor[] {
  return spec.prompts.map((p) => {
    const scopes = [...p.scopes];
    const messages = p.messages.map((m): PromptMessageDescriptor => {
      const role = m.role.value as 'user' | 'assistant';
      if (m.resource) {
        const written = embeddedResource(m.resource.value, spec.resources)!;
        const lowered = resources[spec.resources.indexOf(written)]!;
        scopes.push(...lowered.scopes);
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
      source: { file: spec.file, line: p.at.line, column: p.at.column },
    };
  });
}
