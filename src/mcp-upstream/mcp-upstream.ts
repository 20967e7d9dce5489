/**
 * One upstream MCP server as the `mcp` backend kind will hold it: opened at boot (a
 * stdio child started, or an HTTP channel made), then called with `callTool` and
 * listed with `listTools`; its state for `/readyz`; closed after the drain. Every
 * answer is a value (upstream-outcome.ts); nothing here throws at the gateway.
 */
import type { Dispatcher } from 'undici';
import type { Cancellation } from '../outbound/cancellation.js';
import type { NumberTexts } from '../json/number-text.js';
import { CredentialSessions } from './credential-sessions.js';
import { HttpChannel, upstreamAgent } from './http-channel.js';
import type { RpcChannel, UpstreamNotification } from './rpc-channel.js';
import { startStdioChild } from './stdio-supervisor.js';
import type { UpstreamLog } from './upstream-log.js';
import { requestToolsCall, requestToolsList, type UpstreamTool } from './upstream-tools.js';
import {
  UpstreamSession,
  type Handshake,
  type ProtocolChoice,
  type UpstreamState,
} from './upstream-session.js';
import type { UpstreamOutcome } from './upstream-outcome.js';
import { MODERN_VERSION } from '../mcp-wire/versions.js';

export type UpstreamTransport =
  | {
      readonly kind: 'url';
      readonly url: URL;
      /** The spec's `header`s and the upstream credential (the gateway's own, never the caller's). */
      readonly headers: Readonly<Record<string, string>>;
      readonly dispatcher?: Dispatcher;
      /** The dispatcher is the upstream's own (its proxy, its TLS): closed with it. */
      readonly ownsDispatcher?: boolean;
    }
  | {
      readonly kind: 'command';
      readonly program: string;
      readonly args: readonly string[];
      readonly cwd: string;
      /** The spec's `env` children, `from-env` values already resolved. */
      readonly env: Readonly<Record<string, string>>;
      readonly parentEnv?: NodeJS.ProcessEnv;
      readonly restart?: { readonly firstMs: number; readonly maxMs: number };
      readonly killAfterMs?: number;
    };

export interface UpstreamOptions {
  /** The `mcp-server` name. */
  readonly name: string;
  readonly transport: UpstreamTransport;
  readonly protocol?: ProtocolChoice;
  /** Each call's deadline unless the call gives its own (the server's `timeout`, default 30 s). */
  readonly timeoutMs?: number;
  /** The largest answer read (one stdout line, or one HTTP body). */
  readonly maxMessageBytes: number;
  /** Where the child's stderr and the layer's warnings go. */
  readonly log: UpstreamLog;
  /** Redacts every secret the gateway holds; applied to all upstream text logged or quoted. */
  readonly redact: (text: string) => string;
  /** `notifications/tools/list_changed` and any other notification of the upstream. */
  readonly onNotification?: (n: UpstreamNotification) => void;
}

export interface CallOptions {
  readonly timeoutMs?: number;
  readonly cancel?: Cancellation;
  /** A read grant's call may be sent again on a new session; a write never is (default false). */
  readonly retryOnNewSession?: boolean;
  /** The caller's text of numbers inside a call's arguments (number-text.ts), sent as written. */
  readonly argumentTexts?: NumberTexts | undefined;
  /** The call's trace, sent in the request's `_meta` (W3C Trace Context in MCP). */
  readonly traceparent?: string | undefined;
  readonly tracestate?: string | undefined;
  readonly baggage?: string | undefined;
  /** Headers of this call's request only: a token kind's credential for its caller. */
  readonly headers?: readonly (readonly [string, string])[] | undefined;
}

export interface McpUpstream {
  readonly name: string;
  /** Shakes hands now (at boot), so the first call does not wait for it. */
  connect(o?: CallOptions): Promise<UpstreamOutcome<Handshake>>;
  callTool(
    tool: string,
    args: Record<string, unknown>,
    o?: CallOptions,
  ): Promise<UpstreamOutcome<unknown>>;
  listTools(o?: CallOptions): Promise<UpstreamOutcome<UpstreamTool[]>>;
  /** For `/readyz`: 'starting' until the first handshake, then 'up' or 'down'. */
  state(): UpstreamState;
  handshake(): Handshake | undefined;
  /** The stdio child's process id while it runs (for the log); undefined over HTTP. */
  pid(): number | undefined;
  /** Ends the session (DELETE) or stops the child (SIGTERM, SIGKILL 5 s later). */
  close(): Promise<void>;
}

export const DEFAULT_CALL_TIMEOUT_MS = 30_000;

/** Opens the upstream; a stdio program not found is a start-up error naming it. */
export function openMcpUpstream(
  o: UpstreamOptions,
):
  | { readonly ok: true; readonly upstream: McpUpstream }
  | { readonly ok: false; readonly message: string } {
  let channel: RpcChannel;
  let perCredential: CredentialSessions | undefined;
  let childState: (() => 'up' | 'down' | 'stopped') | undefined;
  let pid: () => number | undefined = () => undefined;
  // What both transports are told alike; each takes the rest of its transport as it is.
  const common = {
    name: o.name,
    maxMessageBytes: o.maxMessageBytes,
    redact: o.redact,
    ...(o.onNotification && { onNotification: o.onNotification }),
  };
  const t = o.transport;
  const protocol = o.protocol ?? 'auto';
  if (t.kind === 'url') {
    const { kind: _http, dispatcher, ownsDispatcher, ...http } = t;
    // One pool for the shared channel and every caller's session; the shared channel closes it.
    const pool = dispatcher ?? upstreamAgent();
    channel = new HttpChannel({
      ...common,
      ...http,
      dispatcher: pool,
      ownsDispatcher: dispatcher === undefined || ownsDispatcher === true,
    });
    perCredential = new CredentialSessions({
      name: o.name,
      protocol,
      channel: { ...common, ...http },
      dispatcher: pool,
    });
  } else {
    const { kind: _stdio, ...stdio } = t;
    const started = startStdioChild({ ...common, ...stdio, log: o.log });
    if (!started.ok) return started;
    channel = started.child;
    const child = started.child;
    childState = () => child.state();
    pid = () => child.pid;
  }
  const session = new UpstreamSession(o.name, channel, protocol);
  /**
   * Whether a call with a caller's credential goes on that caller's own session: not when
   * the shared handshake (made with no credential) agreed 2026-07-28, which is stateless;
   * yes when it agreed 2025-11-25 (a session is its opener's), and when it failed — a
   * server that authorizes every request refuses a handshake with no token, so from then
   * on each caller shakes hands with their own.
   */
  let sharedFailed = false;
  const onOwnSession = async (cancel: Cancellation | undefined, ms: number): Promise<boolean> => {
    const agreed = session.handshake();
    if (agreed) return agreed.era !== 'modern';
    if (sharedFailed) return true;
    const hs = await session.ready(ms, cancel);
    // Remembered only when the handshake itself failed, not when this caller stopped waiting.
    if (!hs.ok && session.state() === 'down') sharedFailed = true;
    return !hs.ok || hs.value.era !== 'modern';
  };
  const timeout = (c?: CallOptions): number =>
    c?.timeoutMs ?? o.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
  const upstream: McpUpstream = {
    name: o.name,
    connect: (c) => session.ready(timeout(c), c?.cancel),
    callTool: (tool, args, c) => {
      const call = (on: UpstreamSession, ms = timeout(c)): Promise<UpstreamOutcome<unknown>> =>
        requestToolsCall(
          on,
          tool,
          args,
          {
            timeoutMs: ms,
            cancel: c?.cancel,
            retryOnNewSession: c?.retryOnNewSession ?? false,
            texts: c?.argumentTexts,
            traceparent: c?.traceparent,
            tracestate: c?.tracestate,
            baggage: c?.baggage,
            headers: c?.headers,
          },
          o.redact,
        );
      // A caller's credential opens the 2025-era session it is called on
      // (credential-sessions.ts); a 2026-07-28 upstream needs no session to be its own.
      const credential = c?.headers;
      if (
        !perCredential ||
        !credential ||
        credential.length === 0 ||
        protocol === MODERN_VERSION ||
        session.handshake()?.era === 'modern'
      )
        return call(session);
      const own = perCredential;
      const until = performance.now() + timeout(c);
      return onOwnSession(c?.cancel, timeout(c)).then((mine) => {
        // What is left of the call's deadline after waiting on the shared handshake.
        const left = Math.max(0, until - performance.now());
        return mine ? own.run(credential, (on) => call(on, left)) : call(session, left);
      });
    },
    listTools: (c) =>
      requestToolsList(session, { timeoutMs: timeout(c), cancel: c?.cancel }, o.redact),
    // A child that is restarting is down whatever the last handshake said.
    state: () => (childState?.() === 'down' ? 'down' : session.state()),
    handshake: () => session.handshake(),
    pid,
    close: async () => {
      await perCredential?.close();
      await channel.close();
    },
  };
  return { ok: true, upstream };
}
