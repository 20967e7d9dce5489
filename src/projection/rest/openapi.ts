/**
 * The REST surface as an OpenAPI 3.1 document, built from the same descriptors as the
 * routes and tools/list: one `POST /api/<tool>` per grant, its inputSchema as the
 * request body (JSON Schema 2020-12 is native in OAS 3.1), the envelope as the 200
 * answer, and the catalogue errors that grant can produce, grouped by status; then the
 * resource read and prompt get routes when the spec serves those (openapi-resource-prompt.ts).
 * Of a toolset (`?toolset=`), only its members and the routes of the kinds it has.
 * Objects are built in a fixed key order and tools stay in spec order, so the
 * serialized document is stable and can be pinned by a golden file.
 */
import type { CompiledSpec, ToolDescriptor, ToolsetDescriptor } from '../../compiler/descriptor.js';
import { COVERAGE_SCHEMA } from '../../compiler/output-schema.js';
import { KINDS } from '../../engine/backends/kinds.js';
import { errorCodesFor } from './openapi-error-codes.js';
import { CODES, errorResponses } from './openapi-responses.js';
import { resourcePromptPaths, type ResourcePromptView } from './openapi-resource-prompt.js';
import { servedKinds, type ServedKinds } from './resource-prompt-listing.js';

export { errorCodesFor };

export const OPENAPI_PATH = '/openapi.json';

type Json = Record<string, unknown>;

export interface OpenApiDocument {
  readonly openapi: '3.1.0';
  readonly jsonSchemaDialect: string;
  readonly info: Json;
  readonly servers?: readonly { readonly url: string }[];
  readonly security?: readonly Json[];
  readonly tags: readonly Json[];
  readonly paths: Record<string, { readonly post: Json }>;
  readonly components: Json;
}

export interface OpenApiOptions {
  /** The gateway's base URL; the document then has `servers: [{url}]`. */
  readonly serverUrl?: string;
  /** Which tools to include (the caller's visible ones); all when omitted. */
  readonly visible?: (d: ToolDescriptor) => boolean;
  /** Which resources, templates and prompts to include (the caller's view); all when omitted. */
  readonly resourcesAndPrompts?: ResourcePromptView;
  /**
   * The toolset the document is of (`?toolset=`): `info` names it and puts its `describe`
   * first, as its MCP instructions do. The caller's view is then of its members.
   */
  readonly toolset?: ToolsetDescriptor;
  /** Which of the read and get routes to describe; by default those the spec serves. */
  readonly serves?: ServedKinds;
}

const COVERAGE_REF = '#/components/schemas/Coverage';
const SECURITY = 'bearer';

export function buildOpenApi(spec: CompiledSpec, opts: OpenApiOptions = {}): OpenApiDocument {
  const access = spec.access !== undefined;
  const tools = spec.tools.filter((d) => opts.visible?.(d) ?? true);
  const paths: Record<string, { post: Json }> = {};
  for (const d of tools) paths[`/api/${d.name}`] = { post: operation(d, spec) };
  const kinds = [...new Set(tools.map((d) => d.backend.kind))];
  const extra = resourcePromptPaths(
    opts.resourcesAndPrompts ?? wholeView(spec),
    spec,
    opts.serves ?? servedKinds(spec),
  );
  Object.assign(paths, extra.paths);
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: info(spec, opts.toolset),
    ...(opts.serverUrl !== undefined && { servers: [{ url: opts.serverUrl }] }),
    ...(access && { security: [{ [SECURITY]: [] }] }),
    tags: [...kinds.map((name) => ({ name, description: KINDS[name].tag })), ...extra.tags],
    paths,
    components: components(spec),
  };
}

function info(spec: CompiledSpec, toolset: ToolsetDescriptor | undefined): Json {
  const { server } = spec;
  const title = server.title ?? server.name;
  const said = [toolset?.description, server.instructions].filter((s) => s !== undefined);
  return {
    title: toolset ? `${title} (toolset ${toolset.name})` : title,
    version: server.version,
    ...(said.length > 0 && { description: said.join('\n\n') }),
  };
}

function wholeView(spec: CompiledSpec): ResourcePromptView {
  return {
    resources: spec.resources.filter((r) => !r.template),
    templates: spec.resources.filter((r) => r.template),
    prompts: spec.prompts,
  };
}

function operation(d: ToolDescriptor, spec: CompiledSpec): Json {
  const scoped = spec.access !== undefined && d.scopes.length > 0;
  const scopeLine = scoped
    ? `Requires scope ${d.scopes.map((s) => `\`${s}\``).join(' and ')}.`
    : undefined;
  const description = [d.description, scopeLine].filter((s) => s !== undefined).join('\n\n');
  const required = (d.inputSchema as { required?: readonly string[] }).required ?? [];
  return {
    operationId: d.name,
    summary: d.title,
    ...(description !== '' && { description }),
    tags: [d.backend.kind],
    ...(scoped && { security: [{ [SECURITY]: [...d.scopes] }], 'x-required-scopes': d.scopes }),
    'x-mcp-annotations': d.annotations,
    requestBody: {
      description: 'The tool arguments. An empty body is a call with no arguments.',
      required: required.length > 0,
      content: { 'application/json': { schema: d.inputSchema } },
    },
    responses: responses(d, spec),
  };
}

function responses(d: ToolDescriptor, spec: CompiledSpec): Json {
  const out: Json = {
    200: {
      description: 'The envelope: `coverage` (read it first), then `result`.',
      content: { 'application/json': { schema: withCoverageRef(d.outputSchema) } },
    },
  };
  Object.assign(out, errorResponses(errorCodesFor(d, spec), d.limits.rateLimit));
  return out;
}

/**
 * The tool's envelope schema with its terse coverage (tools/list repeats it per tool) in
 * place of the whole, typed and described one, which the document holds once.
 */
function withCoverageRef(schema: ToolDescriptor['outputSchema']): Json {
  const properties = schema.properties as Json;
  return { ...schema, properties: { ...properties, coverage: { $ref: COVERAGE_REF } } };
}

function components(spec: CompiledSpec): Json {
  const out: Json = {
    schemas: {
      Error: {
        type: 'object',
        description: 'Every failure: a stable code from the error catalogue and a message.',
        properties: {
          error: {
            type: 'object',
            properties: {
              code: { type: 'string', enum: [...CODES] },
              message: { type: 'string' },
              details: {
                description:
                  'Invalid arguments: one entry per problem; otherwise an object whose fields depend on the code.',
                anyOf: [
                  { type: 'array', items: { $ref: '#/components/schemas/FieldProblem' } },
                  { type: 'object' },
                ],
              },
            },
            required: ['code', 'message'],
          },
        },
        required: ['error'],
      },
      Coverage: COVERAGE_SCHEMA,
      FieldProblem: {
        type: 'object',
        properties: {
          field: {
            type: 'string',
            description: 'The argument, as a JSON pointer into the arguments ("/per_page").',
          },
          message: { type: 'string' },
        },
        required: ['field', 'message'],
      },
    },
  };
  if (spec.access) {
    const { apiKeys, oauth } = spec.access;
    const ways = [
      ...(apiKeys.length > 0 ? ['an API key'] : []),
      ...(oauth ? [`an OAuth access token from ${oauth.issuer} for ${oauth.audience}`] : []),
    ];
    const text = ways.join(', or ');
    out.securitySchemes = {
      [SECURITY]: {
        type: 'http',
        scheme: 'bearer',
        ...(oauth && apiKeys.length === 0 && { bearerFormat: 'JWT' }),
        description: `${text.charAt(0).toUpperCase()}${text.slice(1)}.`,
      },
    };
  }
  return out;
}
