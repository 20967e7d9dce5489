/**
 * The REST surface as an OpenAPI 3.1 document, built from the same descriptors as the
 * routes and tools/list: one `POST /api/<tool>` per grant, its inputSchema as the
 * request body (JSON Schema 2020-12 is native in OAS 3.1), the envelope as the 200
 * answer, and the catalogue errors that grant can produce, grouped by status.
 * Objects are built in a fixed key order and tools stay in spec order, so the
 * serialized document is stable and can be pinned by a golden file.
 */
import { STATUS_CODES } from 'node:http';
import {
  ERROR_CATALOGUE,
  type CatalogueEntry,
  type ErrorCode,
} from '../../engine/error-catalogue.js';
import type { CompiledSpec, Descriptor } from '../../spec/descriptor.js';
import { COVERAGE_SCHEMA } from '../../spec/output-schema.js';

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
  readonly visible?: (d: Descriptor) => boolean;
}

const ERROR_REF = '#/components/schemas/Error';
const COVERAGE_REF = '#/components/schemas/Coverage';
const SECURITY = 'bearer';

const TAGS: Record<Descriptor['backend']['kind'], string> = {
  http: 'Grants that call the upstream HTTP API.',
  sql: 'Grants that run a SQL statement on the database.',
};

/**
 * Which catalogue errors a grant can answer with. A code without a rule applies to
 * every grant, except 429 codes, which apply to rate-limited grants only.
 */
const APPLIES: Partial<Record<ErrorCode, (d: Descriptor, spec: CompiledSpec) => boolean>> = {
  UNAUTHENTICATED: (_d, spec) => spec.access !== undefined,
  INSUFFICIENT_SCOPE: (d, spec) => spec.access !== undefined && d.scopes.length > 0,
  PATH_VALUE_REJECTED: (d) => d.arguments.some((a) => a.in === 'path' && !a.fromClaim),
  EXCLUSIVE_ARGUMENTS: (d) => d.exclusive.length > 0,
  DENIED_BY_RESTRICT: (d) => d.restrict.length > 0,
  MISSING_CLAIM: (d) => d.arguments.some((a) => a.fromClaim !== undefined),
  UPSTREAM_STATUS: (d) => d.backend.kind === 'http',
  UPSTREAM_UNREACHABLE: (d) => d.backend.kind === 'http',
  UPSTREAM_BAD_RESPONSE: (d) => d.backend.kind === 'http',
  UPSTREAM_TIMEOUT: (d) => d.backend.kind === 'http',
  SQL_TIMEOUT: (d) => d.backend.kind === 'sql',
  SQL_CONFLICT: (d) => d.backend.kind === 'sql' && !d.backend.readOnly,
  SQL_CONSTRAINT: (d) => d.backend.kind === 'sql' && !d.backend.readOnly,
  SQL_DATA: (d) => d.backend.kind === 'sql',
  SQL_ERROR: (d) => d.backend.kind === 'sql',
  POOL_EXHAUSTED: (d) => d.backend.kind === 'sql',
  DATABASE_UNAVAILABLE: (d) => d.backend.kind === 'sql',
  // The server's own answers, before any grant is involved: not part of a call.
  NOT_FOUND: () => false,
  METHOD_NOT_ALLOWED: () => false,
  MALFORMED_REQUEST: () => false,
  HEADERS_TOO_LARGE: () => false,
  REQUEST_TIMEOUT: () => false,
  // MCP resources and prompts only: no REST route reads or gets them.
  RESOURCE_NOT_FOUND: () => false,
  UNKNOWN_PROMPT: () => false,
};

const CODES = Object.keys(ERROR_CATALOGUE) as ErrorCode[];

function entry(code: ErrorCode): CatalogueEntry {
  return ERROR_CATALOGUE[code];
}

export function errorCodesFor(d: Descriptor, spec: CompiledSpec): ErrorCode[] {
  return CODES.filter((code) => {
    const rule = APPLIES[code];
    if (rule) return rule(d, spec);
    return entry(code).status === 429 ? d.limits.rateLimit !== undefined : true;
  });
}

export function buildOpenApi(spec: CompiledSpec, opts: OpenApiOptions = {}): OpenApiDocument {
  const access = spec.access !== undefined;
  const tools = spec.tools.filter((d) => opts.visible?.(d) ?? true);
  const paths: Record<string, { post: Json }> = {};
  for (const d of tools) paths[`/api/${d.name}`] = { post: operation(d, spec) };
  const kinds = [...new Set(tools.map((d) => d.backend.kind))];
  const { server } = spec;
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: server.title ?? server.name,
      version: server.version,
      ...(server.instructions !== undefined && { description: server.instructions }),
    },
    ...(opts.serverUrl !== undefined && { servers: [{ url: opts.serverUrl }] }),
    ...(access && { security: [{ [SECURITY]: [] }] }),
    tags: kinds.map((name) => ({ name, description: TAGS[name] })),
    paths,
    components: components(spec),
  };
}

function operation(d: Descriptor, spec: CompiledSpec): Json {
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

function responses(d: Descriptor, spec: CompiledSpec): Json {
  const out: Json = {
    200: {
      description: 'The envelope: `coverage` (read it first), then `result`.',
      content: { 'application/json': { schema: withCoverageRef(d.outputSchema) } },
    },
  };
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodesFor(d, spec)) {
    const status = entry(code).status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  for (const status of [...byStatus.keys()].sort((a, b) => a - b)) {
    const codes = byStatus.get(status)!;
    out[status] = errorResponse(status, codes, d);
  }
  return out;
}

/**
 * The tool's envelope schema with its terse coverage (tools/list repeats it per tool) in
 * place of the whole, typed and described one, which the document holds once.
 */
function withCoverageRef(schema: Descriptor['outputSchema']): Json {
  const properties = schema.properties as Json;
  return { ...schema, properties: { ...properties, coverage: { $ref: COVERAGE_REF } } };
}

function errorResponse(status: number, codes: readonly ErrorCode[], d: Descriptor): Json {
  const lines = codes.map((c) => `- \`${c}\`: ${entry(c).summary}`);
  const limit = d.limits.rateLimit;
  if (status === 429 && limit)
    lines.push(`\nThis grant allows ${limit.count} calls per ${windowText(limit.windowMs)}.`);
  const headers: Json = {};
  if (status === 401)
    headers['WWW-Authenticate'] = {
      description: 'Bearer challenge naming the protected resource metadata (RFC 9728).',
      schema: { type: 'string' },
    };
  if (status === 429 || status === 503)
    headers['Retry-After'] = {
      description: 'Seconds to wait before retrying, when the gateway knows.',
      schema: { type: 'integer', minimum: 0 },
    };
  return {
    description: `${STATUS_CODES[status] ?? 'Error'}:\n\n${lines.join('\n')}`,
    ...(Object.keys(headers).length > 0 && { headers }),
    content: {
      'application/json': {
        schema: {
          $ref: ERROR_REF,
          type: 'object',
          properties: {
            error: { type: 'object', properties: { code: { type: 'string', enum: [...codes] } } },
          },
        },
      },
    },
  };
}

function windowText(ms: number): string {
  if (ms === 1_000) return 'second';
  if (ms === 60_000) return 'minute';
  if (ms === 3_600_000) return 'hour';
  return `${ms / 1000} seconds`;
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
