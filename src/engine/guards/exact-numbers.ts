/**
 * Typed numbers a double cannot hold (spec-language.md, "Numbers"): a `number` or
 * `integer` value such as 9007199254740993 or 0.10000000000000000001 would reach the
 * upstream or the database rounded, so it is refused, naming the field. `raw` values
 * are left alone: they are forwarded with the caller's digits (number-text.ts). The
 * walk follows the input schema and runs only for arguments that hold a kept number
 * text, so a call without one pays a WeakSet lookup.
 */
import type { JsonSchema } from '../../spec/field-schema.js';
import { engineError, type EngineError } from '../error-catalogue.js';
import { differsFromDouble, holdsNumberText, numberTextAt } from '../number-text.js';

export type ExactNumberCheck = (input: Record<string, unknown>) => EngineError | undefined;

/** Longest number text quoted back in a message. */
const SHOWN = 40;

export function prepareExactNumbers(tool: string, inputSchema: JsonSchema): ExactNumberCheck {
  return function exactNumberCheck(input) {
    if (!holdsNumberText(input)) return undefined;
    const found = inexact(input, inputSchema, '');
    if (!found) return undefined;
    const name = found.field.slice(1).replace(/\//g, '.');
    const shown = found.text.length > SHOWN ? `${found.text.slice(0, SHOWN)}...` : found.text;
    const message = `${name} is ${shown}, which a double cannot hold exactly (it would be sent as ${JSON.stringify(Number(found.text))}); send it as a string, or inside a raw field, whose numbers are forwarded as written`;
    return engineError('INVALID_ARGUMENTS', `invalid arguments for ${tool}: ${message}`, {
      details: [{ field: found.field, message }],
    });
  };
}

function inexact(
  value: unknown,
  schema: JsonSchema,
  at: string,
): { field: string; text: string } | undefined {
  if (!holdsNumberText(value)) return undefined;
  const items = schema.items as JsonSchema | undefined;
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  const container = value as Record<string, unknown>;
  const keys: (string | number)[] = Array.isArray(value)
    ? items
      ? [...value.keys()]
      : []
    : properties
      ? Object.keys(value as object).filter((k) => Object.hasOwn(properties, k))
      : [];
  for (const key of keys) {
    const child = container[key as string];
    const childSchema = items ?? properties![key as string]!;
    const field = `${at}/${key}`;
    if (typeof child === 'number') {
      const text = numberTextAt(container, key, child);
      if (text !== undefined && differsFromDouble(text)) return { field, text };
    } else {
      const deeper = inexact(child, childSchema, field);
      if (deeper) return deeper;
    }
  }
  return undefined;
}
