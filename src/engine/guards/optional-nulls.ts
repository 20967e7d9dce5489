/**
 * `null` for an optional field means "not given" (spec-language.md, "Fields"): models
 * routinely send `"since": null` for an argument they mean to leave out. Such members
 * are removed before any guard looks at the arguments, so the call behaves exactly as if
 * they were absent (a default applies, an exclusive group does not count them, nothing
 * is sent upstream). A `null` for a required field stays and is refused by the schema,
 * and so is one for a name the grant does not declare, or for a from-claim argument
 * (neither is in the schema's properties). Values inside a `raw` field are the caller's
 * own JSON and are forwarded as written.
 *
 * The plan is read from the input schema once at boot: per object level, its optional
 * field names and the levels below it. A call walks only where the plan has something.
 */
import type { JsonSchema } from '../../compiler/field-schema.js';

export type NullStripper = (input: Record<string, unknown>) => void;

interface Level {
  /** Optional fields of this object. */
  readonly optional: ReadonlySet<string>;
  /** Fields holding an object (or an array of objects) with a plan of its own. */
  readonly below: ReadonlyMap<string, { readonly level: Level; readonly array: boolean }>;
}

export function prepareNullStripper(inputSchema: JsonSchema): NullStripper | undefined {
  const root = levelOf(inputSchema);
  if (!root) return undefined;
  return function stripOptionalNulls(input) {
    strip(input, root);
  };
}

function levelOf(schema: JsonSchema): Level | undefined {
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  if (!properties) return undefined;
  const required = new Set((schema.required as readonly string[] | undefined) ?? []);
  const optional = new Set(Object.keys(properties).filter((k) => !required.has(k)));
  const below = new Map<string, { level: Level; array: boolean }>();
  for (const [name, s] of Object.entries(properties)) {
    const array = s.type === 'array';
    const level = levelOf(array ? ((s.items as JsonSchema | undefined) ?? {}) : s);
    if (level) below.set(name, { level, array });
  }
  return optional.size > 0 || below.size > 0 ? { optional, below } : undefined;
}

function strip(value: unknown, level: Level): void {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return;
  const o = value as Record<string, unknown>;
  for (const name of level.optional)
    if (Object.hasOwn(o, name) && o[name] === null) Reflect.deleteProperty(o, name);
  for (const [name, { level: next, array }] of level.below) {
    if (!Object.hasOwn(o, name)) continue;
    const v = o[name];
    if (array && Array.isArray(v)) for (const item of v) strip(item, next);
    else if (!array) strip(v, next);
  }
}
