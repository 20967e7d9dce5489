/**
 * A tool's `inputSchema` → the grant's `args { fields }`, with the OpenAPI importer's
 * JSON-Schema mapping (map-schema.ts): a tool's arguments are one JSON object, as a
 * request body is, so each property is mapped as a body field (types, required,
 * defaults, enums, bounds, lengths, safe patterns, known formats, objects to depth 3,
 * `raw` beyond). `$ref`s resolve against the schema itself (`#/$defs/…`).
 *
 * A tool is skipped when its input cannot be declared: a schema that is not an object,
 * a free-form object, or a required argument no field can hold (the grant could never
 * send a call the upstream takes). An optional argument that cannot be held is left
 * out with a `//` comment, as in the OpenAPI drafts.
 */
import type { DraftBlock } from '../openapi/draft-types.js';
import { isObject } from '../openapi/json.js';
import { SchemaMapper, typeOf } from '../openapi/map-schema.js';

export type MappedInput = { ok: true; args: DraftBlock } | { ok: false; reason: string };

export function mapToolInput(inputSchema: unknown): MappedInput {
  if (!isObject(inputSchema))
    return { ok: false, reason: 'it lists no inputSchema object (MCP requires one)' };
  const mapper = new SchemaMapper(inputSchema);
  mapper.beginGrant();
  const flat = mapper.flatten(inputSchema);
  if (flat.kind === 'fail') return { ok: false, reason: `its inputSchema: ${flat.reason}` };
  if (flat.kind === 'raw')
    return {
      ok: false,
      reason: `its inputSchema cannot be named fields: ${flat.why}`,
    };
  const s = flat.s;
  const type = typeOf(s);
  if (type !== undefined && type !== 'object')
    return { ok: false, reason: `its inputSchema is of type ${type}, not an object` };
  const props = isObject(s.properties) ? s.properties : {};
  if (Object.keys(props).length === 0) {
    const open =
      s.additionalProperties === true ||
      isObject(s.additionalProperties) ||
      isObject(s.patternProperties);
    return open
      ? { ok: false, reason: 'its input is a free-form object (no properties to declare)' }
      : { ok: true, args: { fields: [], notes: [] } };
  }
  const block = mapper.within(flat.origins, () => mapper.properties(s, 1));
  const required = Array.isArray(s.required) ? (s.required as unknown[]) : [];
  const declared = new Set(block.fields.map((f) => f.as ?? f.name));
  const missing = required.find(
    (k): k is string => typeof k === 'string' && Object.hasOwn(props, k) && !declared.has(k),
  );
  if (missing !== undefined) {
    const why = block.notes.find((n) => n.startsWith(`field ${JSON.stringify(missing)} `));
    return {
      ok: false,
      reason: `its required argument ${JSON.stringify(missing)} cannot be declared${why ? ` (${why.replace(/^field "[^"]*" left out: /, '')})` : ''}`,
    };
  }
  return { ok: true, args: block };
}
