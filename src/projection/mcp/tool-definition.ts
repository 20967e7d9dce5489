/**
 * ToolDescriptor → the MCP `Tool` object that tools/list serves (both eras share it):
 * name, title, description, inputSchema, outputSchema, annotations, _meta, in spec order.
 *
 * Every tool of a list is paid for by the model on every turn, so the wire form leaves
 * out what the protocol already implies and what the server's instructions say once
 * (issue 40): hints equal to MCP's defaults, a copy of the title, and the envelope's
 * outputSchema when it says no more than ENVELOPE_GUIDE. The descriptor keeps every
 * value resolved; only this projection omits.
 */
import type {
  Annotations,
  ConsentDescriptor,
  JsonSchema,
  ToolDescriptor,
} from '../../compiler/descriptor.js';
import { HTTP_OUTPUT_SCHEMA, MCP_OUTPUT_SCHEMA } from '../../compiler/output-schema.js';

/**
 * The `_meta` key that tells a client how large a tool's result can be, so it keeps the
 * result in context instead of spilling it to a file (spec-language.md, "Result bounds
 * for clients").
 */
export const MAX_RESULT_SIZE_META = 'anthropic/maxResultSizeChars';

/**
 * The `_meta` key that tells a host, before any call, that a tool asks someone
 * (spec-language.md, "Confirmation and approval"): `{"confirm": true}` for a `confirm` grant,
 * `{"approve": {"by": "<scope>"}}` for an `approve` grant, both members when both. The
 * description says the same in a sentence for the model (compiler/kinds/consent.ts).
 */
export const CONSENT_META = 'mcp-beaver/consent';

export interface ConsentMeta {
  readonly confirm?: true;
  readonly approve?: { readonly by: string };
}

export type WireAnnotations = Partial<Omit<Annotations, 'title'>>;

export interface ToolDefinition {
  readonly name: string;
  readonly title: string;
  readonly description?: string;
  readonly inputSchema: ToolDescriptor['inputSchema'];
  readonly outputSchema?: ToolDescriptor['outputSchema'];
  readonly annotations: WireAnnotations;
  readonly _meta: {
    readonly [MAX_RESULT_SIZE_META]: number;
    readonly [CONSENT_META]?: ConsentMeta;
  };
}

/**
 * The hints a client cannot infer. MCP's defaults are readOnlyHint false,
 * destructiveHint true, idempotentHint false, openWorldHint true, and the destructive
 * and idempotent hints mean something only for a tool that is not read-only; a hint
 * equal to what the client assumes without it is left out. `title` is the tool's own
 * `title` already (clients read that first).
 */
export function wireAnnotations(a: Annotations): WireAnnotations {
  const out: { -readonly [K in keyof WireAnnotations]: boolean } = {};
  if (a.readOnlyHint) out.readOnlyHint = true;
  else {
    if (!a.destructiveHint) out.destructiveHint = false;
    if (a.idempotentHint) out.idempotentHint = true;
  }
  if (!a.openWorldHint) out.openWorldHint = false;
  return out;
}

/**
 * The envelope with an untyped result (an HTTP or upstream MCP grant without pick/omit)
 * is the object with `coverage` and `result` that the server's instructions describe for
 * every tool; repeating it in each tool says nothing more. A typed result (sql rows, the
 * fields pick/omit keep) is served, as it tells the client what the result holds.
 */
function saysMore(schema: JsonSchema): boolean {
  return schema !== HTTP_OUTPUT_SCHEMA && schema !== MCP_OUTPUT_SCHEMA;
}

export function toolDefinition(d: ToolDescriptor): ToolDefinition {
  return {
    name: d.name,
    title: d.title,
    ...(d.description !== undefined && { description: d.description }),
    inputSchema: d.inputSchema,
    ...(saysMore(d.outputSchema) && { outputSchema: d.outputSchema }),
    annotations: wireAnnotations(d.annotations),
    // `max-bytes` bounds the envelope in bytes, so in characters too (a character is at
    // least one byte): the gateway has already cut the result to fit.
    _meta: {
      [MAX_RESULT_SIZE_META]: d.limits.maxBytes,
      ...(d.consent && { [CONSENT_META]: consentMeta(d.consent) }),
    },
  };
}

function consentMeta(c: ConsentDescriptor): ConsentMeta {
  return {
    ...(c.confirm && { confirm: true }),
    ...(c.approve && { approve: { by: c.approve.scope } }),
  };
}

export function toolList(tools: readonly ToolDescriptor[]): { tools: ToolDefinition[] } {
  return { tools: tools.map(toolDefinition) };
}
