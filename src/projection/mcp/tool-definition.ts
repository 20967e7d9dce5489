/**
 * Descriptor → the MCP `Tool` object that tools/list serves (both eras share it):
 * name, title, description, inputSchema, outputSchema, annotations, in spec order.
 */
import type { Descriptor } from '../../spec/descriptor.js';

export interface ToolDefinition {
  readonly name: string;
  readonly title: string;
  readonly description?: string;
  readonly inputSchema: Descriptor['inputSchema'];
  readonly outputSchema: Descriptor['outputSchema'];
  readonly annotations: Descriptor['annotations'];
}

export function toolDefinition(d: Descriptor): ToolDefinition {
  return {
    name: d.name,
    title: d.title,
    ...(d.description !== undefined && { description: d.description }),
    inputSchema: d.inputSchema,
    outputSchema: d.outputSchema,
    annotations: d.annotations,
  };
}

export function toolList(tools: readonly Descriptor[]): { tools: ToolDefinition[] } {
  return { tools: tools.map(toolDefinition) };
}
