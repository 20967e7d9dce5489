/**
 * `name=value` words for `call` and `prompt` (`id=42 tone=formal`), as the easy
 * alternative to one JSON object. A prompt's arguments are strings; a tool's are typed,
 * so `call` types each value by the tool's input schema: a string property takes the
 * text as it is, an integer or number property a number, a boolean `true` or `false`,
 * anything else (arrays, objects) JSON. `name:=json` gives the JSON value itself whatever
 * the schema says (`tags:='["a","b"]'`, `note:=null`).
 */
import { UsageError } from '../client/options.js';
import { readArguments } from './json-arguments.js';

/**
 * True when the words are one JSON text (inline, @file or -) rather than name=value. A
 * JSON array is taken as JSON too, so that it is refused as "not a JSON object", which
 * says what is wrong, rather than as a word without `=`.
 */
export function isJsonArgument(texts: readonly string[]): boolean {
  const first = texts[0];
  return first !== undefined && (first === '-' || first.startsWith('@') || /^\s*[{[]/.test(first));
}

export interface Word {
  readonly name: string;
  readonly value: string;
  /** `name:=value`: the value is JSON. */
  readonly json: boolean;
}

/** The words split at their first `=` (or `:=`); a name given twice is refused. */
export function splitWords(texts: readonly string[]): Word[] {
  const seen = new Set<string>();
  return texts.map((text) => {
    const eq = text.indexOf('=');
    if (eq <= 0)
      throw new UsageError(`${JSON.stringify(text)} is not name=value (or one JSON object)`);
    const json = text[eq - 1] === ':' && eq > 1;
    const name = text.slice(0, json ? eq - 1 : eq);
    if (seen.has(name)) throw new UsageError(`argument ${name} is given twice`);
    seen.add(name);
    return { name, value: text.slice(eq + 1), json };
  });
}

/** One JSON object, or the words; `{}` for none. */
export async function argumentsOf(
  texts: readonly string[],
  fromWords: (words: Word[]) => Record<string, unknown> | Promise<Record<string, unknown>>,
): Promise<Record<string, unknown>> {
  if (texts.length === 0) return {};
  if (isJsonArgument(texts)) {
    if (texts.length > 1)
      throw new UsageError('give the arguments as one JSON object or as name=value words');
    return readArguments(texts[0]);
  }
  return fromWords(splitWords(texts));
}

function parseJson(word: Word): unknown {
  try {
    return JSON.parse(word.value) as unknown;
  } catch {
    throw new UsageError(`argument ${word.name}: ${JSON.stringify(word.value)} is not JSON`);
  }
}

/** The type a property schema asks for (`["integer", "null"]` is an integer). */
function schemaType(schema: unknown): string | undefined {
  const t = (schema as { type?: unknown } | undefined)?.type;
  if (typeof t === 'string') return t;
  if (Array.isArray(t)) return t.find((x): x is string => typeof x === 'string' && x !== 'null');
  return undefined;
}

/** A tool's words, typed by its input schema's properties. */
export function typedArguments(
  words: readonly Word[],
  properties: Record<string, unknown>,
): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const w of words) {
    if (w.json) {
      args[w.name] = parseJson(w);
      continue;
    }
    const type = Object.hasOwn(properties, w.name) ? schemaType(properties[w.name]) : 'string';
    switch (type) {
      case 'string':
      case undefined:
        args[w.name] = w.value;
        break;
      case 'integer':
      case 'number': {
        const n = w.value.trim() === '' ? NaN : Number(w.value);
        if (!Number.isFinite(n))
          throw new UsageError(`argument ${w.name}: ${JSON.stringify(w.value)} is not a number`);
        args[w.name] = n;
        break;
      }
      case 'boolean':
        if (w.value !== 'true' && w.value !== 'false')
          throw new UsageError(`argument ${w.name}: give true or false`);
        args[w.name] = w.value === 'true';
        break;
      default:
        args[w.name] = parseJson(w);
    }
  }
  return args;
}

/** A prompt's words: strings (`:=` still gives JSON, for a server that takes other types). */
export function stringArguments(words: readonly Word[]): Record<string, unknown> {
  return Object.fromEntries(words.map((w) => [w.name, w.json ? parseJson(w) : w.value]));
}
