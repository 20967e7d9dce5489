/**
 * ToolDescriptor → the MCP `Tool` object that tools/list serves (both eras share it):
 * name, title, description, inputSchema, outputSchema, annotations, in spec order.
 */
import type { ToolDescriptor } from '../../compiler/descriptor.js';

export interface ToolDefinition {
  readonly name: string;
  readonly title: string;
  readonly description?: string;
  readonly inputSchema: ToolDescriptor['inputSchema'];
  readonly outputSchema: ToolDescriptor['outputSchema'];
  readonly annotations: ToolDescriptor['annotations'];
}

export function toolDefinition(d: ToolDescriptor): ToolDefinition {
  return {
    name: d.name,
    title: d.title,
    ...(d.description !== undefined && { description: d.description }),
    inputSchema: d.inputSchema,
    outputSchema: d.outputSchema,
    annotations: d.annotations,
  };
}

export function toolList(tools: readonly ToolDescriptor[]): { tools: ToolDefinition[] } {
  return { tools: tools.map(toolDefinition) };
}
