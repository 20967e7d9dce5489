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
 * the initialize result as sent, for `discover`.
 */
import { readFile } from 'node:fs/promises';
import {
  Client,
  StreamableHTTPClientTransport,
  type ElicitRequestParams,
  type ElicitResult,
} from '@modelcontextprotocol/client';
import { MODERN_VERSION, type RemoteOptions } from './options.js';

export interface Connection {
  readonly client: Client;
  readonly url: URL;
  /** Options for every request: the SDK's own timeout for the JSON-RPC answer. */
  readonly request: { timeout: number; maxTotalTimeout: number };
  /** The `server/discover` result (modern, every field kept) or the `initialize` result as sent. */
  handshake(): unknown;
  /** Ends the session (DELETE, best effort, bounded) and closes the client. */
  close(): Promise<void>;
}

/** Answers the server's questions to the user (`call`); without it none is declared. */
export type Elicit = (params: ElicitRequestParams) => Promise<ElicitResult>;

export async function connect(o: RemoteOptions, elicit?: Elicit): Promise<Connection> {
  const transport = new StreamableHTTPClientTransport(o.url, {
    requestInit: { headers: o.headers },
    fetch: deadlineFetch(o.timeoutMs),
  });
  // The client keeps the discover result whole but only parts of the initialize
  // result; a handler set before connect() sees every answer after negotiation
  // (the SDK chains it), so the initialize result is kept here as the server sent it.
  let initializeResult: unknown;
  transport.onmessage = (message) => {
    const result = (message as { result?: Record<string, unknown> }).result;
    if (initializeResult === undefined && isInitializeResult(result)) initializeResult = result;
  };
  const client = new Client(
    { name: 'mcp-beaver', version: await ownVersion() },
    {
      versionNegotiation: {
        mode: o.era === 'modern' ? { pin: MODERN_VERSION } : o.era,
        probe: { timeoutMs: o.timeoutMs },
      },
      // Declared only by a command that can answer: a gateway asks such a client to
      // confirm (form) or shows it the approval (URL) instead of refusing the call.
      ...(elicit && { capabilities: { elicitation: { form: {}, url: {} } } }),
    },
  );
  if (elicit) client.setRequestHandler('elicitation/create', async (req) => elicit(req.params));
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
      client.getProtocolEra() === 'modern'
        ? client.getDiscoverResult()
        : (initializeResult ?? {
            protocolVersion: client.getNegotiatedProtocolVersion(),
            capabilities: client.getServerCapabilities(),
            serverInfo: client.getServerVersion(),
            instructions: client.getInstructions(),
          }),
    close,
  };
}

/** Runs `use` on a connection and closes it afterwards, whatever happens. */
export async function withConnection<T>(
  o: RemoteOptions,
  use: (c: Connection) => Promise<T>,
  elicit?: Elicit,
): Promise<T> {
  const c = await connect(o, elicit);
  try {
    return await use(c);
  } finally {
    await c.close();
  }
}

function isInitializeResult(result: Record<string, unknown> | undefined): boolean {
  if (!result || typeof result !== 'object') return false;
  return typeof result.protocolVersion === 'string' && typeof result.serverInfo === 'object';
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
