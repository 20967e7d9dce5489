/**
 * The top kind: the file itself (spec-language.md, "Top-level nodes" and "Access"). The
 * rows of the top-level settings (wrap, base-url, auth, header, database, limits,
 * access, ...) and the table of every top-level node; the checks of the settings, whose
 * findings (the normalized base-url, the auth header, the database's statement timeout)
 * every grant is handed as its GrantContext; and the CompiledSpec around the lowered
 * tools, resources and prompts.
 */
import { dirname, isAbsolute, join } from 'node:path';
import { MIN_MAX_BYTES } from '../../envelope/envelope.js';
import { normalizeBaseUrl } from '../base-url.js';
import { RATE_LIMIT, TEXT, TIMEOUT } from '../common-kinds.js';
import type { Diagnostics, Located, Position } from '../diagnostics.js';
import type {
  AccessDescriptor,
  CompiledSpec,
  DatabaseDescriptor,
  DatabaseSettings,
  DatabaseTarget,
  McpServerDescriptor,
  PromptDescriptor,
  RateLimit,
  ResourceDescriptor,
  SignInDescriptor,
  SpecVariable,
  ToolDescriptor,
  ToolsetDescriptor,
  UpstreamDescriptor,
} from '../descriptor.js';
import { DEFAULT_LIST_TOKENS } from '../descriptor.js';
import { SIGN_IN } from './sign-in.js';
import {
  arg,
  argAt,
  camelProps,
  childNamed,
  childrenNamed,
  prop,
  propAt,
  type Built,
  type NodeKind,
  type Table,
} from '../kdl-reader.js';
import { parseDuration } from '../values.js';
import { AUTH, HEADER, type AuthSpec } from './auth.js';
import {
  checkCallerAuths,
  checkOAuthProviders,
  lowerOAuthProviders,
  OAUTH_PROVIDER,
  type OAuthProviderSpec,
} from './oauth-provider.js';
import {
  checkHeaders,
  checkUpstreams,
  lowerUpstreams,
  UPSTREAM,
  UPSTREAM_NAME,
  type UpstreamSpec,
} from './upstream.js';
import { matchName, NameClaims, takenBy } from '../name-claims.js';
import { MCP_SERVER, type CheckedMcpServers, type McpServerSpec } from './mcp-server.js';
import { GRANT, type GrantContext, type GrantSpec } from './grant.js';
import { PROMPT, type PromptSpec } from './prompt.js';
import { RESOURCE, type ResourceSpec } from './resource.js';
import { checkRestrictPatterns, RESTRICT, type RestrictSpec } from './restrict.js';
import { TOOLSET, type ToolsetSpec } from './toolset.js';

/** The typed Spec: what the `.mcp.kdl` file says, read for shape but not yet for meaning. */
export interface Spec {
  readonly file: string;
  readonly wrap: {
    readonly name: string;
    readonly version: string;
    readonly title?: string;
    readonly describe?: string;
  };
  /** `connections=N`: the most connections open to the upstream origin at once. */
  readonly baseUrl?: Located<string> & { readonly connections?: number };
  readonly auth?: AuthSpec;
  readonly headers: readonly Located<readonly [string, string]>[];
  readonly timeoutMs?: number;
  /** The default (unnamed) database; settings left out are filled in by lowering. */
  readonly database?: DatabaseSpec;
  /** `database "<name>" env=…`, in spec order. */
  readonly databases: readonly DatabaseSpec[];
  /** `upstream "<name>" base-url=…`, in spec order. */
  readonly upstreams: readonly UpstreamSpec[];
  readonly oauthProviders: readonly OAuthProviderSpec[];
  readonly restrict: readonly Located<RestrictSpec>[];
  readonly limits: {
    readonly maxBytes?: number;
    readonly budgetBytes?: number;
    readonly redisEnv?: string;
    readonly listTokens?: number;
  };
  readonly rateLimit?: RateLimit;
  readonly access?: AccessDescriptor;
  readonly grants: readonly GrantSpec[];
  readonly resources: readonly ResourceSpec[];
  readonly prompts: readonly PromptSpec[];
  readonly mcpServers: readonly McpServerSpec[];
  readonly toolsets: readonly ToolsetSpec[];
  /** Every `env=` and `*-env=` of the file (spec-variables.ts). */
  readonly variables: readonly SpecVariable[];
}

/** A `database` node as read: named (env= only) or the default. */
export type DatabaseSpec = DatabaseTarget &
  Partial<DatabaseSettings> & { readonly name?: Located<string>; readonly at: Position };

/** Values given at start-up that replace the spec's own (`serve --base-url`). */
export interface SpecOverrides {
  readonly baseUrl?: string;
}

const DATABASE_DEFAULTS = { pool: 10, statementTimeoutMs: 10_000, checkoutTimeoutMs: 1_000 };

const REQUIRED_STRING = { type: 'string', required: true } as const;
const STRING = { type: 'string' } as const;

const WRAP: NodeKind<Spec['wrap']> = {
  args: [{ what: 'a server name (wrap "github-triage")', type: 'string' }],
  props: { version: REQUIRED_STRING },
  children: { kinds: { title: TEXT, describe: TEXT }, where: 'in wrap' },
  inner: () => ['wrap'],
  build: (n) => ({
    name: arg(n, 0) ?? '',
    version: prop(n, 'version') ?? '0.0.0',
    ...Object.fromEntries(n.children.map((c) => [c.name, c.value])),
  }),
};

const BASE_URL: NodeKind<Spec['baseUrl']> = {
  args: [{ what: 'an absolute http(s) URL', type: 'string' }],
  props: { connections: { type: 'integer', min: 1 } },
  build: (n) => {
    const url = arg<string>(n, 0);
    const connections = prop<number>(n, 'connections');
    return url === undefined
      ? undefined
      : { value: url, at: argAt(n, 0), ...(connections !== undefined && { connections }) };
  },
};

const DATABASE: NodeKind<DatabaseSpec> = {
  args: [{ what: 'a name or a mode ("embedded")', type: 'string', required: false }],
  props: {
    pool: { type: 'integer', min: 1 },
    'statement-timeout': STRING,
    'checkout-timeout': STRING,
  },
  variants: {
    arg: 0,
    kinds: {
      env: { props: { env: REQUIRED_STRING } },
      embedded: { props: { seed: STRING } },
      named: { props: { env: REQUIRED_STRING } },
    },
    missing: 'env',
    // Any other first argument names the database (`database "orders" env="V"`).
    other: 'named',
    unknown: (mode) => ({
      code: 'SPEC_VALUE_TYPE',
      message: `unknown database mode ${JSON.stringify(mode)}; use env="VAR" or embedded`,
      stop: false,
    }),
    subject: (name, ctx) => [...ctx.subject, name],
  },
  build(n, { diag }) {
    const settings: { -readonly [K in keyof DatabaseSettings]?: number } = {};
    const pool = prop<number>(n, 'pool');
    if (pool !== undefined) settings.pool = pool;
    for (const [name, key] of [
      ['statement-timeout', 'statementTimeoutMs'],
      ['checkout-timeout', 'checkoutTimeoutMs'],
    ] as const) {
      const text = prop<string>(n, name);
      if (text === undefined) continue;
      const ms = parseDuration(text);
      if (ms !== undefined) settings[key] = ms;
      else
        diag.error(
          'SPEC_DURATION',
          propAt(n, name),
          ['database'],
          `${name} ${JSON.stringify(text)} is not a duration like 500ms, 10s, 2m`,
        );
    }
    if (n.variant === 'embedded') {
      const seed = prop<string>(n, 'seed');
      return { kind: 'embedded', ...(seed !== undefined && { seed }), ...settings, at: n.at };
    }
    const env = prop<string>(n, 'env');
    if (env === undefined) return undefined;
    const name = n.variant === 'named' ? { value: arg<string>(n, 0)!, at: argAt(n, 0) } : undefined;
    return { kind: 'env', env, ...settings, at: n.at, ...(name && { name }) };
  },
};

const LIMITS: NodeKind<Spec['limits']> = {
  props: {
    // The envelope's coverage needs room of its own (envelope.ts, MIN_MAX_BYTES).
    'max-bytes': { type: 'integer', min: MIN_MAX_BYTES },
    'budget-bytes': { type: 'integer', min: 1 },
    'redis-env': STRING,
    // What `check` warns above: the estimated tokens of one tools/list (bytes ÷ 4).
    'list-tokens': { type: 'integer', min: 1 },
  },
  build: (n) => camelProps(n),
};

type Oauth = NonNullable<AccessDescriptor['oauth']>;

const ACCESS_TABLE: Table = {
  kinds: {
    'api-key': {
      props: { env: REQUIRED_STRING, scopes: STRING },
      build: (n) =>
        n.complete
          ? {
              env: prop(n, 'env'),
              scopes: (prop<string>(n, 'scopes') ?? '').split(/\s+/).filter(Boolean),
            }
          : undefined,
    },
    // Built even when incomplete: a second `oauth` is refused either way.
    oauth: {
      props: { issuer: REQUIRED_STRING, audience: REQUIRED_STRING, 'jwks-uri': REQUIRED_STRING },
      build: (n) => ({ complete: n.complete, oauth: camelProps(n) as unknown as Oauth }),
    },
    'sign-in': { ...SIGN_IN, once: true },
    'allow-origin': {
      rest: { what: 'an origin', type: 'string' },
      build: (n) => n.args.flatMap((a) => (a ? [a.value as string] : [])),
    },
  },
  where: 'in access',
};

const ACCESS: NodeKind<AccessDescriptor> = {
  props: { 'confirm-key-env': STRING, 'token-key-env': STRING },
  children: ACCESS_TABLE,
  inner: () => ['access'],
  build(n, { diag }) {
    let oauth: Oauth | undefined;
    for (const c of n.children.filter((c) => c.name === 'oauth')) {
      const given = c.value as { complete: boolean; oauth: Oauth };
      if (oauth) diag.error('SPEC_DUPLICATE', c.at, ['access'], '`oauth` is given twice');
      else if (given.complete) oauth = given.oauth;
    }
    const confirmKeyEnv = prop<string>(n, 'confirm-key-env');
    const tokenKeyEnv = prop<string>(n, 'token-key-env');
    const signInNode = n.children.find((c) => c.name === 'sign-in');
    const signIn = (signInNode?.value as { signIn?: SignInDescriptor } | undefined)?.signIn;
    // The gateway signs its tokens and seals its codes with a key every replica shares: a
    // key of its own drawing would make each replica refuse the others' tokens.
    if (signInNode && tokenKeyEnv === undefined)
      diag.error(
        'SPEC_SIGN_IN',
        signInNode.at,
        ['access', 'sign-in'],
        'it needs access token-key-env="<VARIABLE>": the key (at least 32 random bytes, hex or base64) that signs the tokens the gateway issues',
      );
    return {
      apiKeys: childrenNamed(n.children, 'api-key'),
      ...(oauth && { oauth }),
      allowOrigins: childrenNamed<string[]>(n.children, 'allow-origin').flat(),
      ...(confirmKeyEnv !== undefined && { confirmKeyEnv }),
      ...(tokenKeyEnv !== undefined && { tokenKeyEnv }),
      ...(signIn && { signIn }),
    };
  },
};

/** The top level, in the order the "known: ..." hint lists it. */
export const TOP: Table = {
  kinds: {
    wrap: { ...WRAP, once: true },
    'base-url': { ...BASE_URL, once: true },
    auth: { ...AUTH, once: true },
    header: HEADER,
    timeout: { ...TIMEOUT, once: true },
    upstream: UPSTREAM,
    database: DATABASE,
    'oauth-provider': OAUTH_PROVIDER,
    restrict: { ...RESTRICT, once: true },
    limits: { ...LIMITS, once: true },
    'rate-limit': { ...RATE_LIMIT, once: true },
    access: { ...ACCESS, once: true },
    can: GRANT,
    resource: RESOURCE,
    prompt: PROMPT,
    'mcp-server': MCP_SERVER,
    toolset: TOOLSET,
  },
};

/** The top-level nodes as read → the typed Spec. */
export function readSpec(
  top: readonly Built[],
  file: string,
  variables: readonly SpecVariable[],
): Spec {
  return {
    file,
    wrap: childNamed(top, 'wrap') ?? { name: '', version: '0.0.0' },
    baseUrl: childNamed(top, 'base-url'),
    auth: childNamed(top, 'auth'),
    headers: childrenNamed(top, 'header'),
    timeoutMs: childNamed(top, 'timeout'),
    // The first unnamed one is the default; a second is refused by checkTop.
    database: childrenNamed<DatabaseSpec>(top, 'database').find((d) => d.name === undefined),
    databases: childrenNamed(top, 'database'),
    upstreams: childrenNamed(top, 'upstream'),
    oauthProviders: childrenNamed(top, 'oauth-provider'),
    restrict: childNamed(top, 'restrict') ?? [],
    limits: childNamed(top, 'limits') ?? {},
    rateLimit: childNamed(top, 'rate-limit'),
    access: childNamed(top, 'access'),
    grants: childrenNamed(top, 'can'),
    resources: childrenNamed(top, 'resource'),
    prompts: childrenNamed(top, 'prompt'),
    mcpServers: childrenNamed(top, 'mcp-server'),
    toolsets: childrenNamed(top, 'toolset'),
    variables,
  };
}

/**
 * The meaning of the top-level settings: a base-url that is an absolute http(s) URL,
 * headers that may be sent, restrict patterns. What they come to is what every grant is
 * checked and lowered against.
 */
export function checkTop(
  spec: Spec,
  diag: Diagnostics,
  overrides: SpecOverrides,
  servers: CheckedMcpServers,
): GrantContext {
  const baseUrl = overrides.baseUrl ?? spec.baseUrl?.value;
  const normalized = baseUrl === undefined ? undefined : normalizeBaseUrl(baseUrl);
  if (normalized && !normalized.ok)
    diag.error(
      'SPEC_BASE_URL',
      spec.baseUrl?.at ?? { line: 1, column: 1 },
      ['base-url'],
      normalized.problem,
    );
  const auth = spec.auth?.value;
  const authHeader = checkHeaders(spec.auth, spec.headers, diag, []);
  checkRestrictPatterns(spec.restrict, diag);
  const upstreams = checkUpstreams(spec.upstreams, spec.file, diag);
  const databases = checkDatabases(spec.databases, diag);
  const providers = checkOAuthProviders(spec.oauthProviders, diag);
  checkCallerAuths(
    [
      ...(spec.auth ? [{ auth: spec.auth, subject: [] }] : []),
      ...spec.upstreams.flatMap((u) =>
        u.auth ? [{ auth: u.auth, subject: [`upstream ${u.name.value}`] }] : [],
      ),
      ...servers.specs.flatMap((m) =>
        m.auth ? [{ auth: m.auth, subject: [`mcp-server ${m.name.value}`] }] : [],
      ),
    ],
    providers,
    spec.access,
    diag,
  );
  return {
    file: spec.file,
    diag,
    top: {
      ...(normalized && { baseUrl: normalized.ok ? normalized.url : '' }),
      ...(auth && { auth }),
      ...(authHeader !== undefined && { authHeader }),
      headers: spec.headers.map((h) => h.value),
      ...(spec.database && {
        statementTimeoutMs:
          spec.database.statementTimeoutMs ?? DATABASE_DEFAULTS.statementTimeoutMs,
      }),
      mcpServers: servers.timeouts,
      upstreams: upstreams.settings,
      databases,
    },
    ...(spec.timeoutMs !== undefined && { timeoutMs: spec.timeoutMs }),
    hasOauth: spec.access?.oauth !== undefined,
    ...(spec.access && { access: spec.access }),
    ...(spec.rateLimit && { rateLimit: spec.rateLimit }),
    limits: spec.limits,
    restrict: spec.restrict,
    restrictUsed: new Set(),
  };
}

/**
 * One default database at most, named ones with unique names: each named database's
 * statement timeout (its default filled in), what the sql grants naming it run under.
 */
function checkDatabases(
  databases: readonly DatabaseSpec[],
  diag: Diagnostics,
): ReadonlyMap<string, number> {
  const names = new NameClaims(diag, 'SPEC_DUPLICATE', takenBy('database name', 'database'));
  const timeouts = new Map<string, number>();
  let unnamed: Position | undefined;
  for (const d of databases) {
    if (!d.name) {
      if (unnamed)
        diag.error(
          'SPEC_DUPLICATE',
          d.at,
          ['database'],
          `the default database (without a name) may appear once (first at line ${unnamed.line}); name the others: database "<name>" env="VAR"`,
        );
      unnamed ??= d.at;
      continue;
    }
    const subject = [`database ${d.name.value}`];
    matchName(diag, 'SPEC_UPSTREAM_NAME', d.name, subject, 'database name', UPSTREAM_NAME);
    if (names.claim(d.name.value, d.at, d.name.at, subject))
      timeouts.set(d.name.value, d.statementTimeoutMs ?? DATABASE_DEFAULTS.statementTimeoutMs);
  }
  return timeouts;
}

/** A clean spec's top level around its lowered tools, resources and prompts, frozen by the caller. */
export function lowerTop(
  spec: Spec,
  context: GrantContext,
  tools: readonly ToolDescriptor[],
  resources: readonly ResourceDescriptor[],
  prompts: readonly PromptDescriptor[],
  mcpServers: readonly McpServerDescriptor[],
  toolsets: readonly ToolsetDescriptor[],
): CompiledSpec {
  const database = spec.database && lowerDatabase(spec.database, spec.file);
  const named = { specs: spec.upstreams, settings: context.top.upstreams };
  const upstreams = [...lowerDefaultUpstream(spec, tools), ...lowerUpstreams(named, spec.file)];
  const databases = [
    ...(database ? [database] : []),
    ...spec.databases.flatMap((d) => (d.name ? [lowerDatabase(d, spec.file)] : [])),
  ];
  const { wrap } = spec;
  return {
    file: spec.file,
    server: {
      name: wrap.name,
      version: wrap.version,
      ...(wrap.title !== undefined && { title: wrap.title }),
      ...(wrap.describe !== undefined && { instructions: wrap.describe }),
    },
    tools,
    resources,
    prompts,
    ...(database && { database }),
    databases,
    upstreams,
    oauthProviders: lowerOAuthProviders(spec.oauthProviders, spec.file),
    ...(spec.access && { access: spec.access }),
    ...(spec.limits.redisEnv !== undefined && { redisEnv: spec.limits.redisEnv }),
    ...(mcpServers.length > 0 && { mcpServers }),
    toolsets,
    listTokens: spec.limits.listTokens ?? DEFAULT_LIST_TOKENS,
    ...(spec.variables.length > 0 && { variables: spec.variables }),
  };
}

/** Settings left out take their defaults; the embedded seed is read beside the spec. */
function lowerDatabase(db: DatabaseSpec, file: string): DatabaseDescriptor {
  const settings = {
    pool: db.pool ?? DATABASE_DEFAULTS.pool,
    statementTimeoutMs: db.statementTimeoutMs ?? DATABASE_DEFAULTS.statementTimeoutMs,
    checkoutTimeoutMs: db.checkoutTimeoutMs ?? DATABASE_DEFAULTS.checkoutTimeoutMs,
  };
  const name = db.name?.value ?? '';
  if (db.kind === 'env') return { name, kind: 'env', env: db.env, ...settings };
  const seed =
    db.seed === undefined || isAbsolute(db.seed) ? db.seed : join(dirname(file), db.seed);
  return { name: '', kind: 'embedded', ...(seed !== undefined && { seed }), ...settings };
}

/**
 * The unnamed upstream of the top-level `base-url`, `auth`, `header` and `timeout`, as its
 * HTTP grants lowered it (the normalized base-url, or `serve --base-url`'s); none without
 * an HTTP grant.
 */
function lowerDefaultUpstream(
  spec: Spec,
  tools: readonly ToolDescriptor[],
): readonly UpstreamDescriptor[] {
  const grant = tools.find((t) => t.backend.kind === 'http' && t.backend.upstream === '');
  if (!grant || grant.backend.kind !== 'http') return [];
  const at = spec.baseUrl?.at ?? { line: 1, column: 1 };
  return [
    {
      name: '',
      baseUrl: grant.backend.baseUrl,
      ...(spec.auth && { auth: spec.auth.value }),
      headers: spec.headers.map((h) => h.value),
      ...(spec.timeoutMs !== undefined && { timeoutMs: spec.timeoutMs }),
      ...(spec.baseUrl?.connections !== undefined && { connections: spec.baseUrl.connections }),
      source: { file: spec.file, line: at.line, column: at.column },
    },
  ];
}
