/**
 * Typed argument validation: ajv validators per grant (JSON Schema 2020-12, no
 * coercion, no $data, defaults applied), compiled in a background warm-up right after
 * start (or on a grant's first call, whichever comes first) so readiness does not wait
 * for a large spec; `check` compiles every schema before deployment. Undeclared
 * arguments are refused by additionalProperties:false and named in the error.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { ToolDescriptor } from '../../compiler/descriptor.js';
import type { EngineError, FieldProblem } from '../error-catalogue.js';
import { invalidArguments, MAX_DETAILS } from '../refusal-text.js';

// ajv-formats is CommonJS; under NodeNext its callable default export arrives wrapped.
type AddFormats = (ajv: Ajv2020, formats: string[]) => unknown;
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ??
  addFormatsModule) as unknown as AddFormats;

export type Validator = ((input: Record<string, unknown>) => EngineError | undefined) & {
  /** Compile the first-error validator now (start-up warm-up) instead of on first call. */
  warm(): void;
};

/**
 * `allErrors` lists every problem (for the answer); without it validation stops at the
 * first. `metaCheck` validates each schema against the 2020-12 meta-schema before
 * compiling it: `check` does (schemaProblems), and so catches a schema ajv would refuse
 * before deployment. The gateway's instances do not: their schemas are the compiler's,
 * which `check` and the tests hold to the meta-schema, and compiling the meta-schema
 * was a seventh of a cold start's CPU.
 */
export function createAjv(allErrors: boolean, { metaCheck = true } = {}): Ajv2020 {
  const ajv = new Ajv2020({
    allErrors,
    validateSchema: metaCheck,
    coerceTypes: false,
    useDefaults: true,
    $data: false,
    strict: true,
    // `raw` without kind= is {"type": ["object", "array"]}, which strict mode refuses otherwise.
    allowUnionTypes: true,
    // The schemas are ours; their size is bounded by the spec, not by callers.
    code: { optimize: true },
  });
  addFormats(ajv, ['date-time', 'date', 'email', 'uri', 'uuid']);
  return ajv;
}

/**
 * JSON cannot hold integers beyond 2^53 exactly: `9007199254740993` arrives as
 * ...992 and would be forwarded wrong. The validator (not the published schema)
 * bounds every integer to the exactly representable range.
 */
function withSafeIntegers(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withSafeIntegers);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema))
    out[k] =
      k === 'enum' || k === 'default'
        ? v
        : k === 'properties'
          ? eachProperty(v as Record<string, unknown>)
          : withSafeIntegers(v);
  if (out.type === 'integer') {
    out.minimum = Math.max(Number(out.minimum ?? -Infinity), Number.MIN_SAFE_INTEGER);
    out.maximum = Math.min(Number(out.maximum ?? Infinity), Number.MAX_SAFE_INTEGER);
  }
  return out;
}

/** `properties` maps field names to schemas: a field named `default` or `type` is no keyword. */
function eachProperty(properties: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(properties)) out[name] = withSafeIntegers(schema);
  return out;
}

/** Inputs with more values than this get only their first problem reported. */
const DETAILED_INPUT_VALUES = 10_000;

/**
 * Two validators from one schema: a first-error one for every call (fast, and the
 * only one a valid call runs), and an all-errors one that lists every problem of a
 * modest invalid input. A huge invalid input gets its first problem only, so an array
 * of a million wrong items costs no more memory than a valid one.
 */
export function prepareValidator(fast: Ajv2020, full: Ajv2020, d: ToolDescriptor): Validator {
  // Compiled on first use, not at boot: compiling two validators per grant was half of
  // start-up (about 1.5 ms a grant), and most grants of a large spec are rarely called.
  // The schema's text is worked out when a validator is compiled, not kept: each grant
  // holding its own copy was a tenth of a 5,000-grant server's heap.
  let quick: ValidateFunction | undefined;
  let thorough: ValidateFunction | undefined;
  const validator = (input: Record<string, unknown>): EngineError | undefined => {
    quick ??= compileShared(fast, d.inputSchema);
    if (quick(input)) return undefined;
    let errors = quick.errors ?? [];
    thorough ??= compileShared(full, d.inputSchema);
    if (!hasMoreValuesThan(input, DETAILED_INPUT_VALUES) && !thorough(input))
      errors = thorough.errors ?? errors;
    return invalidArguments(
      `invalid arguments for ${d.name}`,
      errors.slice(0, MAX_DETAILS).map(describeError),
      errors.length,
    );
  };
  return Object.assign(validator, {
    warm() {
      quick ??= compileShared(fast, d.inputSchema);
    },
  });
}

/**
 * Validators already compiled per ajv instance, by the text of the input schema. Grants
 * with the same arguments (an `id` path parameter, a page of a listing) share one
 * compiled function: what ajv generates depends only on its options and the schema, and
 * a ValidateFunction keeps nothing between calls but `errors`, which a caller reads
 * right after its own synchronous call. A 500-grant spec of two argument shapes
 * compiled 500 validators in its warm-up (0.3 to 0.9 ms each); it now compiles two.
 * A schema ajv refuses is not kept: each grant of it fails (and is reported) alike.
 */
const compiledBySchema = new WeakMap<Ajv2020, Map<string, ValidateFunction>>();
const compiledBySchemaObject = new WeakMap<Ajv2020, WeakMap<object, ValidateFunction>>();

/**
 * The schema as text, a key present with the value undefined included (strict ajv
 * refuses an unknown keyword even then, so such a schema must not share with one
 * without the key).
 */
function schemaKey(schema: unknown): string {
  return JSON.stringify(schema, (_k, v: unknown) => (v === undefined ? UNDEFINED_MARK : v));
}
const UNDEFINED_MARK = '\u0000undefined';

function compileShared(ajv: Ajv2020, inputSchema: object): ValidateFunction {
  let compiled = compiledBySchema.get(ajv);
  if (!compiled) compiledBySchema.set(ajv, (compiled = new Map()));
  // Grants of one input schema object (compiler/freeze.ts shares equal ones) ask once.
  const known = compiledBySchemaObject.get(ajv)?.get(inputSchema);
  if (known) return known;
  const key = schemaKey(inputSchema);
  let fn = compiled.get(key);
  if (!fn) {
    fn = ajv.compile(withSafeIntegers(inputSchema) as object);
    compiled.set(key, fn);
  }
  let byObject = compiledBySchemaObject.get(ajv);
  if (!byObject) compiledBySchemaObject.set(ajv, (byObject = new WeakMap()));
  byObject.set(inputSchema, fn);
  return fn;
}

/**
 * Compiles every tool's input schema once, as `serve` would, and reports the tools
 * whose schema ajv refuses: `check` runs it so such a spec fails before deployment,
 * not on a tool's first call.
 */
export function schemaProblems(
  descriptors: readonly ToolDescriptor[],
): { tool: string; message: string }[] {
  const ajv = createAjv(true);
  const problems: { tool: string; message: string }[] = [];
  // Each distinct schema is compiled once; the grants that share it share its verdict.
  const verdicts = new Map<string, string | undefined>();
  for (const d of descriptors) {
    const key = schemaKey(d.inputSchema);
    let message: string | undefined;
    if (verdicts.has(key)) message = verdicts.get(key);
    else {
      try {
        ajv.compile(withSafeIntegers(d.inputSchema) as object);
      } catch (err) {
        message = (err as Error).message;
      }
      verdicts.set(key, message);
    }
    if (message !== undefined) problems.push({ tool: d.name, message });
  }
  return problems;
}

function hasMoreValuesThan(value: unknown, limit: number): boolean {
  const stack: unknown[] = [value];
  let seen = 0;
  while (stack.length > 0) {
    const v = stack.pop();
    if (++seen > limit) return true;
    if (Array.isArray(v)) {
      if (seen + v.length > limit) return true;
      for (const x of v) stack.push(x);
    } else if (v !== null && typeof v === 'object') {
      // Not Object.values: that copies out every value of a 400,000-key object (0.3 s)
      // before the limit is looked at; this gives up as soon as it is passed.
      for (const k in v) {
        stack.push((v as Record<string, unknown>)[k]);
        if (seen + stack.length > limit) return true;
      }
    }
  }
  return false;
}

function describeError(e: ErrorObject): FieldProblem {
  const at = e.instancePath || '';
  const name = at ? at.slice(1).replace(/\//g, '.') : '';
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'additionalProperties': {
      const extra = String(p.additionalProperty);
      const field = `${at}/${extra}`;
      return {
        field,
        message: `${name ? `${name}.` : ''}${extra} is not an argument of this tool`,
      };
    }
    case 'required':
      return {
        field: `${at}/${String(p.missingProperty)}`,
        message: `${name ? `${name}.` : ''}${String(p.missingProperty)} is required`,
      };
    case 'type':
      return { field: at, message: `${name || 'arguments'} must be ${String(p.type)}` };
    default:
      return { field: at, message: `${name || 'arguments'} ${e.message ?? 'is invalid'}` };
  }
}
