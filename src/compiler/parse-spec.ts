/**
 * KDL text → typed Spec. Checks shape only: known nodes and properties, value types,
 * nodes that may appear once, all from the tables below (spec-language.md, "Top-level
 * nodes" and "Access"). Meaning (tool names, templates, SQL, patterns) is for
 * `check-spec.ts`, so that one file reports every error it has in one run.
 */
import { MIN_MAX_BYTES } from '../envelope/envelope.js';
import { InvalidKdlError, parse, type Document } from '@bgotink/kdl';
import { Diagnostics, type Located, type Position } from './diagnostics.js';
import type { AccessDescriptor, DatabaseSettings, UpstreamAuth } from './descriptor.js';
import {
  arg,
  argAt,
  childNamed,
  childrenNamed,
  camelProps,
  prop,
  propAt,
  readTable,
  type NodeKind,
  type Scalar,
  type Table,
} from './kdl-reader.js';
import { RATE_LIMIT, TEXT, TIMEOUT } from './common-kinds.js';
import { GRANT } from './parse-grant.js';
import { PROMPT } from './parse-prompt.js';
import { RESOURCE } from './parse-resource.js';
import type { RestrictSpec, Spec } from './spec-types.js';
import { parseDuration } from './values.js';
import { unterminatedString } from './open-string.js';

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

const AUTH_KIND = { what: 'a kind: bearer, header, basic or query', type: 'string' } as const;
const AUTH: NodeKind<Located<UpstreamAuth>> = {
  args: [AUTH_KIND],
  variants: {
    arg: 0,
    kinds: {
      bearer: { props: { env: REQUIRED_STRING } },
      header: {
        args: [
          AUTH_KIND,
          { what: 'a header name (auth header "X-Api-Key" env="V")', type: 'string' },
        ],
        props: { env: REQUIRED_STRING, prefix: STRING },
      },
      basic: { props: { 'username-env': REQUIRED_STRING, 'password-env': REQUIRED_STRING } },
      query: {
        args: [
          AUTH_KIND,
          { what: 'a query parameter name (auth query "key" env="V")', type: 'string' },
        ],
        props: { env: REQUIRED_STRING },
      },
    },
    unknown: (kind) => ({
      code: 'SPEC_VALUE_TYPE',
      message: `unknown auth kind ${JSON.stringify(kind)} (known: bearer, header, basic, query)`,
      stop: true,
    }),
    subject: (name, ctx) => [...ctx.subject, name],
  },
  build(n) {
    if (!n.complete || n.variant === undefined) return undefined;
    const env = prop<string>(n, 'env');
    const named = arg<string>(n, 1);
    const auth =
      n.variant === 'header'
        ? { kind: 'header', header: named, env, prefix: prop(n, 'prefix') ?? '' }
        : n.variant === 'query'
          ? { kind: 'query', param: named, env }
          : { kind: n.variant, ...camelProps(n) };
    return { value: auth as UpstreamAuth, at: n.at };
  },
};

const HEADER: NodeKind<Located<readonly [string, string]>> = {
  args: [
    { what: 'a header name', type: 'string' },
    { what: 'a header value', type: 'string' },
  ],
  build: (n) =>
    n.complete ? { value: [arg<string>(n, 0)!, arg<string>(n, 1)!], at: n.at } : undefined,
};

const DATABASE: NodeKind<Spec['database']> = {
  args: [{ what: 'a mode ("embedded")', type: 'string', required: false }],
  props: {
    pool: { type: 'integer', min: 1 },
    'statement-timeout': STRING,
    'checkout-timeout': STRING,
  },
  variants: {
    arg: 0,
    kinds: { env: { props: { env: REQUIRED_STRING } }, embedded: { props: { seed: STRING } } },
    missing: 'env',
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
      return { kind: 'embedded', ...(seed !== undefined && { seed }), ...settings };
    }
    const env = prop<string>(n, 'env');
    return n.variant === 'env' && env !== undefined ? { kind: 'env', env, ...settings } : undefined;
  },
};

const RESTRICT_ENTRY: NodeKind<Located<RestrictSpec>> & { once: (name: string) => string } = {
  rest: { what: 'an allowed value', type: 'scalar' },
  props: { pattern: STRING },
  once: (name) => `${name} is restricted twice; list every value in one line`,
  build(n, { diag }) {
    const subject = [`restrict ${n.name}`];
    const values = n.args.filter((v): v is Located<Scalar> => v !== undefined);
    for (const v of values)
      if (v.value === null)
        diag.error('SPEC_VALUE_TYPE', v.at, subject, 'an allowed value cannot be #null');
    const pattern = prop<string>(n, 'pattern');
    if (values.length === 0 && pattern === undefined) {
      diag.error('SPEC_MISSING', n.at, subject, 'give the allowed values or pattern="..."');
      return undefined;
    }
    const value: RestrictSpec = {
      argument: n.name,
      ...(values.length > 0 && { values }),
      ...(pattern !== undefined && { pattern: { value: pattern, at: propAt(n, 'pattern') } }),
    };
    return { value, at: n.at };
  },
};

const RESTRICT: NodeKind<Located<RestrictSpec>[]> = {
  children: { kinds: {}, other: RESTRICT_ENTRY },
  inner: () => ['restrict'],
  build: (n) => n.children.map((c) => c.value as Located<RestrictSpec>),
};

const LIMITS: NodeKind<Spec['limits']> = {
  props: {
    // The envelope's coverage needs room of its own (envelope.ts, MIN_MAX_BYTES).
    'max-bytes': { type: 'integer', min: MIN_MAX_BYTES },
    'budget-bytes': { type: 'integer', min: 1 },
    'redis-env': STRING,
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
    'allow-origin': {
      rest: { what: 'an origin', type: 'string' },
      build: (n) => n.args.flatMap((a) => (a ? [a.value as string] : [])),
    },
  },
  where: 'in access',
};

const ACCESS: NodeKind<AccessDescriptor> = {
  children: ACCESS_TABLE,
  inner: () => ['access'],
  build(n, { diag }) {
    let oauth: Oauth | undefined;
    for (const c of n.children.filter((c) => c.name === 'oauth')) {
      const given = c.value as { complete: boolean; oauth: Oauth };
      if (oauth) diag.error('SPEC_DUPLICATE', c.at, ['access'], '`oauth` is given twice');
      else if (given.complete) oauth = given.oauth;
    }
    return {
      apiKeys: childrenNamed(n.children, 'api-key'),
      ...(oauth && { oauth }),
      allowOrigins: childrenNamed<string[]>(n.children, 'allow-origin').flat(),
    };
  },
};

/** The top level, in the order the "known: ..." hint lists it. */
const TOP: Table = {
  kinds: {
    wrap: { ...WRAP, once: true },
    'base-url': { ...BASE_URL, once: true },
    auth: { ...AUTH, once: true },
    header: HEADER,
    timeout: { ...TIMEOUT, once: true },
    database: { ...DATABASE, once: true },
    restrict: { ...RESTRICT, once: true },
    limits: { ...LIMITS, once: true },
    'rate-limit': { ...RATE_LIMIT, once: true },
    access: { ...ACCESS, once: true },
    can: GRANT,
    resource: RESOURCE,
    prompt: PROMPT,
  },
};

export interface ParseResult {
  /** Undefined only when the text is not KDL at all. */
  readonly spec?: Spec;
  readonly diagnostics: Diagnostics;
}

export function parseSpec(text: string, file: string): ParseResult {
  const diag = new Diagnostics(file);
  let doc: Document;
  try {
    doc = parse(text, { as: 'document', storeLocations: true });
  } catch (err) {
    if (!(err instanceof InvalidKdlError)) throw err;
    reportSyntax(err, text, diag);
    return { diagnostics: diag };
  }
  const top = readTable(doc.nodes, TOP, { diag, subject: [] });
  // A `wrap` whose values were refused still counts as given.
  if (!doc.nodes.some((n) => n.getName() === 'wrap'))
    diag.error(
      'SPEC_MISSING',
      { line: 1, column: 1 },
      [],
      'the spec needs `wrap "<server name>"` once',
    );
  const spec: Spec = {
    file,
    wrap: childNamed(top, 'wrap') ?? { name: '', version: '0.0.0' },
    baseUrl: childNamed(top, 'base-url'),
    auth: childNamed(top, 'auth'),
    headers: childrenNamed(top, 'header'),
    timeoutMs: childNamed(top, 'timeout'),
    database: childNamed(top, 'database'),
    restrict: childNamed(top, 'restrict') ?? [],
    limits: childNamed(top, 'limits') ?? {},
    rateLimit: childNamed(top, 'rate-limit'),
    access: childNamed(top, 'access'),
    grants: childrenNamed(top, 'can'),
    resources: childrenNamed(top, 'resource'),
    prompts: childrenNamed(top, 'prompt'),
  };
  return { spec, diagnostics: diag };
}

function reportSyntax(err: InvalidKdlError, text: string, diag: Diagnostics): void {
  // A string left open makes the parser fail at the next quote, lines below: the
  // opening quote is where the fix goes.
  const open = unterminatedString(text);
  if (open) {
    diag.error(
      'SPEC_SYNTAX',
      open,
      [],
      'invalid KDL: this string is not closed on its line (a missing closing ")',
    );
    return;
  }
  // The parser may carry several errors (`errors`) or one with a start position.
  const e = err as InvalidKdlError & {
    start?: Position;
    errors?: (InvalidKdlError & { start?: Position })[];
  };
  const all = e.errors && e.errors.length > 0 ? e.errors : [e];
  for (const one of all) {
    const message = one.message.replace(/ at \d+:\d+$/, '');
    diag.error('SPEC_SYNTAX', one.start, [], `invalid KDL: ${message}`);
  }
}
