/**
 * The `mcp-server` nodes a spec's grants use, opened as upstreams (one per server, for
 * the life of the process): a stdio child's `env` resolved from ours, an HTTP server's
 * `header`s and the gateway's own credential (`auth`, read from the environment, never
 * the caller's token). Every secret read on the way is returned for redaction. Shared
 * by the `mcp` kind and `check --live`.
 */
import type { ConnectionServices } from '../../../connections/connection-services.js';
import type { McpServerDescriptor, McpTransport } from '../../../compiler/descriptor.js';
import type { Env } from '../../../process/env.js';
import { StartupError } from '../../../process/startup-error.js';
import { openIdentity, type UpstreamIdentity } from '../upstream/upstream-identity.js';
import { openUpstreamDispatcher } from '../../../outbound/upstream-dispatcher.js';
import { readCapFor } from '../upstream/read-cap.js';
import type { GrantOf } from '../kind.js';
import {
  openMcpUpstream,
  type McpUpstream,
  type UpstreamTransport,
} from '../../../mcp-upstream/mcp-upstream.js';
import type { UpstreamNotification } from '../../../mcp-upstream/rpc-channel.js';
import type { UpstreamLog } from '../../../mcp-upstream/upstream-log.js';

export interface OpenedServer {
  readonly descriptor: McpServerDescriptor;
  readonly upstream: McpUpstream;
  /** The grants that call it, in spec order. */
  readonly grants: readonly GrantOf<'mcp'>[];
  /**
   * A Streamable HTTP server's identity when a token kind answers per call (its headers
   * go on each request of that call); undefined for a static credential, which is in
   * the channel's headers from the start, and for a stdio child.
   */
  readonly identity?: UpstreamIdentity;
}

export interface OpenedServers {
  readonly servers: readonly OpenedServer[];
  readonly secrets: readonly string[];
  readonly sent: readonly string[];
}

export interface OpenServersOptions {
  readonly env: Env;
  readonly log: UpstreamLog;
  readonly redact: (text: string) => string;
  readonly onNotification?: (server: string, n: UpstreamNotification) => void;
  /** How an `auth` becomes an identity (a test may open its own token kind). */
  readonly openIdentity?: typeof openIdentity;
  /** With an `oauth-provider`: the process's connected accounts, for `auth user`. */
  readonly connections?: ConnectionServices;
}

/**
 * Opens every server the grants use. The transports are resolved first, so a `from-env`
 * variable unset or a credential missing stops start-up before any child is started; a
 * program not found does too, after the ones already started are closed again.
 */
export async function openServers(
  declared: readonly McpServerDescriptor[],
  grants: readonly GrantOf<'mcp'>[],
  o: OpenServersOptions,
): Promise<OpenedServers> {
  const byName = new Map(declared.map((s) => [s.name, s]));
  const used: McpServerDescriptor[] = [];
  for (const g of grants) {
    const s = byName.get(g.backend.server);
    if (!s)
      throw new StartupError(
        `grant ${g.name} calls mcp-server ${JSON.stringify(g.backend.server)}, which the spec does not declare`,
      );
    if (!used.includes(s)) used.push(s);
  }
  const secrets: string[] = [];
  const sent: string[] = [];
  const transports: Transport[] = [];
  try {
    for (const s of used) {
      const t = await transportOf(s, o.env, o.openIdentity ?? openIdentity, o.connections);
      transports.push(t);
      secrets.push(...t.secrets);
      sent.push(...t.sent);
    }
  } catch (err) {
    await Promise.allSettled(transports.map((t) => t.close()));
    throw err;
  }
  const servers: OpenedServer[] = [];
  for (const [i, descriptor] of used.entries()) {
    const mine = grants.filter((g) => g.backend.server === descriptor.name);
    const opened = openMcpUpstream({
      name: descriptor.name,
      transport: transports[i]!.transport,
      protocol: descriptor.protocol,
      timeoutMs: descriptor.timeoutMs,
      // Answers are read up to the cap HTTP grants read bodies to, for the largest grant.
      maxMessageBytes: Math.max(...mine.map((g) => readCapFor(g.limits.maxBytes))),
      log: o.log,
      redact: o.redact,
      ...(o.onNotification && {
        onNotification: (n: UpstreamNotification) => o.onNotification!(descriptor.name, n),
      }),
    });
    if (!opened.ok) {
      await Promise.allSettled(servers.map((s) => s.upstream.close()));
      await Promise.allSettled(transports.slice(i).map((t) => t.close()));
      throw new StartupError(opened.message);
    }
    const { identity } = transports[i]!;
    servers.push({
      descriptor,
      upstream: opened.upstream,
      grants: mine,
      ...(identity && { identity }),
    });
  }
  return { servers, secrets, sent };
}

interface Transport {
  readonly transport: UpstreamTransport;
  readonly secrets: readonly string[];
  readonly sent: readonly string[];
  readonly identity?: UpstreamIdentity;
  /** Before the upstream is opened, what was made for it (a dispatcher) goes again. */
  close(): Promise<void>;
}

async function transportOf(
  s: McpServerDescriptor,
  env: Env,
  open: typeof openIdentity,
  connections?: ConnectionServices,
): Promise<Transport> {
  const t: McpTransport = s.transport;
  if (t.kind === 'command') {
    const vars: Record<string, string> = {};
    const secrets: string[] = [];
    for (const e of t.env) {
      if ('value' in e) {
        vars[e.name] = e.value;
        continue;
      }
      const v = env[e.fromEnv];
      if (v === undefined || v === '')
        throw new StartupError(
          `environment variable ${e.fromEnv} is not set; mcp-server ${JSON.stringify(s.name)} passes it to its child as ${e.name}`,
        );
      vars[e.name] = v;
      secrets.push(v);
    }
    return {
      transport: {
        kind: 'command',
        program: t.program,
        args: t.args,
        cwd: t.cwd,
        env: vars,
        parentEnv: env,
      },
      secrets,
      sent: [],
      close: () => Promise.resolve(),
    };
  }
  const identity = await open(t.auth, {
    env,
    upstream: `mcp-server ${JSON.stringify(s.name)}`,
    egress: { proxy: t.proxy, tls: t.tls },
    ...(connections && { connections }),
  });
  // A static credential is the same on every request: it joins the server's headers
  // (and its URL) once. A token kind's goes on each call's requests (mcp-backend.ts).
  const fixed = identity.kind === 'none' || identity.kind === 'service';
  const answer = fixed ? identity.forCall({}) : undefined;
  if (answer instanceof Promise || (answer && !answer.ok))
    throw new Error(`a ${identity.kind} credential must settle at once`);
  const credential = answer?.credential;
  const url = new URL(t.url);
  for (const [k, v] of credential?.query ?? []) url.searchParams.append(k, v);
  // The server's own pool, TLS material and egress proxy, as an HTTP upstream's.
  const way = openUpstreamDispatcher(
    url,
    {
      proxy: t.proxy,
      tls: t.tls,
      label: `mcp-server ${JSON.stringify(s.name)}`,
    },
    env,
  );
  return {
    transport: {
      kind: 'url',
      url,
      headers: Object.fromEntries([
        ...t.headers.map(([k, v]) => [k.toLowerCase(), v] as const),
        ...(credential?.headers ?? []),
      ]),
      dispatcher: way.dispatcher,
      ownsDispatcher: true,
    },
    secrets: [...identity.secrets(), ...way.secrets],
    sent: identity.sentValues(),
    ...(!fixed && { identity }),
    close: async () => {
      await identity.close?.();
      await way.close();
    },
  };
}
