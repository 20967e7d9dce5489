/**
 * The `mcp-server "<name>"` kind (spec-language.md, "Upstream MCP servers"): an upstream
 * MCP server, reached over Streamable HTTP (`url=`) or started as a stdio child
 * (`command`). Its row, the checks of its name, transport and children, and the
 * McpServerDescriptor it lowers to; `tool` grants (kinds/mcp-grant.ts) name it.
 */
import { matchName, NameClaims, takenBy } from '../name-claims.js';
import { dirname } from 'node:path';
import { closestName } from '../closest-name.js';
import { locatedString, once, TIMEOUT } from '../common-kinds.js';
import type { Diagnostics, Located, Position } from '../diagnostics.js';
import type { McpChildEnv, McpServerDescriptor } from '../descriptor.js';
import { authHeaderName, headerProblem } from '../headers.js';
import { arg, argAt, childNamed, childrenNamed, type Built, type NodeKind } from '../kdl-reader.js';
import { proxyProblem } from '../endpoint-url.js';
import { AUTH, HEADER, type AuthSpec } from './auth.js';
import { PROXY } from './upstream.js';
import { checkTls, lowerTls, TLS, type TlsSpec } from './upstream-tls.js';

const SERVER_NAME = /^[a-z][a-z0-9-]{0,31}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const PROTOCOLS = ['auto', '2026-07-28', '2025-11-25'] as const;
const DEFAULT_TIMEOUT_MS = 30_000;

/** An `mcp-server` node as read. */
export interface McpServerSpec {
  readonly name: Located<string>;
  readonly at: Position;
  readonly url?: Located<string>;
  readonly command?: Located<readonly string[]>;
  readonly auth?: AuthSpec;
  readonly headers: readonly Located<readonly [string, string]>[];
  readonly proxy?: Located<string>;
  readonly tls?: TlsSpec;
  readonly env: readonly Located<McpChildEnv>[];
  readonly timeoutMs?: number;
  readonly protocol?: Located<string>;
  /** Every child as written, for the transport it belongs to. */
  readonly children: readonly Built[];
}

/**
 * A NUL ends a C string: no process can be started with one in its program, arguments
 * or environment (spawn throws, and the child would be retried forever), so it is a
 * load error at the string that holds it rather than a child that never runs.
 */
const NUL = '\u0000';
const NUL_SAYS = 'holds a NUL character (\\u0000), which no process can be started with';

const COMMAND: NodeKind<Located<readonly string[]>> = {
  args: [{ what: 'a program (command "node" "server.js")', type: 'string' }],
  rest: { what: 'an argument', type: 'string' },
  build(n, { diag, subject }) {
    if (!n.complete || !n.args.every(Boolean)) return undefined;
    const words = n.args.map((a) => a!.value as string);
    words.forEach((w, i) => {
      if (!w.includes(NUL)) return;
      const which = i === 0 ? 'the program' : `argument ${i}`;
      diag.error('SPEC_MCP_COMMAND', argAt(n, i), [...subject, 'command'], `${which} ${NUL_SAYS}`);
    });
    // Kept even when refused: the server has a command, just not a runnable one.
    return { value: words, at: n.at };
  },
};

const ENV: NodeKind<Located<McpChildEnv>> = {
  args: [
    { what: 'a variable name', type: 'string' },
    { what: 'a value', type: 'string', required: false },
  ],
  props: { 'from-env': { type: 'string' } },
  build(n, { diag, subject }) {
    const name = arg<string>(n, 0);
    if (name === undefined) return undefined;
    const here = [...subject, `env ${name}`];
    if (!ENV_NAME.test(name)) {
      // Not `env ${name}`: the name may hold a NUL or a control, said escaped below.
      diag.error(
        'SPEC_VALUE_TYPE',
        argAt(n, 0),
        [...subject, 'env'],
        `${JSON.stringify(name)} is not a variable name (${ENV_NAME.source})`,
      );
      return undefined;
    }
    const value = arg<string>(n, 1);
    if (value?.includes(NUL)) {
      diag.error('SPEC_MCP_COMMAND', argAt(n, 1), here, `the value ${NUL_SAYS}`);
      return undefined;
    }
    const fromEnv = n.props.get('from-env') as Located<string> | undefined;
    if (value !== undefined && fromEnv !== undefined) {
      diag.error('SPEC_VALUE_TYPE', fromEnv.at, here, 'give a value or from-env=, not both');
      return undefined;
    }
    if (value === undefined && fromEnv === undefined) {
      diag.error('SPEC_MISSING', n.at, here, '`env` needs a value or from-env="VARIABLE"');
      return undefined;
    }
    return {
      value: value !== undefined ? { name, value } : { name, fromEnv: fromEnv!.value },
      at: n.at,
    };
  },
};

export const MCP_SERVER: NodeKind<McpServerSpec> = {
  args: [{ what: 'a server name (mcp-server "tracker")', type: 'string' }],
  props: { url: { type: 'string' } },
  children: {
    kinds: {
      command: once(COMMAND),
      auth: once(AUTH),
      header: HEADER,
      env: ENV,
      timeout: once(TIMEOUT),
      protocol: once(locatedString('a protocol: auto, 2026-07-28 or 2025-11-25')),
      proxy: once(PROXY),
      tls: once(TLS),
    },
    where: 'in mcp-server',
  },
  inner: (n) => {
    const name = arg<string>(n, 0);
    return name === undefined ? undefined : [`mcp-server ${name}`];
  },
  build(n) {
    const c = n.children;
    const url = n.props.get('url') as Located<string> | undefined;
    return {
      name: { value: arg<string>(n, 0)!, at: argAt(n, 0) },
      at: n.at,
      ...(url && { url }),
      command: childNamed(c, 'command'),
      auth: childNamed(c, 'auth'),
      headers: childrenNamed(c, 'header'),
      env: childrenNamed(c, 'env'),
      timeoutMs: childNamed(c, 'timeout'),
      protocol: childNamed(c, 'protocol'),
      proxy: childNamed(c, 'proxy'),
      tls: childNamed(c, 'tls'),
      children: c,
    };
  },
};

/** What the check found: the servers a `tool` grant may name, with their call deadline. */
export interface CheckedMcpServers {
  readonly specs: readonly McpServerSpec[];
  /** Each declared name's timeout, defaults filled in. */
  readonly timeouts: ReadonlyMap<string, number>;
}

/** Children of one transport only, and the transport's own word in messages. */
const URL_ONLY = ['auth', 'header', 'proxy', 'tls'];
const COMMAND_ONLY = ['env'];

export function checkMcpServers(
  specs: readonly McpServerSpec[],
  file: string,
  diag: Diagnostics,
): CheckedMcpServers {
  const names = new NameClaims(
    diag,
    'SPEC_DUPLICATE_MCP_SERVER',
    takenBy('server name', 'mcp-server'),
  );
  for (const s of specs) {
    const subject = [`mcp-server ${s.name.value}`];
    matchName(diag, 'SPEC_MCP_SERVER_NAME', s.name, subject, 'server name', SERVER_NAME);
    names.claim(s.name.value, s.at, s.name.at, subject);
    checkTransport(s, file, diag, subject);
    if (s.protocol && !(PROTOCOLS as readonly string[]).includes(s.protocol.value))
      diag.error(
        'SPEC_VALUE_TYPE',
        s.protocol.at,
        subject,
        `protocol ${JSON.stringify(s.protocol.value)} is not one of ${PROTOCOLS.join(', ')}`,
      );
  }
  return {
    specs,
    timeouts: new Map(specs.map((s) => [s.name.value, s.timeoutMs ?? DEFAULT_TIMEOUT_MS])),
  };
}

function checkTransport(
  s: McpServerSpec,
  file: string,
  diag: Diagnostics,
  subject: readonly string[],
): void {
  if (s.url && s.command)
    diag.error(
      'SPEC_MCP_TRANSPORT',
      s.command.at,
      subject,
      'an mcp-server has url= (Streamable HTTP) or a `command` (stdio), not both',
    );
  else if (!s.url && !s.command)
    diag.error(
      'SPEC_MCP_TRANSPORT',
      s.at,
      subject,
      'an mcp-server needs url="https://..." (Streamable HTTP) or a `command "<program>" ...` child (stdio)',
    );
  if (s.url) {
    const problem = urlProblem(s.url.value);
    if (problem) diag.error('SPEC_MCP_TRANSPORT', s.url.at, subject, problem);
  }
  const misplaced = s.url ? COMMAND_ONLY : s.command ? URL_ONLY : [];
  for (const c of s.children)
    if (misplaced.includes(c.name))
      diag.error(
        'SPEC_MCP_TRANSPORT',
        c.at,
        subject,
        s.url
          ? `\`${c.name}\` belongs to a stdio server (command); this one has url=`
          : `\`${c.name}\` belongs to a Streamable HTTP server (url=); this one has a command`,
      );
  const seen = new Set<string>();
  for (const e of s.env) {
    if (seen.has(e.value.name))
      diag.error('SPEC_DUPLICATE', e.at, [...subject, `env ${e.value.name}`], 'is given twice');
    seen.add(e.value.name);
  }
  if (!s.url) return;
  const authHeader = authHeaderName(s.auth?.value);
  if (s.auth?.value.kind === 'header') {
    const problem = headerProblem(s.auth.value.header, s.auth.value.prefix, undefined);
    if (problem) diag.error('SPEC_HEADER', s.auth.at, [...subject, 'auth'], problem);
  }
  for (const {
    value: [name, value],
    at,
  } of s.headers) {
    const problem = headerProblem(name, value, authHeader);
    if (problem) diag.error('SPEC_HEADER', at, [...subject, `header ${name}`], problem);
  }
  if (s.proxy) {
    const problem = proxyProblem(s.proxy.value);
    if (problem) diag.error('SPEC_PROXY', s.proxy.at, subject, problem);
  }
  if (s.tls) checkTls(s.tls, file, diag, subject);
}

function urlProblem(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `url ${JSON.stringify(text)} is not an absolute URL`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return `url ${JSON.stringify(text)}: scheme ${url.protocol} is not http or https`;
  if (url.username || url.password)
    return `url ${JSON.stringify(text)}: credentials belong in \`auth\`, not in the URL`;
  return undefined;
}

/** A `tool` grant's server that is not declared: its refusal, with the likely one. */
export function unknownServerMessage(name: string, known: readonly string[]): string {
  const guess = closestName(name, known);
  const mean = guess ? `; did you mean ${JSON.stringify(guess)}?` : '';
  const declared = known.length > 0 ? ` (declared: ${known.join(', ')})` : ' (none is declared)';
  return `no mcp-server is named ${JSON.stringify(name)}${mean}${declared}`;
}

/** The servers of a clean spec; a stdio child runs in the spec file's folder. */
export function lowerMcpServers(checked: CheckedMcpServers, file: string): McpServerDescriptor[] {
  return checked.specs.map((s) => ({
    name: s.name.value,
    transport: s.url
      ? {
          kind: 'url',
          url: s.url.value,
          headers: s.headers.map((h) => h.value),
          ...(s.auth && { auth: s.auth.value }),
          ...(s.proxy && { proxy: s.proxy.value }),
          ...(s.tls && { tls: lowerTls(s.tls, file) }),
        }
      : {
          kind: 'command',
          program: s.command!.value[0]!,
          args: s.command!.value.slice(1),
          cwd: dirname(file),
          env: s.env.map((e) => e.value),
        },
    timeoutMs: checked.timeouts.get(s.name.value)!,
    protocol: (s.protocol?.value ?? 'auto') as McpServerDescriptor['protocol'],
    source: { file, line: s.at.line, column: s.at.column },
  }));
}
