/**
 * Typed numbers a double cannot hold (spec-language.md, "Numbers"): a `number` or
 * `integer` value such as 9007199254740993 or 0.10000000000000000001 would reach the
 * upstream or the database rounded, so it is refused, naming the field. `raw` values
 * are left alone: they are forwarded with the caller's digits (number-text.ts). The
 * walk follows the input schema and the kept texts together, and runs only for
 * arguments that hold a kept number text, so a call without one pays nothing.
 */
import type { JsonSchema } from '../../compiler/field-schema.js';
import { engineError, type EngineError } from '../error-catalogue.js';
import type { CallArguments } from '../call-arguments.js';
import { differsFromDouble, type NumberTexts } from '../../json/number-text.js';

export type ExactNumberCheck = (input: CallArguments) => EngineError | undefined;

/** Longest number text quoted back in a message. */
const SHOWN = 40;

export function prepareExactNumbers(tool: string, inputSchema: JsonSchema): ExactNumberCheck {
  return function exactNumberCheck(input) {
    if (input.texts === undefined) return undefined;
    const found = inexact(input.value, input.texts, inputSchema, '');
    if (!found) return undefined;
    const name = found.field.slice(1).replace(/\//g, '.');
    const shown = found.text.length > SHOWN ? `${found.text.slice(0, SHOWN)}...` : found.text;
    const message = `${name} is ${shown}, which a double cannot hold exactly (it would be sent as ${JSON.stringify(Number(found.text))}); send it as a string, or inside a raw field, whose numbers are forwarded as written`;
    return engineError('INVALID_ARGUMENTS', `invalid arguments for ${tool}: ${message}`, {
      details: [{ field: found.field, message }],
    });
  };
}

/** `value` is a container and `texts` its kept texts. */
function inexact(
  value: unknown,
  texts: NumberTexts,
  schema: JsonSchema,
  at: string,
): { field: string; text: string } | undefined {
  const items = schema.items as JsonSchema | undefined;
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  const container = value as Record<string, unknown>;
  const visit = (key: string | number, child: unknown, childSchema: JsonSchema) => {
    if (typeof child !== 'number') {
      const below = texts.at(key);
      return below && child !== null && typeof child === 'object'
        ? inexact(child, below, childSchema, `${at}/${key}`)
        : undefined;
    }
    const text = texts.textAt(key, child);
    return text !== undefined && differsFromDouble(text)
      ? { field: `${at}/${key}`, text }
      : undefined;
  };
  if (Array.isArray(value)) {
    if (!items) return undefined;
    for (let i = 0; i < value.length; i++) {
      const found = visit(i, value[i], items);
      if (found) return found;
    }
  } else if (properties) {
    for (const k of Object.keys(value as object)) {
      if (!Object.hasOwn(properties, k)) continue;
      const found = visit(k, container[k], properties[k]!);
      if (found) return found;
    }
  }
  return undefined;
}
