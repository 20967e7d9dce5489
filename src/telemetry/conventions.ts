/**
 * Span names and attributes in the names of the OpenTelemetry MCP semantic conventions
 * (docs/observability.md, "Spans"), plus the gateway's own `mcp_beaver.*`. Pure
 * functions: the projections and backends call them only when their span is recording, so
 * none of these strings or objects is built with telemetry off. Nothing here takes an
 * argument value, a result or a credential: a span never carries them.
 */
import type { Coverage } from '../envelope/envelope.js';
import type { Attributes } from './span.js';

/** What the server span of one MCP request is named after. */
export interface McpRequestFacts {
  readonly method: string;
  /** The tool of a tools/call, the prompt of a prompts/get. */
  readonly target?: string;
  readonly protocolVersion?: string;
  readonly requestId?: string | number | null;
  /** The toolset whose URL the request came to (`/mcp/<toolset>`); absent on `/mcp`. */
  readonly toolset?: string;
}

/** `{mcp.method.name} {target}`: `tools/call list_issues`, `prompts/get triage`, `tools/list`. */
export function mcpServerSpanName(method: string, target: string | undefined): string {
  return target === undefined ? method : `${method} ${target}`;
}

/** The target the span name carries: a tools/call's tool, a prompts/get's prompt; else none. */
export function mcpTargetOf(
  method: string,
  params: Record<string, unknown> | undefined,
): string | undefined {
  if (method !== 'tools/call' && method !== 'prompts/get') return undefined;
  const name = params?.name;
  return typeof name === 'string' ? name : undefined;
}

export function mcpServerAttributes(f: McpRequestFacts): Attributes {
  const call = f.method === 'tools/call';
  return {
    'mcp.method.name': f.method,
    'mcp.protocol.version': f.protocolVersion,
    'gen_ai.tool.name': call ? f.target : undefined,
    'gen_ai.prompt.name': f.method === 'prompts/get' ? f.target : undefined,
    'gen_ai.operation.name': call ? 'execute_tool' : undefined,
    'jsonrpc.request.id':
      f.requestId === null || f.requestId === undefined ? undefined : String(f.requestId),
    'network.transport': 'tcp',
    'mcp_beaver.toolset': f.toolset,
  };
}

/**
 * The REST route a call's span is named after, literally: one name for every tool. In the
 * conventions' template form, as the span name and http.server.request.duration's
 * http.route have it (rest-routes.ts TOOL_ROUTE), not fastify's `:tool`: a trace and a
 * histogram of one call must name the same route.
 */
export const REST_ROUTE = '/api/{tool}';
export const REST_SPAN_NAME = 'POST /api/{tool}';

/** `tool` only when the spec has it (rest-call-span.ts): the route's text is the caller's. */
export function restServerAttributes(tool: string | undefined): Attributes {
  return {
    'http.request.method': 'POST',
    'http.route': REST_ROUTE,
    'gen_ai.tool.name': tool,
  };
}

/** What the HTTP server conventions read of the request a span stands for (fastify's). */
export interface ServedHttpRequest {
  /** `http` or `https`, as the connection or a trusted proxy says. */
  readonly protocol: string;
  /** The peer's address, or a trusted proxy's X-Forwarded-For. */
  readonly ip: string;
  /** The port of the Host (or trusted X-Forwarded-Host) header; null when it names none. */
  readonly port: number | null;
}

/**
 * `url.scheme`, `server.port` and `client.address` of a request served over HTTP, where
 * the HTTP server conventions put them (MCP's server spans over HTTP too). The port is
 * the one the caller addressed (Host), its scheme's default when Host names none.
 */
export function httpServerAttributes(req: ServedHttpRequest): Attributes {
  return {
    'url.scheme': req.protocol,
    'server.port': req.port ?? DEFAULT_PORTS[`${req.protocol}:`],
    'client.address': req.ip,
  };
}

/** A fastify route in the conventions' template form: `/mcp/:toolset` → `/mcp/{toolset}`. */
export function routeTemplate(route: string): string {
  return route.replace(/:([A-Za-z_]\w*)/g, '{$1}');
}

/**
 * An upstream HTTP call's span: `{method} {path template}` (`GET /repos/{owner}/issues`),
 * low-cardinality as the HTTP client conventions ask. `url.template` is the base URL and
 * the path template, never the URL sent: that carries argument values.
 */
export function httpClientSpanName(method: string, pathTemplate: string): string {
  return `${method} ${pathTemplate}`;
}

export function httpClientAttributes(
  method: string,
  baseUrl: string,
  pathTemplate: string,
): Attributes {
  const at = addressOf(baseUrl);
  return {
    'http.request.method': method,
    'server.address': at?.address,
    'server.port': at?.port,
    'url.template': baseUrl + pathTemplate,
  };
}

/** `server.address` and `server.port` of a URL, the port its scheme's default when not written. */
function addressOf(url: string): { address: string; port: number | undefined } | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  const port = u.port !== '' ? Number(u.port) : DEFAULT_PORTS[u.protocol];
  // URL keeps an IPv6 literal's brackets; the attribute is the address alone.
  return { address: u.hostname.replace(/^\[(.*)\]$/, '$1'), port };
}

const DEFAULT_PORTS: Readonly<Record<string, number>> = { 'http:': 80, 'https:': 443 };

/** The statement's first keyword, upper-cased (`SELECT`, `WITH`, `INSERT`). */
export function sqlOperationName(statement: string): string | undefined {
  const m = /^\s*(?:--[^\n]*\n\s*|\/\*[\s\S]*?\*\/\s*)*([A-Za-z]+)/.exec(statement);
  return m ? m[1]!.toUpperCase() : undefined;
}

/** A table name as written: `tickets`, `app.tickets`, `"Order Lines"` (quotes dropped). */
const TABLE = String.raw`((?:"[^"]+"|[A-Za-z_][\w$]*)(?:\.(?:"[^"]+"|[A-Za-z_][\w$]*))?)`;
const TABLE_AFTER: Readonly<Record<string, RegExp>> = {
  SELECT: new RegExp(String.raw`\b(?:FROM|JOIN)\s+${TABLE}`, 'gi'),
  INSERT: new RegExp(String.raw`\bINTO\s+${TABLE}`, 'gi'),
  UPDATE: new RegExp(String.raw`^\s*UPDATE\s+(?:ONLY\s+)?${TABLE}`, 'gi'),
  DELETE: new RegExp(String.raw`\bFROM\s+(?:ONLY\s+)?${TABLE}`, 'gi'),
};

/**
 * The tables a statement names after its operation's keyword (FROM and JOIN of a
 * SELECT, INTO, UPDATE, DELETE FROM), in order, once each; none for what this reading
 * cannot follow (a WITH, a function call), and then the span names the grant instead.
 * It reads the spec's text, never a value (those are bound parameters).
 */
export function sqlTables(statement: string): readonly string[] {
  const op = sqlOperationName(statement);
  const pattern = op === undefined ? undefined : TABLE_AFTER[op];
  if (!pattern) return [];
  // Comments and string literals could hold a FROM that is no table.
  const text = statement
    .replace(/--[^\n]*/g, ' ')
    .replace(/\/\*[\s\S]*?\*\//g, ' ')
    .replace(/'(?:[^']|'')*'/g, "''");
  const query = queryLevel(text);
  const tables: string[] = [];
  for (const m of text.matchAll(pattern)) {
    // `EXTRACT(YEAR FROM created_at)`, `trim(both FROM x)`: a FROM in a call, no table.
    if (!query[m.index]) continue;
    const table = m[1]!.replace(/"/g, '');
    // A subquery's parenthesis or a set-returning function is not a table.
    if (/^(?:SELECT|LATERAL|UNNEST)$/i.test(table)) continue;
    if (!tables.includes(table)) tables.push(table);
  }
  return tables;
}

/**
 * Which offsets of `text` are query text: outside every parenthesis, or inside ones that
 * open a subquery (`(SELECT`, `(WITH`), not a function call's arguments.
 */
function queryLevel(text: string): boolean[] {
  const level: boolean[] = [];
  const open: boolean[] = [];
  let query = true;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '(') {
      open.push(query);
      query = /^\(\s*(?:SELECT|WITH)\b/i.test(text.slice(i, i + 16));
    } else if (c === ')') query = open.pop() ?? true;
    level.push(query);
  }
  return level;
}

/**
 * `db.query.summary`, as the database conventions write it: the operation and the
 * tables it touches (`SELECT tickets`, `SELECT orders customers`); undefined when the
 * statement's tables are not read.
 */
export function sqlQuerySummary(statement: string): string | undefined {
  const op = sqlOperationName(statement);
  const tables = sqlTables(statement);
  return op === undefined || tables.length === 0 ? undefined : `${op} ${tables.join(' ')}`;
}

/**
 * The conventions' `{db.query.summary}`, else `{db.operation.name} {target}` with the
 * grant as the target (`WITH find_tickets`): a trace of many statements then tells them
 * apart, where the operation alone named every read `SELECT`.
 */
export function sqlClientSpanName(statement: string, grant: string): string {
  return sqlQuerySummary(statement) ?? `${sqlOperationName(statement) ?? 'postgresql'} ${grant}`;
}

/** The spec's statement as written: its values are bound parameters, never in the text. */
export function sqlClientAttributes(statement: string, grant: string): Attributes {
  const tables = sqlTables(statement);
  return {
    'db.system.name': 'postgresql',
    'db.operation.name': sqlOperationName(statement),
    'db.query.summary': sqlQuerySummary(statement),
    // The conventions name a collection only when the statement touches one.
    'db.collection.name': tables.length === 1 ? tables[0] : undefined,
    'db.query.text': statement,
    'mcp_beaver.grant': grant,
  };
}

export function mcpClientSpanName(tool: string): string {
  return `tools/call ${tool}`;
}

/** The declared transport of an upstream MCP server, as much as a span says of it. */
export interface McpServerTransport {
  readonly kind: 'url' | 'command';
  readonly url?: string;
}

/**
 * The upstream tool, and which `mcp-server` of the spec serves it: its name as declared
 * (`mcp_beaver.mcp_server`, the attribute mcp.client.operation.duration has too), and,
 * over HTTP, its `server.address` and `server.port` as the MCP client conventions ask;
 * a stdio server is a child process (`network.transport` = `pipe`).
 */
export function mcpClientAttributes(
  tool: string,
  server: string,
  transport: McpServerTransport | undefined,
): Attributes {
  const at = transport?.url === undefined ? undefined : addressOf(transport.url);
  return {
    'mcp.method.name': 'tools/call',
    'gen_ai.tool.name': tool,
    'gen_ai.operation.name': 'execute_tool',
    'mcp_beaver.mcp_server': server,
    'server.address': at?.address,
    'server.port': at?.port,
    'network.transport':
      transport === undefined ? undefined : transport.kind === 'command' ? 'pipe' : 'tcp',
  };
}

/**
 * The identity chain of a call as its span names it (docs/observability.md, "The identity
 * chain"): what the upstream was called as, and the OAuth client the caller's token was
 * issued to. Never the caller's subject: a person's identifier is personal data, which a
 * trace backend (often another party, kept longer, read by more people) is not sent; the
 * audit line names the subject beside the same trace id, which joins the two.
 */
export function identityAttributes(credential: string, client: string | undefined): Attributes {
  return { 'mcp_beaver.credential': credential, 'mcp_beaver.client': client };
}

/** What the envelope says of a successful call's result. */
export function coverageAttributes(grant: string, c: Coverage): Attributes {
  return {
    'mcp_beaver.grant': grant,
    'mcp_beaver.coverage.truncated': c.truncated,
    'mcp_beaver.coverage.bytes': c.bytes,
    'mcp_beaver.coverage.items_omitted': c.items_omitted,
  };
}

/** Which guard refused a call, by the catalogue code it answered with; undefined when none did. */
export type Guard =
  | 'scope'
  | 'rate_limit'
  | 'path_gate'
  | 'restrict'
  | 'validate'
  | 'exclusive'
  | 'claims'
  | 'consent'
  | 'auth'
  | 'admission'
  | 'identity'
  | 'upstream';

/**
 * By the engine's catalogue codes (engine/error-catalogue.ts), spelled here as text:
 * telemetry imports nothing of the engine, which reports through it.
 * test/telemetry/conventions.test.ts holds the catalogue's consent, upstream and SQL codes
 * to a guard.
 */
const GUARDS: Readonly<Record<string, Guard>> = {
  INSUFFICIENT_SCOPE: 'scope',
  RATE_LIMITED: 'rate_limit',
  PATH_VALUE_REJECTED: 'path_gate',
  DENIED_BY_RESTRICT: 'restrict',
  INVALID_ARGUMENTS: 'validate',
  EXCLUSIVE_ARGUMENTS: 'exclusive',
  MISSING_CLAIM: 'claims',
  CONFIRMATION_UNAVAILABLE: 'consent',
  CONFIRMATION_DECLINED: 'consent',
  CONFIRMATION_CANCELLED: 'consent',
  CONFIRMATION_TIMED_OUT: 'consent',
  CONFIRMATION_INVALID: 'consent',
  CONFIRMATION_EXPIRED: 'consent',
  CONFIRMATION_OTHER_CALLER: 'consent',
  CONFIRMATION_DECIDED: 'consent',
  APPROVAL_REQUIRED: 'consent',
  APPROVAL_DECLINED: 'consent',
  APPROVAL_EXPIRED: 'consent',
  APPROVAL_OWN_CALL: 'consent',
  APPROVAL_DECIDED: 'consent',
  CONSENT_UNAVAILABLE: 'consent',
  UNAUTHENTICATED: 'auth',
  FORBIDDEN_ORIGIN: 'auth',
  OVERLOADED: 'admission',
  DRAINING: 'admission',
  POOL_EXHAUSTED: 'admission',
  // Upstream identity: the caller has no identity the upstream can be called as (nothing
  // to exchange, no connected account); a token endpoint that refuses is an upstream's.
  IDENTITY_UNAVAILABLE: 'identity',
  AUTHORIZATION_REQUIRED: 'identity',
  UPSTREAM_AUTH: 'upstream',
  UPSTREAM_STATUS: 'upstream',
  UPSTREAM_UNREACHABLE: 'upstream',
  UPSTREAM_BAD_RESPONSE: 'upstream',
  UPSTREAM_TIMEOUT: 'upstream',
  UPSTREAM_TOOL_ERROR: 'upstream',
  UPSTREAM_ERROR: 'upstream',
  UPSTREAM_UNAVAILABLE: 'upstream',
  UPSTREAM_PROTOCOL: 'upstream',
  SQL_TIMEOUT: 'upstream',
  SQL_CONFLICT: 'upstream',
  SQL_CONSTRAINT: 'upstream',
  SQL_DATA: 'upstream',
  SQL_ERROR: 'upstream',
  DATABASE_UNAVAILABLE: 'upstream',
};

export function refusedBy(code: string): Guard | undefined {
  return Object.hasOwn(GUARDS, code) ? GUARDS[code] : undefined;
}
