/**
 * Descriptors: the frozen, plain-data result of compiling a spec. One per `can` grant,
 * holding everything later stages need (the MCP tool, the REST route, the engine's
 * argument placement) and nothing that runs. Golden tests pin them.
 */
import type { ShapeDescriptor } from '../envelope/shape-path.js';
import type { FieldType } from './field-types.js';
import type { HttpMethod } from './verbs.js';

export type JsonScalar = string | number | boolean | null;

export type JsonSchema = { readonly [key: string]: unknown };

export interface SourceRef {
  readonly file: string;
  readonly line: number;
  readonly column: number;
}

export interface Annotations {
  readonly title: string;
  readonly readOnlyHint: boolean;
  readonly destructiveHint: boolean;
  readonly idempotentHint: boolean;
  readonly openWorldHint: boolean;
}

/**
 * One top-level tool argument, and where its value goes. `from-claim` arguments are
 * listed too (they are bound from the caller's token, never from input).
 */
export interface ArgumentDescriptor {
  readonly name: string;
  readonly in: 'path' | 'query' | 'body' | 'param' | 'projection';
  readonly type: FieldType;
  readonly required: boolean;
  /** Query key or body key upstream (after `as=`); the param's `$i` for sql. */
  readonly upstream: string;
  /** `arg=` projections: the body path the value fills. */
  readonly bodyPath?: readonly string[];
  /** sql: 1-based placeholder number. */
  readonly position?: number;
  readonly fromClaim?: string;
}

/** A body field as sent upstream: nested objects keep their own aliases. */
export interface BodyFieldDescriptor {
  readonly name: string;
  readonly upstream: string;
  readonly type: FieldType;
  readonly fields?: readonly BodyFieldDescriptor[];
}

export interface RestrictDescriptor {
  readonly argument: string;
  readonly values?: readonly JsonScalar[];
  readonly pattern?: string;
}

/** A credential read from the environment once at start-up: the gateway's own. */
export type StaticAuth =
  | { readonly kind: 'bearer'; readonly env: string }
  | {
      readonly kind: 'header';
      readonly header: string;
      readonly env: string;
      readonly prefix: string;
    }
  | { readonly kind: 'basic'; readonly usernameEnv: string; readonly passwordEnv: string }
  | { readonly kind: 'query'; readonly param: string; readonly env: string };

/**
 * A token obtained from an OAuth token endpoint (spec-language.md, "On whose behalf (upstream identity)"):
 * `client-credentials` as the gateway itself (RFC 6749 §4.4), `exchange` for the caller
 * (RFC 8693). The client secret goes to `tokenUrl` in HTTP Basic; both read their
 * variables once at start-up.
 */
export interface TokenAuth {
  readonly kind: 'client-credentials' | 'exchange';
  /** Absolute https URL (http only to a loopback host). */
  readonly tokenUrl: string;
  readonly clientIdEnv: string;
  readonly clientSecretEnv: string;
  /** Space-separated, as sent. */
  readonly scope?: string;
  readonly audience?: string;
  /**
   * `auth exchange` only: RFC 8693 token exchange (absent or `token-exchange`), or
   * Microsoft Entra ID's on-behalf-of flow (a JWT bearer grant with requested_token_use).
   */
  readonly grant?: 'token-exchange' | 'on-behalf-of';
}

/** `auth user provider="<name>"`: each caller's own connected account (one of CompiledSpec.oauthProviders). */
export interface UserAuth {
  readonly kind: 'user';
  readonly provider: string;
}

export type UpstreamAuth = StaticAuth | TokenAuth | UserAuth;

/**
 * What an upstream call is made as, in audit lines, spans and `check`: no credential, the
 * gateway's static one, its client-credentials token, a token exchanged for the caller,
 * or the caller's connected account at a provider.
 */
export type CredentialKind =
  'none' | 'service' | 'client-credentials' | 'exchange' | `user:${string}`;

/** The credential kind an `auth` (or its absence) comes to. */
export function credentialKind(auth: UpstreamAuth | undefined): CredentialKind {
  if (!auth) return 'none';
  if (auth.kind === 'client-credentials' || auth.kind === 'exchange') return auth.kind;
  if (auth.kind === 'user') return `user:${auth.provider}`;
  return 'service';
}

/**
 * `tls { ca-file; cert-file; key-file }` of an upstream: paths resolved against the spec's
 * folder, read at start-up. `caFile` is trusted in addition to the system's roots; a client
 * certificate needs both of the other two.
 */
export interface UpstreamTls {
  readonly caFile?: string;
  readonly certFile?: string;
  readonly keyFile?: string;
}

/**
 * One upstream HTTP API (spec-language.md, "Many upstreams and databases in one spec"):
 * a named `upstream "<name>" base-url=… { auth; header; timeout; proxy; tls }`, or the
 * unnamed default made of the top-level `base-url`, `auth`, `header` and `timeout`
 * (name ''). Each has its own pool, deadlines, credential and egress.
 */
export interface UpstreamDescriptor {
  /** '' for the default upstream. */
  readonly name: string;
  /** Normalized: origin plus prefix, no trailing slash. */
  readonly baseUrl: string;
  readonly auth?: UpstreamAuth;
  readonly headers: readonly (readonly [string, string])[];
  /** The upstream's `timeout`; a grant's own wins. Absent: the gateway's default. */
  readonly timeoutMs?: number;
  /** `connections=N`: the most connections open to it at once. */
  readonly connections?: number;
  /**
   * `proxy "<url>"`: its egress HTTP(S) proxy. Absent: HTTPS_PROXY / HTTP_PROXY / NO_PROXY
   * from the environment are honoured.
   */
  readonly proxy?: string;
  readonly tls?: UpstreamTls;
  readonly source: SourceRef;
}

/**
 * `oauth-provider "<name>" { authorize-url; token-url; client-id-env; client-secret-env;
 * scopes; revoke-url }`: where callers connect their own accounts for `auth user`.
 */
export interface OAuthProviderDescriptor {
  readonly name: string;
  readonly authorizeUrl: string;
  readonly tokenUrl: string;
  readonly clientIdEnv: string;
  readonly clientSecretEnv: string;
  readonly scopes: readonly string[];
  readonly revokeUrl?: string;
  /**
   * The provider's issuer identifier: a connect callback whose `iss` (RFC 9207) names
   * another is refused, so an answer from a different authorization server is never used.
   */
  readonly issuer?: string;
  readonly source: SourceRef;
}

export type PathPart = { readonly literal: string } | { readonly param: string };

export interface HttpBackend {
  readonly kind: 'http';
  /** The upstream it calls (one of CompiledSpec.upstreams); '' for the default one. */
  readonly upstream: string;
  readonly method: HttpMethod;
  /** Normalized base-url: origin plus prefix, no trailing slash. */
  readonly baseUrl: string;
  readonly pathTemplate: string;
  readonly path: readonly PathPart[];
  readonly body?: {
    readonly encoding: 'json' | 'form';
    readonly fields: readonly BodyFieldDescriptor[];
  };
  /**
   * How query keys and values are escaped: `percent` (RFC 3986, a space as `%20`) unless
   * the grant says form (`query encoding="form"`, or a form body), where a space is `+`.
   */
  readonly queryEncoding: 'percent' | 'form';
  readonly headers: readonly (readonly [string, string])[];
  readonly setQuery: readonly (readonly [string, JsonScalar])[];
  readonly setBody: readonly { readonly path: readonly string[]; readonly value: JsonScalar }[];
  readonly auth?: UpstreamAuth;
  readonly timeoutMs: number;
}

export interface SqlBackend {
  readonly kind: 'sql';
  /** The database it runs on (one of CompiledSpec.databases); '' for the default one. */
  readonly database: string;
  readonly statement: string;
  readonly readOnly: boolean;
  readonly maxRows: number;
  /** The grant's `timeout`, else the database's statement-timeout. */
  readonly timeoutMs: number;
}

/**
 * A `tool "<server>" "<tool>"` grant (spec-language.md, "Upstream MCP servers"): one tool
 * of a declared `mcp-server`. Its arguments are sent as the `arguments` object the way a
 * JSON body is built: declared fields only, by their upstream names (`as=`), then the
 * pinned `set { arg … }` values.
 */
export interface McpBackend {
  readonly kind: 'mcp';
  /** The `mcp-server` it calls (one of CompiledSpec.mcpServers). */
  readonly server: string;
  /** The upstream tool's own name. */
  readonly tool: string;
  readonly fields: readonly BodyFieldDescriptor[];
  readonly setArgs: readonly { readonly path: readonly string[]; readonly value: JsonScalar }[];
  /** The grant's `timeout`, else the server's. */
  readonly timeoutMs: number;
  /** A read may be sent again on a new session once; a write is never sent twice. */
  readonly retryOnNewSession: boolean;
}

/** An environment variable of a stdio child: a value written in the spec, or one read from ours. */
export type McpChildEnv =
  | { readonly name: string; readonly value: string }
  | { readonly name: string; readonly fromEnv: string };

export type McpTransport =
  | {
      readonly kind: 'url';
      /** Streamable HTTP endpoint; never with credentials in it. */
      readonly url: string;
      readonly headers: readonly (readonly [string, string])[];
      readonly auth?: UpstreamAuth;
      readonly proxy?: string;
      readonly tls?: UpstreamTls;
    }
  | {
      readonly kind: 'command';
      readonly program: string;
      readonly args: readonly string[];
      /** The spec file's folder. */
      readonly cwd: string;
      readonly env: readonly McpChildEnv[];
    };

/** `mcp-server "<name>"`: an upstream MCP server, over Streamable HTTP or as a stdio child. */
export interface McpServerDescriptor {
  readonly name: string;
  readonly transport: McpTransport;
  /** Each call's deadline (`timeout`, default 30 s); a grant's own `timeout` wins. */
  readonly timeoutMs: number;
  readonly protocol: 'auto' | '2026-07-28' | '2025-11-25';
  readonly source: SourceRef;
}

/** `pick` / `omit`: the envelope's shaping, which owns the paths' language. */
export type { ShapeDescriptor } from '../envelope/shape-path.js';

export interface ToolDescriptor {
  readonly name: string;
  readonly verb: string;
  readonly resource: string;
  readonly title: string;
  readonly description?: string;
  readonly annotations: Annotations;
  readonly inputSchema: JsonSchema;
  readonly outputSchema: JsonSchema;
  readonly arguments: readonly ArgumentDescriptor[];
  /** Groups of argument names of which at most one may be given. */
  readonly exclusive: readonly (readonly string[])[];
  readonly restrict: readonly RestrictDescriptor[];
  readonly scopes: readonly string[];
  readonly limits: {
    readonly maxBytes: number;
    readonly budgetBytes: number;
    readonly rateLimit?: RateLimit;
  };
  readonly backend: HttpBackend | SqlBackend | McpBackend;
  /** Absent for grants that pass the result on whole. */
  readonly shape?: ShapeDescriptor;
  /** `confirm` and `approve`: a person says yes before the call runs; absent for most grants. */
  readonly consent?: ConsentDescriptor;
  readonly source: SourceRef;
}

/**
 * A grant's `confirm` and `approve` (spec-language.md, "Confirmation and approval").
 * At least one of the two is present when the descriptor has this object.
 */
export interface ConsentDescriptor {
  /** `confirm "<message>"`: the caller's own user confirms, through an MCP elicitation. */
  readonly confirm?: { readonly message: ConsentMessage };
  /** `approve "<message>" by="<scope>" expires="<duration>"`: someone else holding `scope` approves. */
  readonly approve?: {
    readonly message: ConsentMessage;
    readonly scope: string;
    /** How long a requested approval waits, and an approval given stays usable. */
    readonly expiresMs: number;
  };
}

/** A confirm/approve message: its text as written and split at its `{arg}` placeholders. */
export interface ConsentMessage {
  readonly text: string;
  /** Every `argument` part names a declared argument of the grant (checked at load). */
  readonly parts: readonly PromptTextPart[];
}

/** `60/m`: calls per window. */
export interface RateLimit {
  readonly count: number;
  readonly windowMs: number;
}

export interface DatabaseSettings {
  readonly pool: number;
  readonly statementTimeoutMs: number;
  /** How long a call waits for a free connection before a 503. */
  readonly checkoutTimeoutMs: number;
}

export type DatabaseTarget =
  | { readonly kind: 'env'; readonly env: string }
  /** `seed` resolved against the spec file's folder (relative when the spec path is). */
  | { readonly kind: 'embedded'; readonly seed?: string };

/** `database "<name>" env=…` or the unnamed default (name ''). */
export type DatabaseDescriptor = DatabaseTarget & DatabaseSettings & { readonly name: string };

export interface AccessDescriptor {
  readonly apiKeys: readonly { readonly env: string; readonly scopes: readonly string[] }[];
  readonly oauth?: { readonly issuer: string; readonly audience: string; readonly jwksUri: string };
  readonly allowOrigins: readonly string[];
  /** `access confirm-key-env="V"`: the variable holding the key that seals confirmation states. */
  readonly confirmKeyEnv?: string;
  /**
   * `access token-key-env="V"`: the variable holding the key (at least 32 bytes) from which
   * the gateway derives the key that signs its own access tokens and the key that seals its
   * codes, registrations, refresh tokens and browser sessions. Required by `sign-in`.
   */
  readonly tokenKeyEnv?: string;
  /** `sign-in`: the gateway is its clients' authorization server; the provider signs people in. */
  readonly signIn?: SignInDescriptor;
}

/**
 * `access { sign-in issuer= client-id-env= client-secret-env= { scopes; grant-scopes } }`
 * (spec-language.md, "Sign-in for MCP clients"): the company's OpenID provider, and the
 * gateway's own client registered there.
 */
export interface SignInDescriptor {
  /** The provider's issuer URL; its discovery document is read at start. */
  readonly issuer: string;
  readonly clientIdEnv: string;
  readonly clientSecretEnv: string;
  /** Scopes asked of the provider; `openid` always among them. */
  readonly scopes: readonly string[];
  /**
   * `grant-scopes from-claim="roles"`: each value of this ID-token claim (an array, or a
   * space-separated string) is a gateway scope the person holds. Absent: none.
   */
  readonly grantScopesFromClaim?: string;
}

/** A template variable of a `from=` resource: the grant argument it fills, typed. */
export interface ResourceVariable {
  readonly name: string;
  /** The grant field's type: the variable's text is converted to it. */
  readonly type: 'string' | 'integer' | 'number' | 'boolean';
  /** Values `completion/complete` offers: the field's enum and restrict list (intersected). */
  readonly values?: readonly string[];
}

/** Where a resource's content comes from; file and inline content are read at load. */
export type ResourceContent =
  | { readonly kind: 'text'; readonly text: string }
  /** Base64 of the file's bytes (a MIME type that is not text). */
  | { readonly kind: 'blob'; readonly blob: string }
  | { readonly kind: 'tool'; readonly tool: string };

/** One `resource`: a fixed URI, or a template whose variables fill a grant's arguments. */
export interface ResourceDescriptor {
  /** The URI, or the template as written (`helpdesk://tickets/{id}`). */
  readonly uri: string;
  readonly template: boolean;
  /** Template variables in order; empty for a fixed URI. */
  readonly variables: readonly ResourceVariable[];
  /** Literal text around the variables (`variables.length + 1` pieces). */
  readonly literals: readonly string[];
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly mimeType: string;
  readonly content: ResourceContent;
  /** The file read, beside the spec (for `check` and the reload watcher). */
  readonly file?: string;
  /** The resource's own scopes and, for `from=`, the grant's: needed to list and to read. */
  readonly scopes: readonly string[];
  readonly source: SourceRef;
}

export interface PromptArgumentDescriptor {
  readonly name: string;
  readonly description?: string;
  readonly required: boolean;
  readonly default?: string;
  readonly enum?: readonly string[];
  readonly pattern?: string;
  readonly maxLength: number;
}

/** Message text as pieces: literal text, or the value of a prompt argument. */
export type PromptTextPart = { readonly literal: string } | { readonly argument: string };

export type PromptMessageDescriptor =
  | {
      readonly role: 'user' | 'assistant';
      readonly text: string;
      readonly parts: readonly PromptTextPart[];
    }
  | {
      readonly role: 'user' | 'assistant';
      /** A resource URI, its `{argument}` placeholders filled (percent-encoded) at get time. */
      readonly resource: string;
      readonly parts: readonly PromptTextPart[];
    };

export interface PromptDescriptor {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly arguments: readonly PromptArgumentDescriptor[];
  readonly messages: readonly PromptMessageDescriptor[];
  /** The prompt's own scopes and those of every resource its messages embed. */
  readonly scopes: readonly string[];
  readonly source: SourceRef;
}

/**
 * `toolset "<name>" { ... }` (spec-language.md, "Toolsets"): a named subset served at
 * `/mcp/<name>`. Members are resolved at load time: globs expanded, every name checked to
 * exist; each list is in spec order (the order of the spec's own tools, resources and
 * prompts), not the order the toolset names them, so a toolset's list is the `/mcp` list
 * with the non-members left out.
 */
export interface ToolsetDescriptor {
  readonly name: string;
  /** `describe`: put before the gateway's own instructions on the toolset URL. */
  readonly description?: string;
  /** Tool names. */
  readonly tools: readonly string[];
  /** Resource URIs and template strings, as the spec's resources give them (`uri`). */
  readonly resources: readonly string[];
  /** Prompt names. */
  readonly prompts: readonly string[];
  readonly source: SourceRef;
}

/**
 * An environment variable the spec names (`env=`, `*-env=`): what names it, as the spec's
 * messages name a node (`auth bearer`, `access api-key`, `mcp-server tracker env TOKEN
 * from-env`), and where. Its value is never part of the compiled spec.
 */
export interface SpecVariable {
  readonly name: string;
  readonly reads: string;
  readonly line: number;
  readonly column: number;
}

/** `limits list-tokens=N` when the spec gives none: what `check` warns above. */
export const DEFAULT_LIST_TOKENS = 20_000;

/** The whole compiled spec: server identity, tools in spec order, shared resources. */
export interface CompiledSpec {
  readonly file: string;
  readonly server: {
    readonly name: string;
    readonly version: string;
    readonly title?: string;
    readonly instructions?: string;
  };
  readonly tools: readonly ToolDescriptor[];
  /** MCP resources and templates, in spec order. */
  readonly resources: readonly ResourceDescriptor[];
  readonly prompts: readonly PromptDescriptor[];
  /** The default database (name ''), when the spec has one: `databases` holds it too. */
  readonly database?: DatabaseDescriptor;
  /** Every database, the default first when there is one, then the named in spec order. */
  readonly databases: readonly DatabaseDescriptor[];
  /** Every HTTP upstream, the default first when there is one, then the named in spec order. */
  readonly upstreams: readonly UpstreamDescriptor[];
  /** `oauth-provider` nodes in spec order; empty when the spec declares none. */
  readonly oauthProviders: readonly OAuthProviderDescriptor[];
  readonly access?: AccessDescriptor;
  readonly redisEnv?: string;
  /** `mcp-server` nodes in spec order; absent when the spec declares none. */
  readonly mcpServers?: readonly McpServerDescriptor[];
  /** `toolset` nodes in spec order; empty when the spec declares none. */
  readonly toolsets: readonly ToolsetDescriptor[];
  /** `limits list-tokens=N`: the estimated tokens of a tools/list `check` warns above. */
  readonly listTokens: number;
  /** The environment variables the spec names, in file order; absent when it names none. */
  readonly variables?: readonly SpecVariable[];
}
