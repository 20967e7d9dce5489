/** One checked grant → its frozen ToolDescriptor, every default resolved (spec-language.md, "Grants"). */
import type {
  ToolDescriptor,
  HttpBackend,
  JsonScalar,
  ShapeDescriptor,
  SqlBackend,
} from './descriptor.js';
import { deepFreeze } from './freeze.js';
import {
  bodyPlacements,
  bodyTree,
  inputSchema,
  paramPlacements,
  pathPlacements,
  queryPlacements,
  type Placement,
} from './grant-arguments.js';
import { defaultTitle, toolName } from './naming.js';
import { HTTP_OUTPUT_SCHEMA, SQL_OUTPUT_SCHEMA, shapedOutputSchema } from './output-schema.js';
import { parseTemplate } from './path-template.js';
import type { GrantSpec, Spec } from './spec-types.js';
import { behaviourOf, methodOfVerb, type HttpMethod } from './verbs.js';

export const DEFAULT_MAX_BYTES = 262_144;
export const DEFAULT_BUDGET_BYTES = 40_000;
export const DEFAULT_TIMEOUT_MS = 10_000;
/** Rows beyond this are dropped and reported in coverage (spec-language.md, max-rows). */
export const DEFAULT_MAX_ROWS = 1000;

/** What every grant takes from the spec around it, resolved once. */
export interface LowerScope {
  readonly spec: Spec;
  readonly baseUrl: string;
  readonly statementTimeoutMs: number;
}

export function lowerGrant(g: GrantSpec, scope: LowerScope): ToolDescriptor {
  const { spec } = scope;
  const verb = g.verb.value;
  const method = (g.method?.value as HttpMethod | undefined) ?? methodOfVerb(g.verb.value)!;
  // Annotations follow the verb's meaning when the verb is known (`cancel` sent as
  // POST is still destructive); `method` supplies them only for verbs outside the table.
  const behaviour = behaviourOf(methodOfVerb(verb) ?? method);
  const isSql = g.sql !== undefined;
  const lowered = isSql ? lowerSql(g, behaviour.readOnly, scope) : lowerHttp(g, method, scope);
  const { placements, backend } = lowered;
  const names = new Set(placements.map((p) => p.argument.name));
  const blocks = isSql ? [g.params] : [g.query, g.body];
  const title = g.title ?? defaultTitle(verb, g.resource);
  const rateLimit = g.rateLimit ?? spec.rateLimit;
  const shape = shapeOf(g);
  const description = shape ? withShape(g.describe, shape) : g.describe;
  const outputSchema = isSql ? SQL_OUTPUT_SCHEMA : HTTP_OUTPUT_SCHEMA;
  const restrict = spec.restrict
    .filter((r) => names.has(r.value.argument))
    .map(({ value: r }) => ({
      argument: r.argument,
      ...(r.values && { values: r.values.map((v) => v.value) }),
      ...(r.pattern && { pattern: r.pattern.value }),
    }));
  return deepFreeze<ToolDescriptor>({
    name: toolName(verb, g.resource),
    verb,
    resource: g.resource,
    title,
    ...(description !== undefined && { description }),
    annotations: {
      title,
      readOnlyHint: behaviour.readOnly,
      destructiveHint: behaviour.destructive,
      idempotentHint: behaviour.idempotent,
      openWorldHint: !isSql,
    },
    inputSchema: inputSchema(placements, new Map(restrict.map((r) => [r.argument, r]))),
    outputSchema: shape ? shapedOutputSchema(outputSchema, shape) : outputSchema,
    arguments: placements.map((p) => p.argument),
    exclusive: blocks.flatMap((b) => (b?.exclusive ?? []).map((x) => x.value.map((n) => n.value))),
    restrict,
    scopes: [...new Set(g.scopes)],
    limits: {
      maxBytes: g.maxBytes ?? spec.limits.maxBytes ?? DEFAULT_MAX_BYTES,
      budgetBytes: g.budgetBytes ?? spec.limits.budgetBytes ?? DEFAULT_BUDGET_BYTES,
      ...(rateLimit && { rateLimit: { count: rateLimit.count, windowMs: rateLimit.windowMs } }),
    },
    backend,
    ...(shape && { shape }),
    source: { file: spec.file, line: g.at.line, column: g.at.column },
  });
}

function shapeOf(g: GrantSpec): ShapeDescriptor | undefined {
  const given = g.pick ?? g.omit;
  return given && { mode: g.pick ? 'pick' : 'omit', paths: given.value.map((p) => p.value) };
}

/** The tool description says what shaping keeps, so a model knows what it will not see. */
function withShape(describe: string | undefined, shape: ShapeDescriptor): string {
  const said =
    shape.mode === 'pick'
      ? `The result keeps only these fields: ${shape.paths.join(', ')}.`
      : `The result leaves out these fields: ${shape.paths.join(', ')}.`;
  return describe === undefined ? said : `${describe} ${said}`;
}

interface Lowered<B> {
  readonly placements: readonly Placement[];
  readonly backend: B;
}

function lowerSql(g: GrantSpec, readOnly: boolean, scope: LowerScope): Lowered<SqlBackend> {
  return {
    placements: paramPlacements(g),
    backend: {
      kind: 'sql',
      statement: g.sql!.value,
      readOnly,
      maxRows: g.maxRows?.value ?? DEFAULT_MAX_ROWS,
      timeoutMs: g.timeoutMs ?? scope.statementTimeoutMs,
    },
  };
}

function lowerHttp(g: GrantSpec, method: HttpMethod, scope: LowerScope): Lowered<HttpBackend> {
  const { spec } = scope;
  const template = parseTemplate(g.path!.value);
  if (!template.ok) throw new Error(`lowering an unchecked grant: ${template.reason}`);
  const body = bodyPlacements(g);
  const placements = [...pathPlacements(g, template.params), ...queryPlacements(g), ...body];
  const fields = body.flatMap((p) => {
    const tree = p.nested ? undefined : bodyTree(p.field);
    return tree ? [tree] : [];
  });
  // set: fixed server-side values, never overridable by the caller.
  const headers = new Map(
    spec.headers.map(({ value: [k, v] }) => [k.toLowerCase(), [k, v] as const]),
  );
  const setQuery: [string, JsonScalar][] = [];
  const setBody: { path: string[]; value: JsonScalar }[] = [];
  for (const s of g.set?.value ?? []) {
    if (s.target === 'query') setQuery.push([s.key, s.value]);
    else if (s.target === 'header') headers.set(s.key.toLowerCase(), [s.key, String(s.value)]);
    else setBody.push({ path: s.key.split('.'), value: s.value });
  }
  const encoding = g.body?.encoding ?? 'json';
  const auth = spec.auth?.value;
  return {
    placements,
    backend: {
      kind: 'http',
      method,
      baseUrl: scope.baseUrl,
      pathTemplate: g.path!.value,
      path: template.parts,
      ...((g.body || setBody.length > 0) && { body: { encoding, fields } }),
      // A form-speaking upstream reads `+` as a space; any other may read it literally.
      queryEncoding: g.query?.encoding ?? (encoding === 'form' ? 'form' : 'percent'),
      headers: [...headers.values()],
      setQuery,
      setBody,
      ...(auth && { auth }),
      timeoutMs: g.timeoutMs ?? spec.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    },
  };
}
