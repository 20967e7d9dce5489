/**
 * ToolDescriptor → the MCP `Tool` object that tools/list serves (both eras share it):
 * name, title, description, inputSchema, outputSchema, annotations, _meta, in spec order.
 */
import type { ToolDescriptor } from '../../compiler/descriptor.js';

/**
 * The `_meta` key that tells a client how large a tool's result can be, so it keeps the
 * result in context instead of spilling it to a file (spec-language.md, "Result bounds
 * for clients").
 */
export const MAX_RESULT_SIZE_META = 'anthropic/maxResultSizeChars';

export interface ToolDefinition {
  readonly name: string;
  readonly title: string;
  readonly description?: string;
  readonly inputSchema: ToolDescriptor['inputSchema'];
  readonly outputSchema: ToolDescriptor['outputSchema'];
  readonly annotations: ToolDescriptor['annotations'];
  readonly _meta: { readonly [MAX_RESULT_SIZE_META]: number };
}

export function toolDefinition(d: ToolDescriptor): ToolDefinition {
  return {
    name: d.name,
    title: d.title,
    ...(d.description !== undefined && { description: d.description }),
    inputSchema: d.inputSchema,
    outputSchema: d.outputSchema,
    annotations: d.annotations,
    // `max-bytes` bounds the envelope in bytes, so in characters too (a character is at
    // least one byte): the gateway has already cut the result to fit.
    _meta: { [MAX_RESULT_SIZE_META]: d.limits.maxBytes },
  };
}

export function toolList(tools: readonly ToolDescriptor[]): { tools: ToolDefinition[] } {
  return { tools: tools.map(toolDefinition) };
}
