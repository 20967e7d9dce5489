/**
 * A connection to a remote MCP server (a running gateway or any other) for the
 * `tools <url>`, `call` and `discover` commands, built on the official SDK v2
 * client and its Streamable HTTP transport.
 *
 * The SDK handles negotiation (server/discover probe, initialize fallback), JSON
 * and SSE answers, the legacy session id (kept from initialize and sent back),
 * and the `MCP-Protocol-Version`/`Mcp-Method`/`Mcp-Name` headers. What it leaves
 * to us: ending the session with DELETE on close (its `close()` only aborts),
 * a deadline on every HTTP exchange (the DELETE and a hung body included), and
 * the raw handshake result for `discover`.
 */
import { readFile } from 'node:fs/promises';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { parseDuration } from '../spec/values.js';

export type Era = 'auto' | 'modern' | 'legacy';
export const ERAS: readonly Era[] = ['auto', 'modern', 'legacy'];

/** The protocol revision `--era modern` pins. */
export const MODERN_VERSION = '2026-07-28';
export const DEFAULT_TIMEOUT_MS = 30_000;

export interface RemoteOptions {
  readonly url: URL;
  readonly headers: Headers;
  readonly era: Era;
  readonly timeoutMs: number;
}

/** The parseArgs options every remote command accepts. */
export const REMOTE_ARG_OPTIONS = {
  header: { type: 'string', multiple: true },
  'bearer-env': { type: 'string' },
  era: { type: 'string' },
  timeout: { type: 'string' },
} as const;

export interface RemoteArgValues {
  header?: string[];
  'bearer-env'?: string;
  era?: string;
  timeout?: string;
}

export class UsageError extends Error {}

export function isRemoteTarget(text: string): boolean {
  return /^https?:\/\//i.test(text);
}

/** Validates the URL and the remote options; throws UsageError naming what is wrong. */
export function remoteOptions(
  target: string,
  values: RemoteArgValues,
  env: NodeJS.ProcessEnv = process.env,
): RemoteOptions {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new UsageError(`${JSON.stringify(target)} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`${JSON.stringify(target)} is not an http:// or https:// URL`);
  }
  const headers = new Headers();
  for (const line of values.header ?? []) {
    const colon = line.indexOf(':');
    const name = colon < 0 ? '' : line.slice(0, colon).trim();
    if (!name) throw new UsageError(`--header ${JSON.stringify(line)} is not 'Name: value'`);
    try {
      headers.append(name, line.slice(colon + 1).trim());
    } catch {
      throw new UsageError(`--header ${JSON.stringify(line)} is not a valid HTTP header`);
    }
  }
  const bearerEnv = values['bearer-env'];
  if (bearerEnv !== undefined) {
    const token = env[bearerEnv];
    if (!token) throw new UsageError(`--bearer-env ${bearerEnv}: the variable is not set`);
    if (headers.has('authorization')) {
      throw new UsageError('--bearer-env and --header Authorization: give only one');
    }
    try {
      headers.set('authorization', `Bearer ${token.trim()}`);
    } catch {
      throw new UsageError(`--bearer-env ${bearerEnv}: the token is not a valid header value`);
    }
  }
  const era = (values.era ?? 'auto') as Era;
  if (!ERAS.includes(era)) {
    throw new UsageError(`--era ${JSON.stringify(values.era)}: use auto, modern or legacy`);
  }
  let timeoutMs = DEFAULT_TIMEOUT_MS;
  if (values.timeout !== undefined) {
    const t = values.timeout;
    const ms = /^\d{1,6}$/.test(t) ? Number(t) * 1000 : parseDuration(t);
    if (!ms) throw new UsageError(`--timeout ${JSON.stringify(t)} is not a duration like 10s`);
    timeoutMs = ms;
  }
  return { url, headers, era, timeoutMs };
}

export interface Connection {
  readonly client: Client;
  readonly url: URL;
  /** Options for every request: the SDK's own timeout for the JSON-RPC answer. */
  readonly request: { timeout: number; maxTotalTimeout: number };
  /** The raw `server/discover` result (modern) or `initialize` result (legacy). */
  handshake(): unknown;
  /** Ends the session (DELETE, best effort, bounded) and closes the client. */
  close(): Promise<void>;
}

export async function connect(o: RemoteOptions): Promise<Connection> {
  const transport = new StreamableHTTPClientTransport(o.url, {
    requestInit: { headers: o.headers },
    fetch: deadlineFetch(o.timeoutMs),
  });
  // Every answer passes through here before the client handles it (the Protocol
  // layer chains a handler already set), so the handshake result is kept as sent.
  let handshake: unknown;
  transport.onmessage = (message) => {
    const result = (message as { result?: Record<string, unknown> }).result;
    if (handshake === undefined && isHandshakeResult(result)) handshake = result;
  };
  const client = new Client(
    { name: 'mcp-beaver', version: await ownVersion() },
    {
      versionNegotiation: {
        mode: o.era === 'modern' ? { pin: MODERN_VERSION } : o.era,
        probe: { timeoutMs: o.timeoutMs },
      },
    },
  );
  // Transport errors also reject the request they belong to; nothing to add here.
  client.onerror = () => {};
  const request = { timeout: o.timeoutMs, maxTotalTimeout: o.timeoutMs };
  const close = async (): Promise<void> => {
    if (transport.sessionId !== undefined) await transport.terminateSession().catch(() => {});
    await client.close().catch(() => {});
  };
  try {
    await client.connect(transport, request);
  } catch (err) {
    await close();
    throw err;
  }
  return {
    client,
    url: o.url,
    request,
    handshake: () =>
      handshake ??
      client.getDiscoverResult() ?? {
        protocolVersion: client.getNegotiatedProtocolVersion(),
        capabilities: client.getServerCapabilities(),
        serverInfo: client.getServerVersion(),
        instructions: client.getInstructions(),
      },
    close,
  };
}

/** Runs `use` on a connection and closes it afterwards, whatever happens. */
export async function withConnection<T>(
  o: RemoteOptions,
  use: (c: Connection) => Promise<T>,
): Promise<T> {
  const c = await connect(o);
  try {
    return await use(c);
  } finally {
    await c.close();
  }
}

function isHandshakeResult(result: Record<string, unknown> | undefined): boolean {
  if (!result || typeof result !== 'object') return false;
  return (
    Array.isArray(result.supportedVersions) ||
    (typeof result.protocolVersion === 'string' && typeof result.serverInfo === 'object')
  );
}

/**
 * fetch with a deadline on each exchange except the standing GET stream (which
 * close() aborts): the SDK's request timeout covers the JSON-RPC answer, not a
 * DELETE on close or a `notifications/cancelled` POST.
 */
function deadlineFetch(timeoutMs: number): typeof fetch {
  return (input, init = {}) => {
    if ((init.method ?? 'GET').toUpperCase() === 'GET') return fetch(input, init);
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = init.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
    return fetch(input, { ...init, signal });
  };
}

let versionText: string | undefined;
async function ownVersion(): Promise<string> {
  if (versionText === undefined) {
    try {
      const pkg = JSON.parse(
        await readFile(new URL('../../package.json', import.meta.url), 'utf8'),
      ) as { version?: string };
      versionText = pkg.version ?? '0.0.0';
    } catch {
      versionText = '0.0.0';
    }
  }
  return versionText;
}
