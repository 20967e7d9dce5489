/**
 * `tools <spec>` without --json: one block per tool with every rule its input schema
 * carries (enums and `restrict` allowlists, patterns, bounds, formats, defaults) and the
 * hints of its annotations, so a draft can be reviewed without reading the JSON.
 *
 *   list_issues — List issues  [read-only idempotent open-world]
 *     List issues of a repository, newest first.
 *       owner: string  — one of acme, acme-labs
 *       per_page?: integer  — 1..100; default 30
 */
import { hints, type RemoteTool } from './print.js';

interface Schema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  description?: string;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  anyOf?: Schema[];
  allOf?: Schema[];
}

export interface ToolWithSchema extends RemoteTool {
  description?: string;
  inputSchema?: unknown;
}

export function formatToolBlocks(tools: readonly ToolWithSchema[]): string {
  return tools.map((t) => `${toolBlock(t)}\n\n`).join('');
}

function toolBlock(t: ToolWithSchema): string {
  const h = hints(t);
  const lines = [`${t.name} — ${t.title ?? t.annotations?.title ?? t.name}${h ? `  [${h}]` : ''}`];
  if (t.description) lines.push(`  ${t.description}`);
  const schema = (t.inputSchema ?? {}) as Schema;
  lines.push(...fieldLines(schema, '    '));
  return lines.join('\n');
}

/** One line per property; an object's own properties below it, indented. */
function fieldLines(schema: Schema, indent: string): string[] {
  const required = new Set(schema.required ?? []);
  const lines: string[] = [];
  for (const [name, raw] of Object.entries(schema.properties ?? {})) {
    const s = merged(raw);
    const rules = [...ruleTexts(s), ...(s.description ? [s.description] : [])];
    lines.push(
      `${indent}${name}${required.has(name) ? '' : '?'}: ${typeText(s)}${rules.length > 0 ? `  — ${rules.join('; ')}` : ''}`,
    );
    const nested = s.properties ? s : s.items?.properties ? merged(s.items) : undefined;
    if (nested) lines.push(...fieldLines(nested, `${indent}  `));
  }
  return lines;
}

/** A restrict pattern beside a field's own arrives as allOf: both apply, both are shown. */
function merged(s: Schema): Schema {
  if (!s.allOf) return s;
  const patterns = [s.pattern, ...s.allOf.map((a) => a.pattern)].filter(
    (p): p is string => p !== undefined,
  );
  return {
    ...Object.assign({}, ...s.allOf, s),
    ...(patterns.length > 0 && { pattern: patterns.join(' and ') }),
  } as Schema;
}

function typeText(s: Schema): string {
  if (s.anyOf) return s.anyOf.map(typeText).join('|');
  const type = Array.isArray(s.type) ? s.type.join('|') : (s.type ?? 'any');
  if (type === 'array' && s.items) {
    const item = merged(s.items);
    const itemRules = item.properties ? [] : ruleTexts(item);
    return `array of ${typeText(item)}${itemRules.length > 0 ? ` (${itemRules.join('; ')})` : ''}`;
  }
  return type;
}

/** The constraints of one schema, as short phrases; the default last. */
function ruleTexts(s: Schema): string[] {
  const rules: string[] = [];
  if (s.const !== undefined) rules.push(`exactly ${JSON.stringify(s.const)}`);
  if (s.enum)
    rules.push(
      `one of ${s.enum.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ')}`,
    );
  if (s.format) rules.push(`format ${s.format}`);
  if (s.pattern !== undefined) rules.push(`pattern ${s.pattern}`);
  const range = bounds(s.minimum ?? gt(s.exclusiveMinimum), s.maximum ?? lt(s.exclusiveMaximum));
  if (range) rules.push(range);
  const length = bounds(s.minLength, s.maxLength);
  if (length) rules.push(`length ${length}`);
  const items = bounds(s.minItems, s.maxItems);
  if (items) rules.push(`${items} items`);
  if (s.default !== undefined) rules.push(`default ${JSON.stringify(s.default)}`);
  return rules;
}

const gt = (n: number | undefined): string | undefined => (n === undefined ? undefined : `>${n}`);
const lt = (n: number | undefined): string | undefined => (n === undefined ? undefined : `<${n}`);

function bounds(min: number | string | undefined, max: number | string | undefined): string {
  if (min === undefined && max === undefined) return '';
  if (max === undefined) return typeof min === 'string' ? min : `≥${min}`;
  if (min === undefined) return typeof max === 'string' ? max : `≤${max}`;
  return `${min}..${max}`;
}
