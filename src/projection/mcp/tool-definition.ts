/**
 * Descriptor → the MCP `Tool` object that tools/list serves (both eras share it):
 * name, title, description, inputSchema, outputSchema, annotations, in spec order.
 *
 * The annotations leave out `title`: it repeats the tool's own `title`, which every
 * protocol version we speak (2025-06-18 on) ranks first for display, and a list
 * repeats it per tool at the model's expense.
 */
import type { Descriptor } from '../../spec/descriptor.js';

export interface ToolDefinition {
  readonly name: string;
  readonly title: string;
  readonly description?: string;
  readonly inputSchema: Descriptor['inputSchema'];
  readonly outputSchema: Descriptor['outputSchema'];
  readonly annotations: Omit<Descriptor['annotations'], 'title'>;
}

export function toolDefinition(d: Descriptor): ToolDefinition {
  return {
    name: d.name,
    title: d.title,
    ...(d.description !== undefined && { description: d.description }),
    inputSchema: d.inputSchema,
    outputSchema: d.outputSchema,
    annotations: hintsOf(d.annotations),
  };
}

function hintsOf(a: Descriptor['annotations']): ToolDefinition['annotations'] {
  return {
    readOnlyHint: a.readOnlyHint,
    destructiveHint: a.destructiveHint,
    idempotentHint: a.idempotentHint,
    openWorldHint: a.openWorldHint,
  };
}

export function toolList(tools: readonly Descriptor[]): { tools: ToolDefinition[] } {
  return { tools: tools.map(toolDefinition) };
}
