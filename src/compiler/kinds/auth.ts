/**
 * The upstream credential and fixed headers (spec-language.md, "Top-level nodes"): the
 * `auth <kind>` and `header "<Name>" "<value>"` rows, at the top level for HTTP grants
 * and in an `mcp-server` for a Streamable HTTP server.
 */
import type { Located } from '../diagnostics.js';
import type { UpstreamAuth } from '../descriptor.js';
import { arg, camelProps, prop, type NodeKind } from '../kdl-reader.js';

const REQUIRED_STRING = { type: 'string', required: true } as const;
const STRING = { type: 'string' } as const;

const AUTH_KIND = { what: 'a kind: bearer, header, basic or query', type: 'string' } as const;
export const AUTH: NodeKind<Located<UpstreamAuth>> = {
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

export const HEADER: NodeKind<Located<readonly [string, string]>> = {
  args: [
    { what: 'a header name', type: 'string' },
    { what: 'a header value', type: 'string' },
  ],
  build: (n) =>
    n.complete ? { value: [arg<string>(n, 0)!, arg<string>(n, 1)!], at: n.at } : undefined,
};
