/**
 * Descriptors → the MCP `Resource`, `ResourceTemplate` and `Prompt` objects the lists
 * serve (both eras share them), in spec order.
 */
import type { PromptDescriptor, ResourceDescriptor } from '../../compiler/descriptor.js';

export function about(d: { title?: string; description?: string }): Record<string, string> {
  return {
    ...(d.title !== undefined && { title: d.title }),
    ...(d.description !== undefined && { description: d.description }),
  };
}

export function resourceDefinition(r: ResourceDescriptor): Record<string, unknown> {
  return { uri: r.uri, name: r.name, ...about(r), mimeType: r.mimeType };
}

export function templateDefinition(r: ResourceDescriptor): Record<string, unknown> {
  return { uriTemplate: r.uri, name: r.name, ...about(r), mimeType: r.mimeType };
}

/** A prompt argument as the lists name it; GET /api adds what a form needs. */
export function promptArgument(a: PromptDescriptor['arguments'][number]): Record<string, unknown> {
  return {
    name: a.name,
    ...(a.description !== undefined && { description: a.description }),
    required: a.required,
  };
}

export function promptDefinition(p: PromptDescriptor): Record<string, unknown> {
  return { name: p.name, ...about(p), arguments: p.arguments.map(promptArgument) };
}
