/**
 * Load-time diagnostics of the spec compiler. Every refusal has a stable code, the
 * place in the file and a message that names the grant and field, so that
 * `check` can print `spec.mcp.kdl:14:5: error SPEC_UNKNOWN_TYPE: grant list_issues: ...`.
 * The codes are listed, with their meaning, in docs/spec-language.md ("Load errors");
 * a test keeps the two in step.
 */
export const SPEC_ERROR_CODES = {
  SPEC_SYNTAX: 'the file is not valid KDL 2.0',
  SPEC_UNCLOSED_BLOCK: 'a `{` never closed, reported at the node that opens it',
  SPEC_STRAY_BRACE: 'a `}` that closes no block, reported where the extra one likely is',
  SPEC_UNKNOWN_NODE: 'a node this place does not know',
  SPEC_UNKNOWN_PROPERTY: 'a property this node does not know, or an extra argument',
  SPEC_VALUE_TYPE: 'a value of the wrong type or out of range',
  SPEC_MISSING: 'a required node, argument or property is missing',
  SPEC_DUPLICATE: 'a node that may appear once appears twice, or two fields share a name',
  SPEC_UNKNOWN_TYPE: 'a field type that does not exist',
  SPEC_DUPLICATE_TOOL: 'two grants produce the same tool name',
  SPEC_TOOL_NAME: 'a tool name outside ^[A-Za-z0-9_.-]{1,64}$',
  SPEC_UNKNOWN_VERB: 'a verb not in the verb table, without `method`',
  SPEC_PATH_TEMPLATE:
    'a path template that is not well formed, or with a literal segment an upstream may read as another path',
  SPEC_PATH_PARAM: 'a template parameter without declaration, or the reverse',
  SPEC_GRANT_KIND: 'a grant that is not exactly one of HTTP, sql and MCP, or mixes their nodes',
  SPEC_SQL_PLACEHOLDERS: 'sql placeholders that do not match the declared params',
  SPEC_SQL_MULTIPLE: 'more than one SQL statement in a grant',
  SPEC_NO_BASE_URL:
    'an HTTP grant without a top-level base-url, or naming no upstream where the spec has named ones and no default',
  SPEC_NO_DATABASE:
    'a sql grant without a top-level database, or naming no database where the spec has named ones and no default',
  SPEC_BASE_URL:
    'a base-url that is not an absolute http(s) URL, or whose path an upstream may read as another',
  SPEC_ARG_PROJECTION: 'arg= on a field that cannot take it, or colliding with an argument',
  SPEC_ARGUMENT_COLLISION: 'two arguments of one grant share a name, or set collides with a field',
  SPEC_EXCLUSIVE: 'an exclusive group naming fields that do not exist',
  SPEC_PATTERN: 'a pattern that is not a valid regular expression',
  SPEC_PATTERN_UNSAFE:
    'a pattern that can take super-linear time (nested quantifiers, backreferences)',
  SPEC_DEFAULT: 'a default that violates its own field, or a default on a required field',
  SPEC_PROPERTY_TYPE: 'a field property that does not apply to the field type',
  SPEC_ENUM: 'an enum value that does not fit the field',
  SPEC_RESTRICT: 'a restrict value that cannot fit the argument it restricts',
  SPEC_DURATION: 'a duration that is not like 500ms, 10s, 2m or 1h',
  SPEC_RATE_LIMIT: 'a rate limit that is not like 60/m',
  SPEC_HEADER: 'an invalid header, or one the gateway owns',
  SPEC_SHAPE: 'pick and omit on one grant, or a pick/omit path that cannot be parsed',
  SPEC_RESERVED_NAME: 'a field, path param, as=, arg= or from-claim= named `__proto__`',
  SPEC_RESOURCE_URI:
    'a resource URI that is not absolute, or a template that is not RFC 6570 level 1',
  SPEC_RESOURCE_SOURCE: 'a resource with no content source or several, or a template without from=',
  SPEC_RESOURCE_FILE:
    "a resource file outside the spec's folder, missing, no regular file (FIFO, device, procfs/sysfs), or over 1 MiB",
  SPEC_RESOURCE_FROM:
    'from= naming no tool, a variable that is no scalar argument of it, or a required argument without a variable',
  SPEC_DUPLICATE_RESOURCE: 'two resources share a URI or a name',
  SPEC_PROMPT_NAME: 'a prompt or prompt argument name outside ^[A-Za-z0-9_.-]{1,64}$',
  SPEC_DUPLICATE_PROMPT: 'two prompts share a name',
  SPEC_PROMPT_MESSAGE:
    'a message role other than user or assistant, or neither or both of text and resource=',
  SPEC_PLACEHOLDER:
    'a {placeholder} that names no declared argument of its prompt, or of its grant in confirm or approve',
  SPEC_PROMPT_RESOURCE: 'a resource= message that matches no declared resource or template',
  SPEC_MCP_SERVER_NAME: 'an mcp-server name outside ^[a-z][a-z0-9-]{0,31}$',
  SPEC_DUPLICATE_MCP_SERVER: 'two mcp-server nodes share a name',
  SPEC_MCP_TRANSPORT:
    'an mcp-server with neither or both of url= and command, a url that is not http(s) or holds credentials, or a child of the other transport',
  SPEC_MCP_COMMAND:
    'a stdio command, argument or env value holding a NUL character, which no process can be started with',
  SPEC_UNKNOWN_MCP_SERVER: 'a tool grant naming no declared mcp-server',
  SPEC_UPSTREAM_NAME: 'an upstream, database or oauth-provider name outside ^[a-z][a-z0-9-]{0,31}$',
  SPEC_UNKNOWN_UPSTREAM: 'a grant naming no declared upstream (HTTP) or database (sql)',
  SPEC_UPSTREAM_IDENTITY:
    '`auth user` naming no declared oauth-provider, `auth user` or `auth exchange` in a spec without `access`, or `auth user` without access token-key-env',
  SPEC_OAUTH_URL:
    'a token-url, authorize-url, revoke-url or issuer that is not an https URL (http only on a loopback host), or holds credentials or a fragment',
  SPEC_PROXY:
    'a proxy that is not an absolute http(s) URL, or holds credentials, a query or a fragment',
  SPEC_TLS:
    'a tls file that is missing or not a readable regular file, or cert-file without key-file (or the reverse)',
  SPEC_SIGN_IN:
    'sign-in without access token-key-env, or an issuer that is not an https URL (http only on a loopback host)',
  SPEC_TOOLSET_NAME: 'a toolset name outside ^[a-z][a-z0-9-]{0,63}$',
  SPEC_DUPLICATE_TOOLSET: 'two toolsets share a name',
  SPEC_TOOLSET_MEMBER:
    'a toolset member that names no tool, resource or prompt of the spec, or a glob matching no tool',
} as const;

export const SPEC_WARNING_CODES = {
  SPEC_NO_DESCRIBE: 'a grant without describe: agents choose tools by their description',
  SPEC_RESTRICT_UNUSED: 'a restrict entry that no grant has an argument for',
  SPEC_NO_APPROVER:
    'an approve whose by= scope no api-key holds, without oauth: nobody could approve',
  SPEC_CONFIRM_CLIENTS:
    'a confirm without approve and without clients="eliciting" (only clients that declare elicitation can call it), or clients="eliciting" beside approve',
} as const;

/**
 * What `check` refuses beyond the compiler's diagnostics. A spec the compiler accepts
 * always yields schemas that compile, so SCHEMA is a bug of the gateway, not of the
 * spec; ENV_UNSET is of the environment `check --env` ran in. They are listed so that
 * every code `check` prints is in docs/errors.md.
 */
export const CHECK_ERROR_CODES = {
  SCHEMA: "a grant's input schema does not compile into a validator (a gateway bug)",
  ENV_UNSET: 'check --env: a variable the spec names, which start-up reads, is not set here',
} as const;

/**
 * What `check` warns of beyond the compiler: the size of each tools/list it serves
 * (src/cli/check-list-sizes.ts). The spec loads and serves as it is.
 */
export const CHECK_WARNING_CODES = {
  LIST_TOOL_COUNT:
    'a tools/list (of /mcp or of a toolset) over 128 tools, which some clients refuse',
  LIST_TOKENS: 'a tools/list (of /mcp or of a toolset) above `limits list-tokens` estimated tokens',
} as const;

export type SpecErrorCode = keyof typeof SPEC_ERROR_CODES;
export type CheckErrorCode = keyof typeof CHECK_ERROR_CODES;
export type SpecWarningCode = keyof typeof SPEC_WARNING_CODES;
export type CheckWarningCode = keyof typeof CHECK_WARNING_CODES;

export interface Position {
  readonly line: number;
  readonly column: number;
}

/** A value of the spec with the place it is written, for messages that name the line. */
export interface Located<T> {
  readonly value: T;
  readonly at: Position;
}

export interface Diagnostic {
  readonly severity: 'error' | 'warning';
  readonly code: SpecErrorCode | SpecWarningCode | CheckWarningCode;
  readonly message: string;
  readonly file: string;
  readonly line: number;
  readonly column: number;
}

/** Where a message comes from: "grant list_issues: query field per_page". */
export type Subject = readonly string[];

export class Diagnostics {
  readonly list: Diagnostic[] = [];
  constructor(readonly file: string) {}

  error(code: SpecErrorCode, at: Position | undefined, subject: Subject, text: string): void {
    this.push('error', code, at, subject, text);
  }

  warn(code: SpecWarningCode, at: Position | undefined, subject: Subject, text: string): void {
    this.push('warning', code, at, subject, text);
  }

  get errors(): Diagnostic[] {
    return this.list.filter((d) => d.severity === 'error');
  }

  get warnings(): Diagnostic[] {
    return this.list.filter((d) => d.severity === 'warning');
  }

  private push(
    severity: Diagnostic['severity'],
    code: Diagnostic['code'],
    at: Position | undefined,
    subject: Subject,
    text: string,
  ): void {
    const message = subject.length > 0 ? `${subject.join(': ')}: ${text}` : text;
    this.list.push({
      severity,
      code,
      message,
      file: this.file,
      line: at?.line ?? 1,
      column: at?.column ?? 1,
    });
  }
}

/** `file:line:col: error CODE: message`, the form every command prints. */
export function formatDiagnostic(d: Diagnostic): string {
  return `${d.file}:${d.line}:${d.column}: ${d.severity} ${d.code}: ${d.message}`;
}
